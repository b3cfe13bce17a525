//! `eye` and `linspace`, as JAX builds them from `iota`: written
//! `jnp::eye()` / `jnp::linspace(start, stop)` with the result type from
//! the context, or `Array::<f32, 3, 3>::eye()` /
//! `Array::<f32, 5>::linspace(start, stop)`.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{literal, Result};
use crate::ir::{cast_scalar, Atom, Aval, Dim, Scalar};
use crate::prims::{self};
use jax_core::lax::Lax;
use jax_dtypes::DType;

fn iota(
    t: &mut Tracer,
    dtype: DType,
    shape: Vec<Dim>,
    dimension: usize,
    span: Span,
) -> Result<Atom> {
    t.at(span).iota(dtype, shape, dimension)
}

fn scalar(v: f64, dtype: DType) -> Atom {
    literal(
        cast_scalar(Scalar::Float(v), dtype),
        Aval::scalar(dtype, false),
    )
}

/// JAX's `lax._eye`: `iota(0) + 0 == iota(1)`, converted to the dtype.
pub(crate) fn eye_of(t: &mut Tracer, aval: Aval, span: Span) -> Result<Atom> {
    if aval.rank() != 2 {
        return call_err(
            span,
            format!("`eye` makes a matrix; the result type here is {aval}"),
        );
    }
    let rows = iota(t, DType::I32, aval.shape.clone(), 0, span)?;
    let cols = iota(t, DType::I32, aval.shape.clone(), 1, span)?;
    let zero = literal(Scalar::Int(0), Aval::scalar(DType::I32, false));
    let rows = t.at(span).binary(&prims::ADD, rows, zero)?;
    let eq = t.at(span).binary(&prims::EQ, rows, cols)?;
    jnp::convert(&mut t.b, eq, aval.dtype, false, span)
}

/// `jnp::eye()`: the identity of the written result type.
pub(crate) fn eye(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(0)?;
    let Some(aval) = c.hint.as_ref().and_then(|h| h.aval()) else {
        return call_err(
            c.span,
            "`eye` takes its shape and dtype from the context: annotate it (`let i: Array<f32, 3, 3> = jnp::eye();`)",
        );
    };
    Ok(Value::Traced(eye_of(t, aval, c.span)?))
}

/// JAX's `jnp.linspace(start, stop, num)` (endpoint included):
/// `start * (1 - s) + stop * s` with `s = iota / (num - 1)`, then `stop`.
pub(crate) fn linspace_of(
    t: &mut Tracer,
    aval: Aval,
    start: Atom,
    stop: Atom,
    span: Span,
) -> Result<Atom> {
    let (dtype, n) = match aval.shape.as_slice() {
        [Dim::Lit(n)] if aval.dtype.is_float() => (aval.dtype, *n),
        _ => {
            return call_err(
                span,
                format!(
                "`linspace` makes a float vector of known length; the result type here is {aval}"
            ),
            )
        }
    };
    let start = jnp::convert(&mut t.b, start, dtype, false, span)?;
    let stop = jnp::convert(&mut t.b, stop, dtype, false, span)?;
    let reshape1 = |t: &mut Tracer, x: Atom| t.at(span).reshape(x, vec![Dim::Lit(1)]);
    if n <= 1 {
        return if n == 1 {
            reshape1(t, start)
        } else {
            call_err(span, "`linspace` of zero elements is not supported")
        };
    }
    let div = scalar((n - 1) as f64, dtype);
    // JAX computes the step and does not use it when the end is included.
    let delta = t
        .at(span)
        .binary(&prims::SUB, stop.clone(), start.clone())?;
    t.at(span).binary(&prims::DIV, delta, div.clone())?;
    let steps = iota(t, dtype, vec![Dim::Lit(n - 1)], 0, span)?;
    let s = t.at(span).binary(&prims::DIV, steps, div)?;
    let lo = reshape1(t, start)?;
    let one_minus = t
        .at(span)
        .binary(&prims::SUB, scalar(1.0, dtype), s.clone())?;
    let left = t.at(span).binary(&prims::MUL, lo, one_minus)?;
    let hi = reshape1(t, stop.clone())?;
    let right = t.at(span).binary(&prims::MUL, hi, s)?;
    let body = t.at(span).binary(&prims::ADD, left, right)?;
    let last = jnp::broadcast_to(&mut t.b, stop, vec![Dim::Lit(1)], span)?;
    t.at(span).concatenate(vec![body, last], 0)
}

/// `jnp::linspace(start, stop)`: the length and dtype of the written result type.
pub(crate) fn linspace(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let Some(aval) = c.hint.as_ref().and_then(|h| h.aval()) else {
        return call_err(
            c.span,
            "`linspace` takes its length and dtype from the context: annotate it (`let x: Array<f32, 5> = jnp::linspace(0.0, 1.0);`)",
        );
    };
    let (start, stop) = (c.atom(t, 0)?, c.atom(t, 1)?);
    Ok(Value::Traced(linspace_of(t, aval, start, stop, c.span)?))
}
