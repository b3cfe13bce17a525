//! Handlers of the table in `lib/lower.rs` for operations on shapes:
//! transposes, reshapes, broadcasts, added and removed unit axes, and
//! concatenation. New shapes are static: arguments known when the function
//! compiles, or the written type of the result.

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::Dim;
use jax_core::lax::Lax;

/// `x.t()`: the axes reversed.
pub(crate) fn reverse_axes(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let rank = t.b.aval(&x).rank();
    Ok(Value::Traced(jnp::transpose(
        &mut t.b,
        x,
        (0..rank).rev().collect(),
        c.span,
    )?))
}

/// `transpose(x[, permutation])`: the axes reversed by default.
pub(crate) fn transpose(t: &mut Tracer, c: Call) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let rank = t.b.aval(&x).rank();
    let perm = match c.args.len() {
        1 => (0..rank).rev().collect(),
        2 => t
            .static_ints(&c.args[1].0, c.args[1].1, "the permutation")?
            .into_iter()
            .map(|a| jnp::axis(&t.b, &x, a, c.args[1].1))
            .collect::<Result<_>>()?,
        _ => {
            return call_err(
                c.span,
                "`transpose` takes the array and optionally a permutation",
            )
        }
    };
    Ok(Value::Traced(jnp::transpose(&mut t.b, x, perm, c.span)?))
}

/// `reshape(x[, shape])`: the shape of the written result type by default.
pub(crate) fn reshape(t: &mut Tracer, c: Call) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let shape = match c.args.len() {
        1 => c.hinted_shape()?,
        2 => t
            .static_ints(&c.args[1].0, c.args[1].1, "the new shape")?
            .into_iter()
            .map(|d| Dim::Lit(d as usize))
            .collect(),
        _ => {
            return call_err(
                c.span,
                "`reshape` takes the array and optionally the new shape",
            )
        }
    };
    Ok(Value::Traced(jnp::reshape(&mut t.b, x, shape, c.span)?))
}

/// `ravel(x)`, `flatten(x)`: one axis.
pub(crate) fn ravel(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let a = t.b.aval(&x);
    let size = crate::ir::shapes::size_parts(&a.shape);
    let dim = if size.1.is_empty() {
        Dim::Lit(size.0)
    } else {
        return call_err(c.span, "ravel of an array with symbolic dimensions is not supported; use reshape with an annotated type");
    };
    Ok(Value::Traced(jnp::reshape(&mut t.b, x, vec![dim], c.span)?))
}

/// `broadcast_to(x)`: to the shape of the written result type.
pub(crate) fn broadcast_to(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let shape = c.hinted_shape()?;
    Ok(Value::Traced(jnp::broadcast_to(
        &mut t.b, x, shape, c.span,
    )?))
}

pub(crate) fn expand_dims(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let mut x = c.atom(t, 0)?;
    // One axis (`jnp::`), or the result's new axes (`lax::`, `&[0, 2]`).
    let mut axes = t.static_ints(&c.args[1].0, c.args[1].1, "the axis")?;
    axes.sort();
    for ax in axes {
        x = jnp::expand_dims(&mut t.b, x, ax, c.args[1].1)?;
    }
    Ok(Value::Traced(x))
}

/// `squeeze(x[, axis])`: every unit axis by default.
pub(crate) fn squeeze(t: &mut Tracer, c: Call) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let a = t.b.aval(&x);
    let dims: Vec<usize> = match c.args.len() {
        1 => (0..a.rank())
            .filter(|&k| a.shape[k] == Dim::Lit(1))
            .collect(),
        // One axis, or several (`lax::squeeze(x, &[0])`).
        2 => t
            .static_ints(&c.args[1].0, c.args[1].1, "the axis")?
            .into_iter()
            .map(|ax| jnp::axis(&t.b, &x, ax, c.args[1].1))
            .collect::<Result<_>>()?,
        _ => return call_err(c.span, "`squeeze` takes the array and optionally an axis"),
    };
    Ok(Value::Traced(t.at(c.span).squeeze(x, dims)?))
}

/// `concatenate((a, b, ..)[, axis])` and `stack`: along axis 0 by default.
/// The arrays are a tuple, a Rust array (`[a, b]`) or a list such as
/// `tree::leaves(..)` returns.
pub(crate) fn concatenate(t: &mut Tracer, c: Call) -> Result<Value> {
    let name = c.name;
    let parts = match c.args.first().map(|a| &a.0) {
        Some(Value::Tuple(items) | Value::List(items)) => items.clone(),
        _ => {
            return call_err(
                c.span,
                format!("`{name}` takes a tuple of arrays: `jnp::{name}((a, b), axis)`"),
            )
        }
    };
    let axis = match c.args.len() {
        1 => 0,
        2 => t.static_int(&c.args[1].0, c.args[1].1, "the axis")?,
        _ => {
            return call_err(
                c.span,
                format!("`{name}` takes a tuple of arrays and an axis"),
            )
        }
    };
    let atoms = parts
        .into_iter()
        .map(|v| t.atom(v, c.args[0].1))
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::Traced(jnp::concatenate(
        &mut t.b,
        atoms,
        axis,
        name == "stack",
        c.span,
    )?))
}
