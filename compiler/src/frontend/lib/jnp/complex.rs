//! `jnp::real`, `imag`, `conj`, `conjugate`, `angle`, `lax::complex` and
//! `lax::real` / `imag` / `conj` in jitted code, as JAX's `jnp` lowers
//! them: a complex operand gives the `real`, `imag` and `conj` primitives
//! (`angle` is `atan2(imag, real)`); a real one gives the operand itself
//! (`real`, `conj`), zeros of its type (`imag`, `full_like(x, 0)`) or
//! `atan2(0, x)` (`angle`).

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Scalar};
use crate::prims;

fn is_complex(t: &Tracer, x: &Atom) -> bool {
    t.b.aval(x).dtype.kind() == jax_dtypes::Kind::Complex
}

/// `jnp::real(x)`: the `real` primitive of a complex array, `x` itself
/// of a real one.
pub(crate) fn real(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    if !is_complex(t, &x) {
        return Ok(Value::Traced(x));
    }
    Ok(Value::Traced(jnp::unary(
        &mut t.b,
        &prims::REAL,
        x,
        c.span,
    )?))
}

/// `jnp::conj(x)`, `jnp::conjugate(x)`: `conj` of a complex array, `x`
/// itself of a real one.
pub(crate) fn conj(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    if !is_complex(t, &x) {
        return Ok(Value::Traced(x));
    }
    Ok(Value::Traced(jnp::unary(
        &mut t.b,
        &prims::CONJ,
        x,
        c.span,
    )?))
}

/// `lax::real`, `lax::imag`, `lax::conj`: the primitive itself (its
/// abstract evaluation reports a real operand to `real` / `imag`).
pub(crate) fn lax_part(t: &mut Tracer, c: Call, prim: crate::prims::Prim) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    Ok(Value::Traced(jnp::unary(&mut t.b, prim, x, c.span)?))
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

/// `jnp::imag(x)`: the `imag` primitive of a complex array, zeros of a
/// real one's type.
pub(crate) fn imag(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    if is_complex(t, &x) {
        return Ok(Value::Traced(jnp::unary(
            &mut t.b,
            &prims::IMAG,
            x,
            c.span,
        )?));
    }
    Ok(Value::Traced(zeros_like(t, &x, c.span)?))
}

/// `jnp::angle(x)`: `atan2(imag(x), real(x))` of a complex array,
/// `atan2(0, x)` (0 or pi) of a float one.
pub(crate) fn angle(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    if is_complex(t, &x) {
        let re = jnp::unary(&mut t.b, &prims::REAL, x.clone(), c.span)?;
        let im = jnp::unary(&mut t.b, &prims::IMAG, x, c.span)?;
        return Ok(Value::Traced(jnp::binary(
            &mut t.b,
            &prims::ATAN2,
            im,
            re,
            c.span,
        )?));
    }
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

/// `lax::complex(re, im)`: float32 parts give complex64, float64 parts
/// complex128 (a Rust literal takes the other part's type).
pub(crate) fn complex(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (re, im) = (c.atom(t, 0)?, c.atom(t, 1)?);
    Ok(Value::Traced(jnp::binary(
        &mut t.b,
        &prims::COMPLEX,
        re,
        im,
        c.span,
    )?))
}

/// `Complex::new(re, im)` of numbers known at compile time: a weakly typed
/// complex scalar, as a Python complex literal (`2 * x` with `x` complex64
/// stays complex64).
pub(crate) fn complex_literal(
    t: &mut Tracer,
    p: &syn::ExprPath,
    c: &syn::ExprCall,
) -> Result<Option<Value>> {
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    if !segs.ends_with(&["Complex".to_string(), "new".to_string()]) {
        return Ok(None);
    }
    let span = syn::spanned::Spanned::span(c);
    if c.args.len() != 2 {
        return call_err(
            span,
            "Complex::new takes two parts: `Complex::new(1.0, 2.0)`",
        );
    }
    let mut parts = [0.0; 2];
    for (k, a) in c.args.iter().enumerate() {
        parts[k] = match t.expr(a)? {
            Value::Static(Scalar::Float(f)) => f,
            Value::Static(Scalar::Int(i)) => i as f64,
            _ => {
                return call_err(
                    syn::spanned::Spanned::span(a),
                    "Complex::new takes numbers known at compile time in #[jax::jit]; build complex arrays from traced parts with `lax::complex(re, im)`",
                )
            }
        };
    }
    Ok(Some(Value::Static(Scalar::Complex(parts[0], parts[1]))))
}
