//! `f::jvp`: forward mode, the output and its tangent from one pass of the
//! jvp jaxpr `ad` derives. Its own file because `check_grads` and `jacfwd`
//! call it, and so each derivative kind reads alone.

use proc_macro2::TokenStream;
use quote::quote;

use super::{leaf_count, spelled, Differentiated};
use crate::backend::body::emit_body;
use crate::frontend::trace::types::TypeSpec;
use crate::transform::ad;
use crate::x64;

impl Differentiated<'_> {
    /// `f::jvp((a, b), (ta, tb)) -> (R, R)`: the output and its tangent.
    pub(super) fn jvp(&self) -> TokenStream {
        let n = self.params.len();
        let wrt = self.per_leaf(&vec![true; n]);
        let mut jaxpr = match ad::jvp(self.program, &wrt, x64(), self.span()) {
            Ok(j) => j,
            Err(e) => return self.lazy_error("jvp", 2, &e.to_string()),
        };
        let tys = self.param_types();
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
        let (ret_ty, ret): (syn::Type, TypeSpec) = match &self.aux {
            None => (
                syn::parse_quote!((#r, #r)),
                TypeSpec::Tuple(vec![self.ret.clone(), self.ret.clone()]),
            ),
            // `jax.jvp(.., has_aux=True)`: `(output, tangent, aux)`, the
            // aux's tangent dropped.
            Some(aux) => {
                let n_ret = leaf_count(&self.ret);
                let n_all = self.program.outvars.len();
                let outs = std::mem::take(&mut jaxpr.outvars);
                jaxpr.outvars.extend_from_slice(&outs[..n_ret]);
                jaxpr.outvars.extend_from_slice(&outs[n_all..n_all + n_ret]);
                jaxpr.outvars.extend_from_slice(&outs[n_ret..n_all]);
                let a = spelled(aux, self.items);
                (
                    syn::parse_quote!((#r, #r, #a)),
                    TypeSpec::Tuple(vec![self.ret.clone(), self.ret.clone(), aux.clone()]),
                )
            }
        };
        let body = match emit_body(jaxpr, &inputs, &ret_ty, &ret, self.items) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("jvp", 2, &e.to_string()),
        };
        let (generics, wh) = self.generics();
        quote! {
            /// Forward mode (`jax.jvp`): the output and its tangent, for
            /// tangents of the arguments (integer arguments' are ignored);
            /// with `has_aux`, the aux third.
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn jvp #generics (__primals: (#(#tys,)*), __tangents: (#(#tys,)*)) -> #ret_ty #wh {
                #body
            }
        }
    }
}
