//! `jnp::real`, `imag`, `conj`, `conjugate`, `angle` and `lax::complex` in
//! jitted code. Complex arrays do not reach a jitted body yet (a complex
//! element type is a compile error at the signature or the `astype`), so
//! these see real operands and lower as JAX does for them: `real` and
//! `conj` give the operand itself, `imag` zeros of its type
//! (`full_like(x, 0)`), `angle` `atan2(0, x)`.

use crate::frontend::jnp;
use crate::frontend::lower_call::{call_err, Call};
use crate::frontend::tracer::Tracer;
use crate::frontend::types::COMPLEX_NOT_IN_JIT;
use crate::frontend::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Scalar};
use crate::prims;

/// `jnp::real(x)`, `jnp::conj(x)`, `jnp::conjugate(x)` of a real array: `x`.
pub(crate) fn real_or_conj(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    Ok(Value::Traced(c.atom(t, 0)?))
}

/// Zeros of `x`'s shape and dtype, as `lax.full_like(x, 0)`.
fn zeros_like(t: &mut Tracer, x: &Atom, span: proc_macro2::Span) -> Result<Atom> {
    let a = t.b.aval(x);
    let zero = crate::ir::builder::literal(
        crate::ir::cast_scalar(Scalar::Int(0), a.dtype),
        crate::ir::Aval::scalar(a.dtype, false),
    );
    jnp::broadcast_to(&mut t.b, zero, a.shape, span)
}

/// `jnp::imag(x)` of a real array: zeros of its type.
pub(crate) fn imag(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    Ok(Value::Traced(zeros_like(t, &x, c.span)?))
}

/// `jnp::angle(x)` of a float array: `atan2(0, x)` (0 or pi).
pub(crate) fn angle(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    if !t.b.aval(&x).dtype.is_float() {
        return call_err(
            c.span,
            "jnp::angle takes a float or complex array; convert integers first: `jnp::angle(x.astype::<f32>())`",
        );
    }
    let zeros = zeros_like(t, &x, c.span)?;
    Ok(Value::Traced(jnp::binary(
        &mut t.b,
        &prims::ATAN2,
        zeros,
        x,
        c.span,
    )?))
}

/// `lax::complex(re, im)`: its result is complex, which jitted code does not have yet.
pub(crate) fn complex(_t: &mut Tracer, c: Call) -> Result<Value> {
    call_err(c.span, COMPLEX_NOT_IN_JIT)
}
