//! `f::__check_grads`, what `jax::test_util::check_grads!` expands to a call
//! of: the companions `jvp` and `vjp` checked against central differences.
//! Test support rather than a derivative, so it is apart from them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{is_array_or_scalar, is_float, Differentiated, Param};
use crate::transform::ad::{self, Seed};
use crate::x64;

impl Differentiated<'_> {
    /// `f::__check_grads(modes, args..)`, what `jax::test_util::check_grads!`
    /// calls: jvp and vjp against central differences in one random
    /// direction (see the runtime's `test_util`).
    pub(super) fn check_grads(&self) -> TokenStream {
        let n = self.params.len();
        if n == 0 {
            return quote!();
        }
        if !self
            .params
            .iter()
            .all(|p| is_float(&p.spec) && is_array_or_scalar(&p.spec))
            || !is_float(&self.ret)
            || !is_array_or_scalar(&self.ret)
        {
            return self.lazy_error(
                "__check_grads",
                n + 1,
                "check_grads checks functions of float arrays and scalars returning one float array or scalar",
            );
        }
        // It calls `jvp` and `vjp`, either of which may not exist (a
        // custom_vjp function has no jvp; a loop has no vjp yet).
        let all = self.per_leaf(&vec![true; n]);
        if let Err(e) = ad::jvp(self.program, &all, x64(), self.span())
            .and_then(|_| ad::vjp(self.program, &all, Seed::Inputs, x64(), self.span()))
        {
            return self.lazy_error("__check_grads", n + 1, &e.to_string());
        }
        let names = self.param_names();
        let tys = self.param_types();
        let owned: Vec<&syn::Type> = self.params.iter().map(|p| &p.owned).collect();
        let o: Vec<syn::Ident> = (0..n).map(|k| format_ident!("__o{}", k)).collect();
        let t: Vec<syn::Ident> = (0..n).map(|k| format_ident!("__t{}", k)).collect();
        let seeds: Vec<u64> = (0..n as u64).collect();
        let pass = |e: TokenStream, p: &Param| if p.by_ref { quote!(&#e) } else { e };
        let args_at = |a: f64| -> Vec<TokenStream> {
            self.params
                .iter()
                .zip(&o)
                .zip(&t)
                .map(|((p, o), t)| {
                    pass(
                        quote!(::jax::test_util::shift(&#o, &#t, #a * ::jax::test_util::EPS)),
                        p,
                    )
                })
                .collect()
        };
        let (plus, minus) = (args_at(1.0), args_at(-1.0));
        let tangents: Vec<TokenStream> = self
            .params
            .iter()
            .zip(&t)
            .map(|(p, t)| pass(quote!(::core::clone::Clone::clone(&#t)), p))
            .collect();
        let primals: Vec<TokenStream> = self
            .params
            .iter()
            .zip(&o)
            .map(|(p, o)| pass(quote!(::core::clone::Clone::clone(&#o)), p))
            .collect();
        let keep: Vec<TokenStream> = self
            .params
            .iter()
            .zip(&o)
            .map(|(p, o)| {
                let (name, ty) = (&p.name, &p.owned);
                if p.by_ref {
                    quote!(let #o: #ty = ::core::clone::Clone::clone(#name);)
                } else {
                    quote!(let #o: #ty = ::core::clone::Clone::clone(&#name);)
                }
            })
            .collect();
        let idx: Vec<syn::Index> = (0..n).map(syn::Index::from).collect();
        let r = &self.ret_ty;
        let (generics, wh) = self.generics();
        let turbofish = self.turbofish();
        quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn __check_grads #generics (__modes: &[&str], #(#names: #tys),*) #wh {
                use ::jax::test_util::Perturb as _;
                for __m in __modes {
                    ::core::assert!(*__m == "fwd" || *__m == "rev", "check_grads: unknown mode {:?}; the modes are \"fwd\" and \"rev\"", __m);
                }
                #(#keep)*
                #(let #t: #owned = ::jax::test_util::direction(&#o, #seeds);)*
                let __plus: #r = jvp #turbofish ((#(#plus,)*), (#(#tangents,)*)).0;
                let __minus: #r = jvp #turbofish ((#(#minus,)*), (#(#tangents,)*)).0;
                let __numerical: ::std::vec::Vec<f64> = __plus
                    .flat()
                    .iter()
                    .zip(__minus.flat())
                    .map(|(p, m)| (p - m) * (0.5 / ::jax::test_util::EPS))
                    .collect();
                let (__value, __tangent) = jvp #turbofish ((#(#primals,)*), (#(#tangents,)*));
                let __tol = ::jax::test_util::tolerance(__value.dtype());
                if __modes.contains(&"fwd") {
                    ::jax::test_util::assert_close("the jvp tangent", &__tangent.flat(), &__numerical, __tol);
                }
                if __modes.contains(&"rev") {
                    let __u: #r = ::jax::test_util::direction(&__value, 1000);
                    let (_, __pullback) = vjp #turbofish (#(#primals),*);
                    let __cts = __pullback(::core::clone::Clone::clone(&__u));
                    let __projection = 0.0 #(+ ::jax::test_util::inner(&#t.flat(), &__cts.#idx.flat()))*;
                    let __expected = ::jax::test_util::inner(&__numerical, &__u.flat());
                    ::jax::test_util::assert_close("the vjp cotangent projection", &[__projection], &[__expected], __tol);
                }
            }
        }
    }
}
