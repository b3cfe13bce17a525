//! `jnp::linalg::qr`, `qr_with`, `eig`, `eigvals` (and
//! `jax::scipy::linalg::qr`) as `jax.numpy.linalg` composes them: one `qr`
//! equation (`full_matrices` from the mode, JAX's default "reduced"), or
//! one `eig` equation. JAX wraps `qr` and `eigvals` in a named `jit`; the
//! printed jaxpr inlines it (`runtime/guide/limitations.md`: "Printed jaxprs inline .. nested jit").

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::rules::Ctx;
use crate::prims::linalg::qr::{bind_qr, EIG};
use crate::prims::Params;

/// `jnp.linalg.qr`'s modes.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Reduced,
    Complete,
    R,
}

fn mode(c: &Call) -> Result<Mode> {
    let Some((v, span)) = c.args.get(1) else {
        return Ok(Mode::Reduced);
    };
    match v {
        Value::Str(s) if s == "reduced" => Ok(Mode::Reduced),
        Value::Str(s) if s == "complete" => Ok(Mode::Complete),
        Value::Str(s) if s == "r" => Ok(Mode::R),
        Value::Str(s) => call_err(
            *span,
            format!("Unsupported QR decomposition mode '{s}': write QrMode::Reduced, QrMode::Complete or QrMode::R (jnp::linalg::QrMode)"),
        ),
        _ => call_err(
            *span,
            "the mode must be `QrMode::Reduced`, `QrMode::Complete` or `QrMode::R` (jnp::linalg::QrMode), known when the function compiles",
        ),
    }
}

/// `jnp::linalg::qr(a)` and `qr_with(a, mode)`: `(q, r)`, or `r` alone
/// for `QrMode::R`.
pub(crate) fn qr(t: &mut Tracer, c: Call) -> Result<Value> {
    let with = c.name == "qr_with";
    c.want(if with { 2 } else { 1 })?;
    let mode = if with { mode(&c)? } else { Mode::Reduced };
    let x = c.atom(t, 0)?;
    let mut cx = Ctx::new(&mut t.b, c.span);
    let (q, r) = match bind_qr(&mut cx, x, mode == Mode::Complete) {
        Ok(qr) => qr,
        Err(e) => return call_err(c.span, e),
    };
    Ok(match mode {
        Mode::R => Value::Traced(r),
        _ => Value::Tuple(vec![Value::Traced(q), Value::Traced(r)]),
    })
}

/// `jax::scipy::linalg::qr(a)`: SciPy's default mode "full", `(q, r)`
/// with a square `q`.
pub(crate) fn scipy_qr(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let mut cx = Ctx::new(&mut t.b, c.span);
    match bind_qr(&mut cx, x, true) {
        Ok((q, r)) => Ok(Value::Tuple(vec![Value::Traced(q), Value::Traced(r)])),
        Err(e) => call_err(c.span, e),
    }
}

/// `jnp::linalg::eig(a)`: `(w, v)`; `eigvals(a)`: `w`, complex64 for a
/// float32 matrix and complex128 for float64 (integers convert first, as
/// `promote_dtypes_inexact`).
pub(crate) fn eig(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let x = crate::frontend::trace::jnp::to_float(&mut t.b, x, c.span)?;
    let right = c.name == "eig";
    let outs =
        t.b.bind(&EIG, Params::Eig { left: false, right }, vec![x], c.span)?;
    Ok(if right {
        Value::Tuple(outs.into_iter().map(Value::Traced).collect())
    } else {
        Value::Traced(outs[0].clone())
    })
}
