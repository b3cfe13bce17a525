//! `sin` and `cos` in loops.
//!
//! - Of one value in one loop they share their argument reduction: the loop
//!   binds both from one `::jax::__rt::ops::sincos` call (the same bits as
//!   the two separate calls). The derivative of `sin(x) * x` is the common
//!   case: its loop reads `sin(x)` and `cos(x)`.
//! - A flat loop calling them runs in blocks (`flat::flat_loop`): each block first
//!   with `sin_near`/`cos_near`/`sincos_near`, which skip the reduction of
//!   huge arguments (for f32 the branch-free large-argument reduction,
//!   computed in every lane and then discarded, was half of `sin`'s cost;
//!   for f64 a branch that kept the loop from vectorizing), and again with
//!   the exact calls when one of its arguments was that large.

use jax_dtypes::DType;
use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::{format_ident, quote};

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
        let other = self.readers(*x).find(|f| {
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

/// `body` with every `ops::sin(x)`, `ops::cos(x)` and `ops::sincos(x)` call
/// replaced by its `_near` form writing `__wide`, or `None` if it has none.
pub(super) fn near_calls(body: TokenStream) -> Option<TokenStream> {
    let mut found = false;
    let out = rewrite(body, &mut found);
    found.then_some(out)
}

fn rewrite(body: TokenStream, found: &mut bool) -> TokenStream {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    // The previous token was a renamed call: its arguments get `&mut __wide`.
    let mut renamed = false;
    for (k, t) in tokens.iter().enumerate() {
        let was_renamed = std::mem::take(&mut renamed);
        match t {
            TokenTree::Ident(name)
                if matches!(name.to_string().as_str(), "sin" | "cos" | "sincos")
                    && follows_ops(&tokens[..k])
                    && matches!(tokens.get(k + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) =>
            {
                *found = true;
                renamed = true;
                out.push(TokenTree::Ident(format_ident!("{}_near", name)));
            }
            TokenTree::Group(g) => {
                let inner = rewrite(g.stream(), found);
                let stream = if was_renamed {
                    quote!(#inner, &mut __wide)
                } else {
                    inner
                };
                let mut group = Group::new(g.delimiter(), stream);
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            _ => out.push(t.clone()),
        }
    }
    out.into_iter().collect()
}

/// The runtime's transcendental functions that have a compiled-once form
/// in `::jax::__rt::ops::outlined` (see `loops::TINY_LOOP`).
const OUTLINED: &[&str] = &[
    "exp", "log", "log1p", "expm1", "sin", "cos", "tanh", "sincos", "exp2", "tan", "sinh", "cosh",
    "asin", "acos", "atan", "asinh", "acosh", "atanh", "cbrt", "logistic", "erf", "erfc",
    "erf_inv", "lgamma", "digamma", "pow", "atan2",
];

/// `body` with every call `ops::NAME(..)` of a function in [`OUTLINED`]
/// made a call of `ops::outlined::NAME(..)`.
pub(super) fn outlined_calls(body: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    for (k, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(name)
                if OUTLINED.contains(&name.to_string().as_str())
                    && follows_ops(&tokens[..k])
                    && matches!(tokens.get(k + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) =>
            {
                out.extend(quote!(outlined::));
                out.push(t.clone());
            }
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), outlined_calls(g.stream()));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            _ => out.push(t.clone()),
        }
    }
    out.into_iter().collect()
}

/// Whether `before` ends in `ops ::`, the runtime's scalar operations.
fn follows_ops(before: &[TokenTree]) -> bool {
    let n = before.len();
    n >= 3
        && matches!(&before[n - 1], TokenTree::Punct(p) if p.as_char() == ':')
        && matches!(&before[n - 2], TokenTree::Punct(p) if p.as_char() == ':')
        && matches!(&before[n - 3], TokenTree::Ident(i) if i == "ops")
}

#[cfg(test)]
mod tests {
    use super::super::{emitted, emitted_with};

    #[test]
    fn every_transcendental_has_an_outlined_form() {
        // The elementwise primitives whose runtime call is `ops::NAME(..)`
        // and costs a transcendental's work: a tiny loop calls them outlined.
        let mut want: Vec<&str> = crate::prims::all()
            .iter()
            .filter(|p| {
                p.lowering == crate::prims::Lowering::Elementwise
                    && p.scalar.is_none()
                    && p.work >= crate::prims::TRANSCENDENTAL_WORK
            })
            .map(|p| p.name)
            .chain(["sincos"])
            .collect();
        let mut have = super::OUTLINED.to_vec();
        want.sort();
        have.sort();
        assert_eq!(have, want);
    }

    #[test]
    fn a_loop_of_three_elements_calls_sin_outlined() {
        let code = emitted("fn f(x: Array<f32, 3>) -> Array<f32, 3> { jnp::sin(jnp::sin(x)) }");
        assert_eq!(
            code.matches(":: ops :: outlined :: sin (").count(),
            2,
            "{code}"
        );
        assert!(!code.contains("dispatch2"), "one copy: {code}");
        let code = emitted("fn f(x: Array<f32, 4>) -> Array<f32, 4> { jnp::sin(jnp::sin(x)) }");
        assert!(!code.contains("outlined"), "{code}");
        assert!(code.contains("dispatch2"), "two copies: {code}");
    }

    #[test]
    fn sin_and_cos_of_one_value_share_one_sincos_call() {
        let code = emitted(
            "fn f(x: Array<f32, 4096>) -> Array<f32, 4096> { jnp::sin(x) * x + jnp::cos(x) }",
        );
        // The loop (one text, compiled per SIMD level by `__per_level!`)
        // with the blocks' first pass, their exact second pass and the
        // exact tail.
        assert_eq!(code.matches(":: ops :: sincos (").count(), 2, "{code}");
        assert_eq!(code.matches(":: ops :: sincos_near (").count(), 1, "{code}");
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
    fn flat_trig_loops_run_in_blocks_that_recompute_huge_arguments() {
        let code = emitted("fn f(x: Array<f32, 4096>) -> Array<f32, 4096> { jnp::cos(x) * 2.0 }");
        assert!(
            code.contains(":: ops :: cos_near (") && code.contains("& mut __wide"),
            "{code}"
        );
        assert!(code.contains("if __wide"), "{code}");
        // Without sin or cos, one plain loop.
        let code = emitted("fn f(x: Array<f32, 4096>) -> Array<f32, 4096> { jnp::exp(x) * 2.0 }");
        assert!(!code.contains("__wide"), "{code}");
    }

    #[test]
    fn sin_alone_or_of_different_values_stays_sin() {
        let code = emitted("fn f(x: Array<f32, 4096>) -> Array<f32, 4096> { jnp::sin(x) * x }");
        assert!(
            !code.contains(":: ops :: sincos") && code.contains(":: ops :: sin ("),
            "{code}"
        );
        let code = emitted(
            "fn f(x: Array<f32, 4096>, y: Array<f32, 4096>) -> Array<f32, 4096> { jnp::sin(x) + jnp::cos(y) }",
        );
        assert!(!code.contains(":: ops :: sincos"), "{code}");
    }
}
