//! `jnp` numeric functions that are compositions of primitives
//! (`remainder`, `floor_divide`, `isinf`, `log` bases, `trunc`, `var`,
//! `std`, the nan-reductions, `argmax`/`argmin`) and `lax::reduce`,
//! `lax::convert_element_type`, lowered as JAX writes them.

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::lib::jnp::math;
use crate::frontend::lib::nn::*;
use crate::frontend::trace::jnp::{self, Reduction};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Scalar};
use crate::prims::{self, Prim};
use jax_core::lax::Lax;
use jax_core::numeric as core;

/// The two operands of a binary function.
fn two(t: &mut Tracer, c: &Call) -> Result<(Atom, Atom)> {
    c.want(2)?;
    Ok((c.atom(t, 0)?, c.atom(t, 1)?))
}

/// `jnp::remainder(x, y)`: the sign of the divisor, as JAX writes it.
pub(crate) fn remainder(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, y) = two(t, &c)?;
    traced(core::remainder(&mut t.at(c.span), x, y)?)
}

/// `jnp::floor_divide(x, y)`: JAX's integer formula, or `_float_divmod`.
pub(crate) fn floor_divide(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, y) = two(t, &c)?;
    traced(core::floor_divide(&mut t.at(c.span), x, y)?)
}

/// `jnp::isinf(x)` and `jnp::isfinite(x)`: false and true for integers.
pub(crate) fn isinf_isfinite(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let l = &mut t.at(c.span);
    traced(if c.name == "isinf" {
        core::isinf(l, x)?
    } else {
        core::isfinite(l, x)?
    })
}

/// `jnp::log2(x)` (`log(x) / log(2)`) and `jnp::log10(x)` (`log(x) * (1 / log(10))`).
pub(crate) fn log_base(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    traced(core::log_base(&mut t.at(c.span), x, c.name == "log2")?)
}

/// `jnp::trunc(x)`: `where(x < 0, ceil(x), floor(x))`; integers unchanged.
pub(crate) fn trunc(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    traced(core::trunc(&mut t.at(c.span), x)?)
}

/// `jnp::var(x[, axis, keepdims])`, `jnp::std`, and their `_axis` spellings
/// (ddof 0).
pub(crate) fn var_std(t: &mut Tracer, c: Call) -> Result<Value> {
    let s = c.span;
    let name = c.name.trim_end_matches("_axis");
    if name.len() != c.name.len() {
        c.want(3)?;
    }
    let x = c.atom(t, 0)?;
    let (axes, keepdims) = t.axis_args(&x, &c.args[1..], c.name, s)?;
    traced(core::var(
        &mut t.at(s),
        x,
        axes,
        keepdims,
        0,
        name == "std",
    )?)
}

/// `jnp::logsumexp_axis(x, axis, keepdims)`: `jnp::logsumexp` with its axis.
pub(crate) fn logsumexp_axis(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    math::logsumexp(t, c)
}

