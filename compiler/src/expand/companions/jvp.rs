//! `f::jvp`: forward mode, the output and its tangent from one pass of the
//! jvp jaxpr `ad` derives. Its own file because `check_grads` and `jacfwd`
//! call it, and so each derivative kind reads alone.

use proc_macro2::TokenStream;
use quote::quote;

use super::Differentiated;
use crate::backend::body::emit_body;
use crate::frontend::types::TypeSpec;
use crate::transform::ad;
use crate::X64;

impl Differentiated<'_> {
    /// `f::jvp((a, b), (ta, tb)) -> (R, R)`: the output and its tangent.
    pub(super) fn jvp(&self) -> TokenStream {
        let n = self.params.len();
        let wrt = self.per_leaf(&vec![true; n]);
        let jaxpr = match ad::jvp(self.program, &wrt, X64, self.span()) {
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
        let ret_ty: syn::Type = syn::parse_quote!((#r, #r));
        let ret = TypeSpec::Tuple(vec![self.ret.clone(), self.ret.clone()]);
        let body = match emit_body(jaxpr, &inputs, &ret_ty, &ret, self.items) {
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
}
