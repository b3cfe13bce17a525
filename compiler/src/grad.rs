//! The derivative functions of a jitted function's companion module:
//! `f::jvp`, `f::vjp`, `f::grad` and `f::value_and_grad`, each compiled from
//! the jaxpr `ad` derives, so a derivative is fused loops like `f` itself.
//! They are `#[inline]`: one never called costs no code generation.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::ad::{self, Seed, Wrt};
use crate::expand::emit_body;
use crate::ir::{Dim, Jaxpr};
use crate::parse::Signature;
use crate::types::{Items, TypeSpec};
use crate::X64;

/// A parameter of the differentiated function.
struct Param {
    name: syn::Ident,
    /// Its type, spelled from its abstract value (`&::jax::Array<f32, 3>`):
    /// the companion module cannot name the user's imports or local items.
    ty: syn::Type,
    /// Owned (`::jax::Array<f32, 3>`): what its derivative is.
    owned: syn::Type,
    by_ref: bool,
    spec: TypeSpec,
}

/// The Rust type of an array or scalar spec, fully qualified.
fn spelled(spec: &TypeSpec) -> syn::Type {
    match spec {
        TypeSpec::Scalar(d) => {
            let t = crate::types::rust_type(*d);
            syn::parse_quote!(#t)
        }
        TypeSpec::Array { aval, .. } => {
            let elem = crate::types::rust_type(aval.dtype);
            let dims: Vec<TokenStream> = aval
                .shape
                .iter()
                .map(|d| match d {
                    Dim::Lit(n) => {
                        let n = proc_macro2::Literal::usize_unsuffixed(*n);
                        quote!(#n)
                    }
                    Dim::Sym(s) => {
                        let id = format_ident!("{}", s);
                        quote!(#id)
                    }
                })
                .collect();
            syn::parse_quote!(::jax::Array<#elem #(, #dims)*>)
        }
        _ => unreachable!("derivatives are generated for arrays and scalars"),
    }
}

/// Symbolic dimensions of a spec.
fn symbols(spec: &TypeSpec, out: &mut Vec<String>) {
    if let Some(a) = spec.aval() {
        for d in &a.shape {
            if let Dim::Sym(s) = d {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
        }
    }
}

fn is_float(spec: &TypeSpec) -> bool {
    spec.aval().is_some_and(|a| a.dtype.is_float())
}

/// The companion module's derivative functions for `fsig` (none for
/// functions of pytrees yet).
pub fn derivatives(fsig: &syn::Signature, sig: &Signature, j: &Jaxpr) -> TokenStream {
    let mut params = Vec::new();
    for (arg, (name, spec)) in fsig.inputs.iter().zip(&sig.params) {
        let syn::FnArg::Typed(pt) = arg else {
            return quote!();
        };
        if !matches!(spec, TypeSpec::Array { .. } | TypeSpec::Scalar(_)) {
            return quote!();
        }
        let by_ref = matches!(&*pt.ty, syn::Type::Reference(_));
        let owned = spelled(spec);
        let ty = if by_ref {
            syn::parse_quote!(&#owned)
        } else {
            owned.clone()
        };
        params.push(Param {
            name: name.clone(),
            ty,
            owned,
            by_ref,
            spec: spec.clone(),
        });
    }
    if !matches!(sig.ret, TypeSpec::Array { .. } | TypeSpec::Scalar(_)) {
        return quote!();
    }
    // Dimensions that are not the function's own const generics (consts of
    // the enclosing scope, possibly local to a block the companion module
    // cannot see) become const generics of the derived functions, inferred
    // from the arguments.
    let own: Vec<String> = fsig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut free = Vec::new();
    for p in &params {
        symbols(&p.spec, &mut free);
    }
    symbols(&sig.ret, &mut free);
    free.retain(|s| !own.contains(s));
    let g = Gen {
        fsig,
        params,
        ret_ty: spelled(&sig.ret),
        ret: sig.ret.clone(),
        j,
        free,
    };
    let mut out = TokenStream::new();
    out.extend(g.jvp());
    out.extend(g.vjp());
    out.extend(g.grad(false));
    out.extend(g.grad(true));
    out
}

struct Gen<'a> {
    fsig: &'a syn::Signature,
    params: Vec<Param>,
    ret_ty: syn::Type,
    ret: TypeSpec,
    j: &'a Jaxpr,
    /// Extra const generic dimensions (see `derivatives`).
    free: Vec<String>,
}

impl Gen<'_> {
    fn span(&self) -> Span {
        self.fsig.ident.span()
    }

    /// A function that exists (so calls resolve) but whose every call is a
    /// compile error saying `msg`: its first argument's type must implement
    /// a trait nothing implements, whose diagnostic is `msg`.
    fn lazy_error(&self, name: &str, arity: usize, msg: &str) -> TokenStream {
        let f = format_ident!("{}", name);
        let tr = format_ident!("__{}_error", name);
        let tys: Vec<syn::Ident> = (0..arity).map(|k| format_ident!("__A{}", k)).collect();
        let first = &tys[0];
        let rest = &tys[1..];
        let label = format!("`{}::{name}` cannot be used", self.fsig.ident);
        quote! {
            #[doc(hidden)]
            #[diagnostic::on_unimplemented(message = #msg, label = #label)]
            pub trait #tr {}
            #[doc = #msg]
            #[inline]
            #[allow(dead_code, unused_variables)]
            pub fn #f<#first: #tr, #(#rest),*>(#(_: #tys),*) {
                ::core::unreachable!()
            }
        }
    }

    fn generics(&self) -> (TokenStream, TokenStream) {
        let g = &self.fsig.generics;
        let mut params: Vec<TokenStream> = g.params.iter().map(|p| quote!(#p)).collect();
        for s in &self.free {
            let id = format_ident!("{}", s);
            params.push(quote!(const #id: usize));
        }
        let wh = &g.where_clause;
        (
            if params.is_empty() {
                quote!()
            } else {
                quote!(<#(#params),*>)
            },
            quote!(#wh),
        )
    }

    /// `f::jvp((a, b), (ta, tb)) -> (R, R)`: the output and its tangent.
    fn jvp(&self) -> TokenStream {
        let n = self.params.len();
        let wrt = Wrt {
            inputs: vec![true; n],
        };
        let jaxpr = match ad::jvp(self.j, &wrt, X64, self.span()) {
            Ok(j) => j,
            Err(e) => return self.lazy_error("jvp", 2, &e.to_string()),
        };
        let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
        let mut inputs: Vec<(TokenStream, TypeSpec)> = Vec::new();
        for (k, p) in self.params.iter().enumerate() {
            let i = syn::Index::from(k);
            inputs.push((quote!(__primals.#i), p.spec.clone()));
        }
        for (k, p) in self.params.iter().enumerate() {
            let i = syn::Index::from(k);
            inputs.push((quote!(__tangents.#i), p.spec.clone()));
        }
        let r = &self.ret_ty;
        let ret_ty: syn::Type = syn::parse_quote!((#r, #r));
        let ret = TypeSpec::Tuple(vec![self.ret.clone(), self.ret.clone()]);
        let body = match emit_body(jaxpr, &inputs, &ret_ty, &ret, &Items::default()) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("jvp", 2, &e.to_string()),
        };
        let (generics, wh) = self.generics();
        quote! {
            /// Forward mode (`jax.jvp`): the output and its tangent, for
            /// tangents of the arguments (integer arguments' are ignored).
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn jvp #generics (__primals: (#(#tys,)*), __tangents: (#(#tys,)*)) -> (#r, #r) #wh {
                #body
            }
        }
    }

    /// `f::vjp(a, b) -> (R, pullback)`: the pullback maps an output
    /// cotangent to the cotangents of all arguments, as a tuple.
    fn vjp(&self) -> TokenStream {
        let n = self.params.len();
        let wrt = Wrt {
            inputs: vec![true; n],
        };
        let mut jaxpr = match ad::vjp(self.j, &wrt, Seed::Inputs, X64, self.span()) {
            Ok(j) => j,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        // The pullback returns the cotangents only.
        let n_out = self.j.outvars.len();
        jaxpr.outvars.drain(..n_out);
        let names: Vec<&syn::Ident> = self.params.iter().map(|p| &p.name).collect();
        let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
        let owned: Vec<&syn::Type> = self.params.iter().map(|p| &p.owned).collect();
        let mut inputs: Vec<(TokenStream, TypeSpec)> = self
            .params
            .iter()
            .map(|p| {
                let name = &p.name;
                (quote!(#name), p.spec.clone())
            })
            .collect();
        inputs.push((quote!(__ct), self.ret.clone()));
        let cts_ty: syn::Type = syn::parse_quote!((#(#owned,)*));
        let cts = TypeSpec::Tuple(self.params.iter().map(|p| p.spec.clone()).collect());
        let body = match emit_body(jaxpr, &inputs, &cts_ty, &cts, &Items::default()) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        // The output, from the function's own jaxpr (the function itself may
        // be a local item the companion module cannot name).
        let primal_inputs = &inputs[..n];
        let forward = match emit_body(
            self.j.clone(),
            primal_inputs,
            &self.ret_ty,
            &self.ret,
            &Items::default(),
        ) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        let r = &self.ret_ty;
        let (generics, wh) = self.generics();
        let turbofish = self.turbofish();
        let keep: Vec<TokenStream> = self
            .params
            .iter()
            .map(|p| {
                let (name, owned) = (&p.name, &p.owned);
                let keep = format_ident!("__keep_{}", name);
                if p.by_ref {
                    quote!(let #keep: #owned = ::core::clone::Clone::clone(#name);)
                } else {
                    quote!(let #keep: #owned = ::core::clone::Clone::clone(&#name);)
                }
            })
            .collect();
        let pass: Vec<TokenStream> = self
            .params
            .iter()
            .map(|p| {
                let keep = format_ident!("__keep_{}", p.name);
                if p.by_ref {
                    quote!(&#keep)
                } else {
                    quote!(::core::clone::Clone::clone(&#keep))
                }
            })
            .collect();
        quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn __pullback #generics (#(#names: #tys,)* __ct: #r) -> (#(#owned,)*) #wh {
                #body
            }

            /// Reverse mode (`jax.vjp`): the output, and the pullback from an
            /// output cotangent to every argument's cotangent (a tuple, a
            /// 1-tuple for one argument; zeros for integer arguments). The
            /// pullback recomputes the forward pass it needs.
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn vjp #generics (#(#names: #tys),*) -> (#r, ::std::boxed::Box<dyn Fn(#r) -> (#(#owned,)*)>) #wh {
                #(#keep)*
                let __out: #r = { #forward };
                (__out, ::std::boxed::Box::new(move |__ct: #r| __pullback #turbofish (#(#pass,)* __ct)))
            }
        }
    }

    /// Explicit const generic arguments for calls (`::<N>`), so calls from
    /// a closure need no inference.
    fn turbofish(&self) -> TokenStream {
        let names: Vec<TokenStream> = self
            .fsig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Const(c) => {
                    let id = &c.ident;
                    Some(quote!(#id))
                }
                syn::GenericParam::Type(t) => {
                    let id = &t.ident;
                    Some(quote!(#id))
                }
                syn::GenericParam::Lifetime(_) => None,
            })
            .chain(self.free.iter().map(|s| {
                let id = format_ident!("{}", s);
                quote!(#id)
            }))
            .collect();
        if names.is_empty() {
            quote!()
        } else {
            quote!(::<#(#names),*>)
        }
    }

    /// `f::grad(a, b)` (gradient with respect to the first argument) or
    /// `f::value_and_grad(a, b)`.
    fn grad(&self, with_value: bool) -> TokenStream {
        let name = if with_value { "value_and_grad" } else { "grad" };
        let n = self.params.len();
        let out = self.ret.aval().expect("arrays and scalars have avals");
        if out.rank() != 0 {
            let shape: Vec<String> = out.shape.iter().map(|d| d.to_string()).collect();
            let msg = format!(
                "Gradient only defined for scalar-output functions. Output had shape: ({}{}). `{}` returns {out}; use `{}::vjp` or `jacrev` for non-scalar outputs",
                shape.join(", "),
                if shape.len() == 1 { "," } else { "" },
                self.fsig.ident,
                self.fsig.ident
            );
            return self.lazy_error(name, n.max(1), &msg);
        }
        if n == 0 {
            return quote!();
        }
        let first = &self.params[0];
        if !is_float(&first.spec) {
            let dtype = first.spec.aval().map(|a| a.dtype.name()).unwrap_or("?");
            let msg = format!(
                "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got {dtype}. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True."
            );
            return self.lazy_error(name, n, &msg);
        }
        let mut wrt = vec![false; n];
        wrt[0] = true;
        let mut jaxpr = match ad::vjp(self.j, &Wrt { inputs: wrt }, Seed::One, X64, self.span()) {
            Ok(j) => j,
            Err(e) => return self.lazy_error(name, n, &e.to_string()),
        };
        let names: Vec<&syn::Ident> = self.params.iter().map(|p| &p.name).collect();
        let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
        let inputs: Vec<(TokenStream, TypeSpec)> = self
            .params
            .iter()
            .map(|p| {
                let name = &p.name;
                (quote!(#name), p.spec.clone())
            })
            .collect();
        let g = &first.owned;
        let r = &self.ret_ty;
        let (ret_ty, ret): (syn::Type, TypeSpec) = if with_value {
            (
                syn::parse_quote!((#r, #g)),
                TypeSpec::Tuple(vec![self.ret.clone(), first.spec.clone()]),
            )
        } else {
            jaxpr.outvars.remove(0);
            (g.clone(), first.spec.clone())
        };
        let body = match emit_body(jaxpr, &inputs, &ret_ty, &ret, &Items::default()) {
            Ok(b) => b,
            Err(e) => return self.lazy_error(name, n, &e.to_string()),
        };
        let f = format_ident!("{}", name);
        let doc = if with_value {
            "The output and its gradient with respect to the first argument (`jax.value_and_grad`), in one pass."
        } else {
            "The gradient of the (scalar) output with respect to the first argument (`jax.grad`)."
        };
        let (generics, wh) = self.generics();
        quote! {
            #[doc = #doc]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn #f #generics (#(#names: #tys),*) -> #ret_ty #wh {
                #body
            }
        }
    }
}
