//! `jnp::linalg::eigh`, `eigvalsh`, `svd`, `svdvals` and `norm` in
//! `#[jax::jit]`, composed of the `eigh` and `svd` primitives
//! (`prims/linalg/`) as `jax.numpy.linalg` composes them: `eigh`
//! symmetrizes its operand, `(a + aᵀ) / 2`, then returns `(w, v)`; `svd`
//! returns `(u, s, vh)` with full matrices. JAX wraps each in a named
//! `jit`, which jaxprs here do not print: the equations inside are the same.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::rules::Ctx;
use crate::ir::{Atom, Scalar};
use crate::prims::linalg::matrix::is_complex;
use crate::prims::{self};
use jax_core::lax::Lax;

fn err_at<T>(span: Span, e: String) -> Result<T> {
    call_err(span, e)
}

/// The one operand, promoted to its inexact type (`promote_dtypes_inexact`).
fn matrix_arg(t: &mut Tracer, c: &Call) -> Result<Atom> {
    c.want(1)?;
    let a = c.atom(t, 0)?;
    let a = jnp::to_float(&mut t.b, a, c.span)?;
    if t.b.aval(&a).rank() < 2 {
        return call_err(
            c.span,
            format!(
                "`jnp::linalg::{}` takes a matrix or a batch of them ([.., M, N]), got {}",
                c.name,
                t.b.aval(&a)
            ),
        );
    }
    Ok(a)
}

/// `lax.linalg.eigh(a, lower=True, symmetrize_input=True)`: `(v, w)`.
fn eigh_parts(t: &mut Tracer, c: &Call) -> Result<(Atom, Atom)> {
    eigh_parts_with(t, c, true, true)
}

/// `lax.linalg.eigh(a, lower, symmetrize_input)`: `(v, w)`.
fn eigh_parts_with(
    t: &mut Tracer,
    c: &Call,
    lower: bool,
    symmetrize: bool,
) -> Result<(Atom, Atom)> {
    let a = matrix_arg(t, c)?;
    let span = c.span;
    let shape = t.b.aval(&a).shape;
    let r = shape.len();
    // Checked before symmetrizing, whose `add` would report a broadcast
    // (JAX's own message); the square-matrix requirement is clearer.
    if shape[r - 2] != shape[r - 1] {
        return call_err(
            span,
            format!(
                "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape ({}, {}): `jnp::linalg::{}` needs a square matrix",
                shape[r - 2],
                shape[r - 1],
                c.name
            ),
        );
    }
    let sym = if symmetrize {
        let mut perm: Vec<usize> = (0..r).collect();
        perm.swap(r - 2, r - 1);
        let at = jnp::transpose(&mut t.b, a.clone(), perm, span)?;
        // `(a + aᴴ) / 2`: conjugated when complex, as JAX's `symmetrize`.
        let at = if is_complex(t.b.aval(&at).dtype) {
            jnp::unary(&mut t.b, &prims::CONJ, at, span)?
        } else {
            at
        };
        let sum = jnp::binary(&mut t.b, &prims::ADD, a, at, span)?;
        let two = jnp::weak_literal(&t.b, Scalar::Float(2.0));
        jnp::binary(&mut t.b, &prims::DIV, sum, two, span)?
    } else {
        a
    };
    let mut cx = Ctx::new(&mut t.b, span);
    prims::linalg::eigh::bind_eigh(&mut cx, sym, lower).or_else(|e| err_at(span, e))
}

/// `jnp::linalg::eigh_with(a, EighOptions { uplo, symmetrize_input })`
/// (options read by `linalg/more.rs` `call_with_options`): `(w, v)`.
pub(crate) fn eigh_with(t: &mut Tracer, c: Call, lower: bool, symmetrize: bool) -> Result<Value> {
    let (v, w) = eigh_parts_with(t, &c, lower, symmetrize)?;
    Ok(Value::Tuple(vec![Value::Traced(w), Value::Traced(v)]))
}

/// `jnp::linalg::eigh(a)`: `(w, v)`, eigenvalues first as `EighResult`.
pub(crate) fn eigh(t: &mut Tracer, c: Call) -> Result<Value> {
    let (v, w) = eigh_parts(t, &c)?;
    Ok(Value::Tuple(vec![Value::Traced(w), Value::Traced(v)]))
}

/// `jnp::linalg::eigvalsh(a)`: the eigenvalues, ascending.
pub(crate) fn eigvalsh(t: &mut Tracer, c: Call) -> Result<Value> {
    let (_, w) = eigh_parts(t, &c)?;
    Ok(Value::Traced(w))
}

/// `jnp::linalg::svd(a)`: `(u, s, vh)` with full matrices.
pub(crate) fn svd(t: &mut Tracer, c: Call) -> Result<Value> {
    let a = matrix_arg(t, &c)?;
    let outs = t.at(c.span).svd(a, true, true)?;
    Ok(Value::Tuple(vec![
        Value::Traced(outs[1].clone()),
        Value::Traced(outs[0].clone()),
        Value::Traced(outs[2].clone()),
    ]))
}

/// `jnp::linalg::svdvals(a)`: the singular values, descending.
pub(crate) fn svdvals(t: &mut Tracer, c: Call) -> Result<Value> {
    let a = matrix_arg(t, &c)?;
    let outs = t.at(c.span).svd(a, true, false)?;
    Ok(Value::Traced(outs[0].clone()))
}
