//! Sorting and cumulative operations by name (rows of `lib/lower.rs`): `sort`,
//! `argsort`, `lax::sort_key_val`, `cumsum`/`cumprod`/`cummax`/`cummin`,
//! written as JAX's `jnp`/`lax` functions write them in primitives.

use jax_dtypes::{default_dtype, Kind};

use crate::frontend::lib::call::{call_err, Call, Module};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::Atom;
use jax_core::lax::Lax;
use jax_core::sorting as core;

/// The axis argument `i` of a call, normalized for `x`.
fn axis_arg(t: &Tracer, c: &Call, x: &Atom, i: usize) -> Result<usize> {
    let (v, s) = &c.args[i];
    let ax = t.static_int(v, *s, "the axis")?;
    jnp::axis(&t.b, x, ax, *s)
}

/// `sort[dimension is_stable=True num_keys]` of `operands`.
fn bind_sort(
    t: &mut Tracer,
    operands: Vec<Atom>,
    dimension: usize,
    num_keys: usize,
    span: proc_macro2::Span,
) -> Result<Vec<Atom>> {
    t.at(span).sort(operands, dimension, true, num_keys)
}

fn array_of_rank_1_or_more(t: &Tracer, c: &Call, x: &Atom) -> Result<()> {
    if t.b.aval(x).rank() == 0 {
        return call_err(
            c.span,
            format!(
                "`{}` needs an array of rank 1 or more, not a scalar",
                c.name
            ),
        );
    }
    Ok(())
}

/// `jnp::sort(x, axis)`, `lax::sort(x, dimension)`: one operand, stable.
pub(crate) fn sort(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    let mut out = bind_sort(t, vec![x], axis, 1, c.span)?;
    Ok(Value::Traced(out.remove(0)))
}

/// `jnp::argsort(x, axis)`: an int iota sorted along with `x`
/// (`num_keys=1`, stable), as `jnp.argsort` does.
pub(crate) fn argsort(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    let like = t.b.aval(&x);
    let dtype = default_dtype(Kind::Int, t.b.x64);
    let index = t.at(c.span).iota(dtype, like.shape.clone(), axis)?;
    let mut out = bind_sort(t, vec![x, index], axis, 1, c.span)?;
    Ok(Value::Traced(out.remove(1)))
}

/// `lax::sort_key_val(keys, values, dimension)`: `values` sorted by `keys`.
pub(crate) fn sort_key_val(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let k = c.atom(t, 0)?;
    let v = c.atom(t, 1)?;
    array_of_rank_1_or_more(t, &c, &k)?;
    let axis = axis_arg(t, &c, &k, 2)?;
    let out = bind_sort(t, vec![k, v], axis, 1, c.span)?;
    Ok(Value::Tuple(out.into_iter().map(Value::Traced).collect()))
}

/// `jnp::cumsum(x, axis)` and its kin: the arguments read, then the one
/// text (`jax_core::sorting::cumulative`).
pub(crate) fn cumulative(t: &mut Tracer, c: Call) -> Result<Value> {
    let (name, span) = (c.name, c.span);
    if c.args.len() != 2 {
        let how = if c.module == Module::Method {
            format!("x.{name}(axis)")
        } else {
            format!("{}{name}(x, axis)", c.module.prefix())
        };
        return call_err(
            span,
            format!("`{name}` takes the array and an axis: `{how}`"),
        );
    }
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    Ok(Value::Traced(core::cumulative(
        &mut t.at(span),
        name,
        x,
        axis,
    )?))
}

/// `lax::top_k(x, k)`: the `k` largest along the last axis and their int32
/// indices.
pub(crate) fn top_k(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let (kv, ks) = &c.args[1];
    let k = t.static_int(kv, *ks, "k")?;
    if k < 0 {
        return call_err(
            *ks,
            format!("k argument to top_k must be nonnegative, got {k}"),
        );
    }
    let axis = t.b.aval(&x).rank() - 1;
    let outs = t.at(c.span).top_k(x, k as usize, axis)?;
    Ok(Value::Tuple(outs.into_iter().map(Value::Traced).collect()))
}

/// `jnp::diff(x, n, axis)`.
pub(crate) fn diff(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let (nv, ns) = &c.args[1];
    let n = t.static_int(nv, *ns, "n")?;
    if n < 0 {
        return call_err(*ns, format!("order must be non-negative but got {n}"));
    }
    let axis = axis_arg(t, &c, &x, 2)?;
    Ok(Value::Traced(core::diff(
        &mut t.at(c.span),
        x,
        n as usize,
        axis,
    )?))
}

/// `jnp::searchsorted(a, v, side)`.
pub(crate) fn searchsorted(t: &mut Tracer, c: Call) -> Result<Value> {
    let right = match c.args.len() {
        3 => match &c.args[2].0 {
            Value::Str(s) if s == "left" => false,
            Value::Str(s) if s == "right" => true,
            _ => {
                return call_err(
                    c.args[2].1,
                    "side must be \"left\" or \"right\"",
                )
            }
        },
        _ => {
            return call_err(
                c.span,
                "`searchsorted` takes the sorted array, the values and the side: `jnp::searchsorted(a, v, \"left\")` (or \"right\")",
            )
        }
    };
    let a = c.atom(t, 0)?;
    let v = c.atom(t, 1)?;
    Ok(Value::Traced(core::searchsorted(
        &mut t.at(c.span),
        a,
        v,
        right,
    )?))
}

/// `jnp::median`, `quantile`, `percentile` and their `_axis` forms.
pub(crate) fn quantile(t: &mut Tracer, c: Call) -> Result<Value> {
    let span = c.span;
    let name = c.name;
    let base = name.trim_end_matches("_axis");
    let takes_q = base != "median";
    let first_opt = if takes_q { 2 } else { 1 };
    let n_args = c.args.len();
    let by_axis = name.ends_with("_axis");
    let ok = if by_axis {
        n_args == first_opt + 2
    } else {
        n_args == first_opt || n_args == first_opt + 2
    };
    if !ok {
        let q = if takes_q { ", q" } else { "" };
        return call_err(
            span,
            format!(
                "`{name}` takes the array{q}{}",
                if by_axis {
                    ", an axis and keepdims"
                } else {
                    ", and optionally an axis and keepdims"
                }
            ),
        );
    }
    let x = c.atom(t, 0)?;
    let which = if takes_q {
        let (qv, qs) = &c.args[1];
        let q = match qv {
            Value::Static(crate::ir::Scalar::Float(f)) => *f,
            Value::Static(crate::ir::Scalar::Int(i)) => *i as f64,
            _ => {
                return call_err(
                    *qs,
                    "q must be a number known when the function compiles (a literal or const)",
                )
            }
        };
        if base == "percentile" {
            core::Quantile::Percentile(q)
        } else {
            core::Quantile::Quantile(q)
        }
    } else {
        core::Quantile::Median
    };
    let (axis, keepdims) = if n_args == first_opt {
        (None, false)
    } else {
        let axis = axis_arg(t, &c, &x, first_opt)?;
        let (kv, ks) = &c.args[first_opt + 1];
        let keep = match kv {
            Value::Static(crate::ir::Scalar::Bool(b)) => *b,
            _ => return call_err(*ks, "keepdims must be a bool literal"),
        };
        (Some(axis), keep)
    };
    Ok(Value::Traced(core::quantile(
        &mut t.at(span),
        x,
        which,
        axis,
        keepdims,
    )?))
}
