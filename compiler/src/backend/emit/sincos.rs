//! `sin` and `cos` of one value in one loop share their argument reduction:
//! the loop binds both from one `::jax::__rt::ops::sincos` call (the same
//! bits as the two separate calls). The derivative of `sin(x) * x` is the
//! common case: its loop reads `sin(x)` and `cos(x)`.

use jax_dtypes::DType;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::Emitter;
use crate::ir::{rust_type, Atom, Eqn, Var};

impl Emitter<'_> {
    /// For a `sin` or `cos` equation of a real float operand whose partner
    /// (`cos` or `sin` of the same operand) is computed inside a loop too
    /// (fused), the outputs as `(sin, cos)`; else `None`.
    pub(super) fn sincos_pair(&self, e: &Eqn) -> Option<(Var, Var)> {
        let partner = match e.prim.name {
            "sin" => "cos",
            "cos" => "sin",
            _ => return None,
        };
        let Atom::Var(x) = &e.ins[0] else { return None };
        let dtype = self.j.aval(e.outs[0]).dtype;
        if !matches!(dtype, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
            || self.replay.is_some()
        {
            return None;
        }
        let other = self.j.eqns.iter().find(|f| {
            f.prim.name == partner
                && matches!(&f.ins[0], Atom::Var(y) if y == x)
                && self.fusion.fused.contains(&f.outs[0])
        })?;
        let (me, other) = (e.outs[0], other.outs[0]);
        Some(if e.prim.name == "sin" {
            (me, other)
        } else {
            (other, me)
        })
    }
}

/// `let (s, c): (T, T) = ::jax::__rt::ops::sincos(arg);` for `sin`/`cos`
/// results of dtype `dtype`.
pub(super) fn binding(s: &Ident, c: &Ident, dtype: DType, arg: &TokenStream) -> TokenStream {
    let ty = rust_type(dtype);
    quote!(let (#s, #c): (#ty, #ty) = ::jax::__rt::ops::sincos(#arg);)
}

#[cfg(test)]
mod tests {
    /// The statements `#[jax::jit]` emits for `src`, as one string.
    fn emitted(src: &str) -> String {
        emitted_with(src, false)
    }

    /// [`emitted`], of the function's gradient when `grad`.
    fn emitted_with(src: &str, grad: bool) -> String {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let sig = crate::frontend::parse::signature(&f).unwrap();
        let mut j = crate::frontend::parse::trace_fn(&f, &sig, false)
            .unwrap()
            .b
            .jaxpr;
        if grad {
            j = crate::transform::ad::grad(&j, 0, false, proc_macro2::Span::call_site()).unwrap();
        }
        crate::transform::simplify::simplify(&mut j);
        let mut em = super::Emitter::new(&j);
        for (k, v) in j.invars.clone().into_iter().enumerate() {
            let name = quote::format_ident!("x{}", k);
            em.input(v, quote::quote!(#name), false);
        }
        em.eqns().unwrap();
        let (stmts, outs) = em.finish();
        quote::quote!(#(#stmts)* #(#outs)*).to_string()
    }

    #[test]
    fn sin_and_cos_of_one_value_share_one_sincos_call() {
        let code = emitted(
            "fn f(x: Array<f32, 4096>) -> Array<f32, 4096> { jnp::sin(x) * x + jnp::cos(x) }",
        );
        assert_eq!(code.matches("sincos").count(), 3, "{code}"); // 3 SIMD copies
        assert!(!code.contains(":: ops :: sin ("), "{code}");
        assert!(!code.contains(":: ops :: cos ("), "{code}");
    }

    #[test]
    fn the_gradient_of_sin_times_x_uses_sincos() {
        let code = emitted_with(
            "fn f(x: Array<f32, 4096>) -> Array<f32> { jnp::sum(jnp::sin(x) * x) }",
            true,
        );
        assert!(code.contains(":: ops :: sincos ("), "{code}");
        assert!(!code.contains(":: ops :: cos ("), "{code}");
    }

    #[test]
    fn sin_alone_or_of_different_values_stays_sin() {
        let code = emitted("fn f(x: Array<f32, 4096>) -> Array<f32, 4096> { jnp::sin(x) * x }");
        assert!(
            !code.contains("sincos") && code.contains(":: ops :: sin ("),
            "{code}"
        );
        let code = emitted(
            "fn f(x: Array<f32, 4096>, y: Array<f32, 4096>) -> Array<f32, 4096> { jnp::sin(x) + jnp::cos(y) }",
        );
        assert!(!code.contains("sincos"), "{code}");
    }
}