/// `use nn as _;` for each of `nn`, `special`, `norm`, `stats`, `scipy` that
/// starts a path in the body: the body is traced, not compiled, so without
/// it rustc would call the user's `use jax::nn;` unused (and a missing one
/// is reported at the user's token, as it would be eagerly).
pub(crate) fn module_uses(block: &syn::Block) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    fn scan(ts: proc_macro2::TokenStream, found: &mut Vec<proc_macro2::Ident>) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        let colon =
            |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
        for (i, t) in toks.iter().enumerate() {
            match t {
                TokenTree::Group(g) => scan(g.stream(), found),
                TokenTree::Ident(id) => {
                    let name = id.to_string();
                    let ours =
                        matches!(name.as_str(), "nn" | "special" | "norm" | "stats" | "scipy");
                    let starts_path = colon(toks.get(i + 1)) && !(i > 0 && colon(toks.get(i - 1)));
                    if ours && starts_path && !found.iter().any(|f| *f == name) {
                        found.push(id.clone());
                    }
                }
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    scan(quote::quote!(#block), &mut found);
    quote::quote!(#(#[allow(unused_imports)] use #found as _;)*)
}

/// `jnp::nansum`, `nanmax`, `nanmin` (and `_axis`): JAX's `_nan_reduction`.
pub(crate) fn nan_reduce(t: &mut Tracer, c: Call) -> Result<Value> {
    let s = c.span;
    let name = c.name.trim_end_matches("_axis");
    if name.len() != c.name.len() {
        c.want(3)?;
    }
    let x = c.atom(t, 0)?;
    let (axes, keepdims) = t.axis_args(&x, &c.args[1..], c.name, s)?;
    let kind = match name {
        "nansum" => Reduction::Sum,
        "nanmax" => Reduction::Max,
        _ => Reduction::Min,
    };
    traced(core::nan_reduce(&mut t.at(s), kind, x, axes, keepdims)?)
}

/// `argmax(x[, axis])` and `argmin` (over the flattened array by default),
/// `jnp::argmax_axis(x, axis, keepdims)`, `argmin_axis`, and `nanargmax`,
/// `nanargmin` with their `_axis` forms.
pub(crate) fn arg_axis(t: &mut Tracer, mut c: Call) -> Result<Value> {
    let base = c.name.trim_end_matches("_axis");
    let keepdims = if base.len() != c.name.len() {
        c.want(3)?;
        let (v, at) = c.args.pop().unwrap();
        match v {
            Value::Static(Scalar::Bool(k)) => k,
            _ => return call_err(at, "keepdims must be `true` or `false`"),
        }
    } else if c.args.is_empty() || c.args.len() > 2 {
        return call_err(
            c.span,
            format!("`{}` takes the array and optionally an axis", c.name),
        );
    } else {
        false
    };
    let x = c.atom(t, 0)?;
    let axis = match c.args.get(1) {
        Some((v, at)) => Some(jnp::axis(&t.b, &x, t.static_int(v, *at, "the axis")?, *at)?),
        None => None,
    };
    let (max, nan) = (base.ends_with("max"), base.starts_with("nan"));
    traced(core::arg_reduce(
        &mut t.at(c.span),
        x,
        axis,
        keepdims,
        max,
        nan,
    )?)
}

/// `lax::reduce_sum(x, &[axes])` and `reduce_prod`, `reduce_max`,
/// `reduce_min`: no promotion, as lax.
pub(crate) fn lax_reduce(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let (v, at) = &c.args[1];
    let items: Vec<Value> = match v {
        Value::List(items) | Value::Tuple(items) => items.clone(),
        other => vec![other.clone()],
    };
    let mut axes = Vec::new();
    for i in &items {
        let k = t.static_int(i, *at, "the axes")?;
        axes.push(jnp::axis(&t.b, &x, k, *at)?);
    }
    let prim: Prim = match c.name {
        "reduce_sum" => &prims::REDUCE_SUM,
        "reduce_prod" => &prims::REDUCE_PROD,
        "reduce_max" => &prims::REDUCE_MAX,
        _ => &prims::REDUCE_MIN,
    };
    traced(t.at(s).reduce(prim, x, axes)?)
}

/// `lax::convert_element_type::<U>(x)` (or `::<U, _>` with the result type
/// written): the element type from the turbofish or the result's type.
pub(crate) fn lax_convert(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let Some(dtype) = c.hint.as_ref().and_then(|h| h.aval()).map(|a| a.dtype) else {
        return call_err(
            c.span,
            "write the target element type: `lax::convert_element_type::<f32>(x)`",
        );
    };
    traced(t.at(c.span).convert_element_type(x, dtype, false)?)
}

/// `jnp::tensordot(a, b, axes)`: `axes` a static integer.
pub(crate) fn tensordot(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let (a, b) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let (av, asp) = &c.args[2];
    let axes = t.static_int(av, *asp, "axes")?;
    let Ok(axes) = usize::try_from(axes) else {
        return call_err(
            *asp,
            format!("tensordot axes must be non-negative, got {axes}"),
        );
    };
    traced(core::tensordot(&mut t.at(c.span), a, b, axes)?)
}
