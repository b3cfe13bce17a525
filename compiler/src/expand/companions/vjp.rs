//! `f::vjp` and the `f::__pullback` it boxes: reverse mode, the output and
//! a pullback from an output cotangent to every argument's cotangent.
//! Its own file beside `jvp.rs`: reverse mode is a second derivative
//! program (linearize and transpose), and `jacrev` reuses `__pullback`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{leaf_count, leaves, spelled, Differentiated};
use crate::backend::body::emit_body;
use crate::frontend::trace::types::TypeSpec;
use crate::transform::ad::{self, Seed};
use crate::x64;

impl Differentiated<'_> {
    /// `f::vjp(a, b) -> (R, pullback)`, and `f::__pullback`, what the
    /// pullback calls: it maps an output cotangent to the cotangents of all
    /// arguments, as a tuple.
    pub(super) fn vjp(&self) -> TokenStream {
        let n = self.params.len();
        let wrt = self.per_leaf(&vec![true; n]);
        // With `has_aux` the pullback is of the output alone.
        let mut base = self.program.clone();
        base.outvars.truncate(leaf_count(&self.ret));
        let mut jaxpr = match ad::vjp(&base, &wrt, Seed::Inputs, x64(), self.span()) {
            Ok(j) => j,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        // The pullback returns the cotangents only.
        let n_out = base.outvars.len();
        jaxpr.outvars.drain(..n_out);
        let names = self.param_names();
        let tys = self.param_types();
        let owned: Vec<&syn::Type> = self.params.iter().map(|p| &p.owned).collect();
        // The pullback keeps the arguments' leaves (arrays and scalars,
        // which clone cheaply), not the arguments: structs need not be Clone.
        let mut all_leaves: Vec<(TokenStream, TypeSpec)> = Vec::new();
        for p in &self.params {
            let name = &p.name;
            let place = if p.by_ref {
                quote!((*#name))
            } else {
                quote!(#name)
            };
            leaves(&p.spec, place, &mut all_leaves);
        }
        let leaf_names: Vec<syn::Ident> = (0..all_leaves.len())
            .map(|k| format_ident!("__leaf{}", k))
            .collect();
        let leaf_tys: Vec<syn::Type> = all_leaves
            .iter()
            .map(|(_, s)| spelled(s, self.items))
            .collect();
        let mut inputs: Vec<(TokenStream, TypeSpec)> = leaf_names
            .iter()
            .zip(&all_leaves)
            .map(|(n, (_, s))| (quote!(#n), s.clone()))
            .collect();
        inputs.push((quote!(__ct), self.ret.clone()));
        let cts_ty: syn::Type = syn::parse_quote!((#(#owned,)*));
        let cts = TypeSpec::Tuple(self.params.iter().map(|p| p.spec.clone()).collect());
        let body = match emit_body(jaxpr, &inputs, &cts_ty, &cts, self.items) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        // The output, from the function's own jaxpr (the function itself may
        // be a local item the companion module cannot name).
        let primal_inputs = self.params_as_inputs();
        let r = &self.ret_ty;
        let (forward_ty, forward_spec, ret_ty, result): (
            syn::Type,
            TypeSpec,
            syn::Type,
            TokenStream,
        ) = match &self.aux {
            None => (
                r.clone(),
                self.ret.clone(),
                syn::parse_quote!((#r, ::std::boxed::Box<dyn Fn(#r) -> (#(#owned,)*)>)),
                quote!((__out, __pb)),
            ),
            // `jax.vjp(.., has_aux=True)`: `(output, pullback, aux)`.
            Some(aux) => {
                let a = spelled(aux, self.items);
                (
                    syn::parse_quote!((#r, #a)),
                    TypeSpec::Tuple(vec![self.ret.clone(), aux.clone()]),
                    syn::parse_quote!((#r, ::std::boxed::Box<dyn Fn(#r) -> (#(#owned,)*)>, #a)),
                    quote!((__out.0, __pb, __out.1)),
                )
            }
        };
        let forward = match emit_body(
            self.program.clone(),
            &primal_inputs,
            &forward_ty,
            &forward_spec,
            self.items,
        ) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        let (generics, wh) = self.generics();
        let turbofish = self.turbofish();
        let keep: Vec<TokenStream> = all_leaves
            .iter()
            .zip(&leaf_names)
            .zip(&leaf_tys)
            .map(
                |(((place, _), n), ty)| quote!(let #n: #ty = ::core::clone::Clone::clone(&#place);),
            )
            .collect();
        quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn __pullback #generics (#(#leaf_names: #leaf_tys,)* __ct: #r) -> (#(#owned,)*) #wh {
                #body
            }

            /// Reverse mode (`jax.vjp`): the output, and the pullback from an
            /// output cotangent to every argument's cotangent (a tuple, a
            /// 1-tuple for one argument; zeros for integer arguments). The
            /// pullback recomputes the forward pass it needs. With
            /// `has_aux`, the aux third.
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn vjp #generics (#(#names: #tys),*) -> #ret_ty #wh {
                #(#keep)*
                let __out: #forward_ty = { #forward };
                let __pb: ::std::boxed::Box<dyn Fn(#r) -> (#(#owned,)*)> = ::std::boxed::Box::new(move |__ct: #r| __pullback #turbofish (#(::core::clone::Clone::clone(&#leaf_names),)* __ct));
                #result
            }
        }
    }
}
