//! Handlers of the table in `lib/lower.rs` for numeric operations that are no
//! plain family member: rounding, division, powers, selections,
//! compositions (softmax, logsumexp, matmul) and reductions with
//! their own rules (mean, argmax).

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::Scalar;
use crate::prims;
use jax_core::lax::Lax;

/// `lax::round(x[, method])`: half away from zero unless a
/// `lax::RoundingMethod` says otherwise.
pub(crate) fn lax_round(t: &mut Tracer, c: Call) -> Result<Value> {
    let method = match c.args.get(1) {
        None => 0,
        Some((Value::Static(Scalar::Int(m @ (0 | 1))), _)) => *m as u8,
        Some((_, s)) => {
            return call_err(*s, "the rounding method is `lax::RoundingMethod::AwayFromZero` or `lax::RoundingMethod::ToNearestEven`")
        }
    };
    let x = c.atom(t, 0)?;
    Ok(Value::Traced(t.at(c.span).round(x, method)?))
}

/// `jnp::round(x)`: half to even; integers are unchanged.
pub(crate) fn numpy_round(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    if t.b.aval(&x).dtype.is_integer() {
        return Ok(Value::Traced(x));
    }
    Ok(Value::Traced(t.at(c.span).round(x, 1)?))
}

/// `lax::div(x, y)`: the operands' own type (integer division for integers).
pub(crate) fn lax_divide(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    Ok(Value::Traced(jnp::binary(
        &mut t.b,
        &prims::DIV,
        x,
        y,
        c.span,
    )?))
}

/// `jnp::divide(x, y)`: true division, integers converted to floats first.
pub(crate) fn true_divide(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let x = jnp::to_float(&mut t.b, x, c.span)?;
    let y = jnp::to_float(&mut t.b, y, c.span)?;
    Ok(Value::Traced(jnp::binary(
        &mut t.b,
        &prims::DIV,
        x,
        y,
        c.span,
    )?))
}

/// `1 / x` as JAX writes it: `integer_pow(x, -1)` of a float.
pub(crate) fn reciprocal(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, c.span)?;
    Ok(Value::Traced(t.at(c.span).integer_pow(x, -1)?))
}

pub(crate) fn power(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    Ok(Value::Traced(jnp::power(&mut t.b, x, y, c.span)?))
}

/// `lax::integer_pow(x, n)`, `n` known when the function compiles.
pub(crate) fn integer_pow(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let y = t.static_int(&c.args[1].0, c.args[1].1, "the exponent")?;
    Ok(Value::Traced(t.at(c.span).integer_pow(x, y as i64)?))
}

/// JAX's `isnan` is `x != x`, which is false for every integer.
pub(crate) fn isnan(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    Ok(Value::Traced(jnp::binary(
        &mut t.b,
        &prims::NE,
        x.clone(),
        x,
        c.span,
    )?))
}

pub(crate) fn where_(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let (cond, x, y) = (c.atom(t, 0)?, c.atom(t, 1)?, c.atom(t, 2)?);
    Ok(Value::Traced(jnp::where_(&mut t.b, cond, x, y, c.span)?))
}

/// `jnp::select([c0, c1, ..], [x0, x1, ..], default)`: JAX's `jnp.select`,
/// the choice of the first true condition (`jax_core::numeric::select`).
pub(crate) fn select(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let mut lists = Vec::new();
    for (k, what) in [(0, "conditions"), (1, "choices")] {
        let (arg, span) = &c.args[k];
        let (Value::Tuple(items) | Value::List(items)) = arg else {
            return call_err(
                *span,
                format!("`jnp::select` takes its {what} as an array or a tuple: `jnp::select([c0, c1], [x0, x1], default)`; one condition choosing between two values is `jnp::where_(c, x, y)`"),
            );
        };
        let atoms = items
            .iter()
            .map(|v| t.atom(v.clone(), *span))
            .collect::<Result<Vec<_>>>()?;
        lists.push(atoms);
    }
    let default = c.atom(t, 2)?;
    let choices = lists.pop().expect("two lists");
    let conds = lists.pop().expect("two lists");
    let r = jax_core::numeric::select(&mut t.at(c.span), conds, choices, default)?;
    Ok(Value::Traced(r))
}

pub(crate) fn clip(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let (x, lo, hi) = (c.atom(t, 0)?, c.atom(t, 1)?, c.atom(t, 2)?);
    Ok(Value::Traced(jnp::clip(&mut t.b, x, lo, hi, c.span)?))
}

pub(crate) fn matmul(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    Ok(Value::Traced(jnp::matmul(&mut t.b, x, y, c.span)?))
}

/// `softmax(x[, axis])` and `log_softmax`, over the last axis by default.
pub(crate) fn softmax(t: &mut Tracer, c: Call) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let axis = match c.args.len() {
        1 => -1,
        2 => t.static_int(&c.args[1].0, c.args[1].1, "the axis")?,
        _ => {
            return call_err(
                c.span,
                format!("`{}` takes the array and optionally an axis", c.name),
            )
        }
    };
    let axis = jnp::axis(&t.b, &x, axis, c.span)?;
    Ok(Value::Traced(jnp::softmax(
        &mut t.b,
        x,
        axis,
        c.name == "log_softmax",
        c.span,
    )?))
}

pub(crate) fn mean(t: &mut Tracer, c: Call) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let (axes, keepdims) = t.axis_args(&x, &c.args[1..], c.name, c.span)?;
    Ok(Value::Traced(jnp::mean(
        &mut t.b, x, axes, keepdims, c.span,
    )?))
}

pub(crate) fn logsumexp(t: &mut Tracer, c: Call) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let (axes, keepdims) = t.axis_args(&x, &c.args[1..], c.name, c.span)?;
    Ok(Value::Traced(jnp::logsumexp(
        &mut t.b, x, axes, keepdims, c.span,
    )?))
}

/// `sum_axis(x, axis, keepdims)` and the like: the reduction without
/// `_axis`, its axis arguments required.
pub(crate) fn by_axis(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let name = c.name.trim_end_matches("_axis");
    t.op(c.module, name, c.args, c.hint, c.span)
}
