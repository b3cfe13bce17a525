//! `f::grad` and `f::value_and_grad`: the gradient of a scalar output with
//! respect to the arguments `argnums` picks, with `has_aux`'s auxiliary
//! output passed through. The only companions a `has_aux` function has,
//! and the only ones `argnums` changes, so their rules live together.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{is_inexact, spelled, Differentiated};
use crate::backend::body::emit_body;
use crate::frontend::trace::types::TypeSpec;
use crate::ir::Atom;
use crate::transform::ad::{self, Seed};
use crate::x64;

impl Differentiated<'_> {
    /// `f::grad(a, b)`: the gradient with respect to the first argument (or
    /// `argnums`).
    pub(super) fn grad(&self) -> TokenStream {
        self.gradient(false)
    }

    /// `f::value_and_grad(a, b)`: the output and its gradient, in one pass.
    pub(super) fn value_and_grad(&self) -> TokenStream {
        self.gradient(true)
    }

    /// `f::grad`, or with `with_value`, `f::value_and_grad`.
    fn gradient(&self, with_value: bool) -> TokenStream {
        let name = if with_value { "value_and_grad" } else { "grad" };
        let n = self.params.len();
        // JAX's `_check_scalar`: a pytree output has no abstract value.
        let Some(out) = self.ret.aval() else {
            let msg = format!(
                "Gradient only defined for scalar-output functions. Output was {}. `{f}` returns a pytree; use `{f}::vjp` (its pullback takes a cotangent of each output), `{f}::jacrev`, or return the scalar alone (`#[jax::jit(has_aux)]` for `(scalar, aux)`)",
                self.ret_text(),
                f = self.fsig.ident,
            );
            return self.lazy_error(name, n.max(1), &msg);
        };
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
        let (argnums, as_tuple) = &self.argnums;
        if let Some(&bad) = argnums.iter().find(|&&k| k >= n) {
            let msg = format!("argnums {bad} is out of range for a function of {n} argument(s)");
            return self.lazy_error(name, n, &msg);
        }
        for &k in argnums {
            let p = &self.params[k];
            if !is_inexact(&p.spec) {
                let dtype = p.spec.aval().map(|a| a.dtype.name()).unwrap_or("?");
                let msg = format!(
                    "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got {dtype}. Choose float arguments with `#[jax::jit(argnums = ..)]`, or use `{}::vjp` (integer arguments get zero cotangents).", self.fsig.ident
                );
                return self.lazy_error(name, n, &msg);
            }
        }
        let mut wrt = vec![false; n];
        for &k in argnums {
            wrt[k] = true;
        }
        let mut jaxpr = match ad::vjp(
            self.program,
            &self.per_leaf(&wrt),
            Seed::One,
            x64(),
            self.span(),
        ) {
            Ok(j) => j,
            Err(e) => return self.lazy_error(name, n, &e.to_string()),
        };
        // The vjp returns gradients in argument order; argnums may not be.
        let mut sorted: Vec<usize> = argnums.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let n_out = self.program.outvars.len();
        let grads: Vec<Atom> = jaxpr.outvars.split_off(n_out);
        let aux_outs: Vec<Atom> = jaxpr.outvars.split_off(1);
        // Each differentiated parameter's leaves, in parameter order.
        let counts = self.leaf_counts();
        let mut per_param: Vec<Vec<Atom>> = Vec::new();
        let mut at = 0;
        for &k in &sorted {
            per_param.push(grads[at..at + counts[k]].to_vec());
            at += counts[k];
        }
        let picked: Vec<Atom> = argnums
            .iter()
            .flat_map(|k| per_param[sorted.iter().position(|s| s == k).unwrap()].clone())
            .collect();
        let names = self.param_names();
        let tys = self.param_types();
        let inputs = self.params_as_inputs();
        let (g, gspec): (syn::Type, TypeSpec) = if *as_tuple {
            let tys: Vec<&syn::Type> = argnums.iter().map(|&k| &self.params[k].owned).collect();
            (
                syn::parse_quote!((#(#tys,)*)),
                TypeSpec::Tuple(
                    argnums
                        .iter()
                        .map(|&k| self.params[k].spec.clone())
                        .collect(),
                ),
            )
        } else {
            let p = &self.params[argnums[0]];
            (p.owned.clone(), p.spec.clone())
        };
        let r = &self.ret_ty;
        let (ret_ty, ret): (syn::Type, TypeSpec) = match (&self.aux, with_value) {
            (None, true) => {
                jaxpr.outvars.extend(picked);
                (
                    syn::parse_quote!((#r, #g)),
                    TypeSpec::Tuple(vec![self.ret.clone(), gspec]),
                )
            }
            (None, false) => {
                jaxpr.outvars = picked;
                (g, gspec)
            }
            // JAX: value_and_grad gives ((value, aux), grad); grad gives (grad, aux).
            (Some(aux), true) => {
                let a = spelled(aux, self.items);
                jaxpr.outvars.extend(aux_outs);
                jaxpr.outvars.extend(picked);
                (
                    syn::parse_quote!(((#r, #a), #g)),
                    TypeSpec::Tuple(vec![
                        TypeSpec::Tuple(vec![self.ret.clone(), aux.clone()]),
                        gspec,
                    ]),
                )
            }
            (Some(aux), false) => {
                let a = spelled(aux, self.items);
                jaxpr.outvars = picked;
                jaxpr.outvars.extend(aux_outs);
                (
                    syn::parse_quote!((#g, #a)),
                    TypeSpec::Tuple(vec![gspec, aux.clone()]),
                )
            }
        };
        let body = match emit_body(jaxpr, &inputs, &ret_ty, &ret, self.items) {
            Ok(b) => b,
            Err(e) => return self.lazy_error(name, n, &e.to_string()),
        };
        let f = format_ident!("{}", name);
        let doc = if with_value {
            "The output and its gradient (`jax.value_and_grad`, with respect to the first argument or `argnums`), in one pass."
        } else {
            "The gradient of the (scalar) output (`jax.grad`, with respect to the first argument or `argnums`)."
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
