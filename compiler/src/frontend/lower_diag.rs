//! `jnp::tril`, `triu`, `trace` and `diag` of a vector, lowered as
//! `jax.numpy` lowers them: a mask from two `iota`s, `select_n`, and
//! `reduce_sum` for `trace`; derivatives and `vmap` come from those
//! primitives. `diagonal` (and `diag` of a matrix), a `gather` in JAX, is
//! eager only for now.

use proc_macro2::Span;

use crate::frontend::jnp::{self, Reduction};
use crate::frontend::lower_call::{call_err, Call};
use crate::frontend::tracer::Tracer;
use crate::frontend::value::Value;
use crate::ir::builder::{literal, Result};
use crate::ir::{cast_scalar, Atom, Aval, Dim, Scalar};
use crate::prims::{self, Params};
use jax_dtypes::DType;

fn iota(t: &mut Tracer, shape: &[Dim], dimension: usize, span: Span) -> Result<Atom> {
    t.b.bind1(
        &prims::IOTA,
        Params::Iota {
            dtype: DType::I32,
            shape: shape.to_vec(),
            dimension,
        },
        vec![],
        span,
    )
}

fn add_int(t: &mut Tracer, x: Atom, k: i128, span: Span) -> Result<Atom> {
    let k = literal(Scalar::Int(k), Aval::scalar(DType::I32, false));
    t.b.bind1(&prims::ADD, Params::None, vec![x, k], span)
}

fn broadcast(t: &mut Tracer, x: Atom, shape: &[Dim], dims: Vec<usize>, span: Span) -> Result<Atom> {
    t.b.bind1(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: shape.to_vec(),
            dims,
            np_ints: 0,
        },
        vec![x],
        span,
    )
}

/// A zero of `dtype`, broadcast to `shape` (`jnp.zeros_like`).
fn zeros(t: &mut Tracer, dtype: DType, shape: &[Dim], span: Span) -> Result<Atom> {
    let z = literal(
        cast_scalar(Scalar::Int(0), dtype),
        Aval::scalar(dtype, false),
    );
    broadcast(t, z, shape, vec![], span)
}

/// The operand and the static integers after it, defaulted to `defaults`.
fn operand_and_ints(t: &mut Tracer, c: &Call, defaults: &[i128]) -> Result<(Atom, Vec<i128>)> {
    if c.args.is_empty() || c.args.len() > 1 + defaults.len() {
        return call_err(
            c.span,
            format!(
                "`{}` takes the array and up to {} static integers",
                c.name,
                defaults.len()
            ),
        );
    }
    let x = c.atom(t, 0)?;
    let mut ints = defaults.to_vec();
    for (i, (v, span)) in c.args.iter().enumerate().skip(1) {
        ints[i - 1] = t.static_int(v, *span, "the offset or axis")?;
    }
    Ok((x, ints))
}

/// `jnp.tril(x, k)` and `jnp.triu(x, k)`: JAX's `tri` mask
/// `iota0 + k >= iota1` (with `k - 1` for `triu`) over the last two axes,
/// broadcast over the others, then `select_n`.
pub(crate) fn tril_triu(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, ints) = operand_and_ints(t, &c, &[0])?;
    let span = c.span;
    let a = t.b.aval(&x);
    let r = a.rank();
    if r < 2 {
        return call_err(
            span,
            format!(
                "`{}` needs an array of at least 2 dimensions, not {a}",
                c.name
            ),
        );
    }
    let upper = c.name == "triu";
    let k = if upper { ints[0] - 1 } else { ints[0] };
    let last2 = &a.shape[r - 2..];
    let rows = iota(t, last2, 0, span)?;
    let rows = add_int(t, rows, k, span)?;
    let cols = iota(t, last2, 1, span)?;
    let mut mask =
        t.b.bind1(&prims::GE, Params::None, vec![rows, cols], span)?;
    if r > 2 {
        mask = broadcast(t, mask, &a.shape, vec![r - 2, r - 1], span)?;
    }
    let z = zeros(t, a.dtype, &a.shape, span)?;
    let cases = if upper {
        vec![mask, x, z]
    } else {
        vec![mask, z, x]
    };
    let out = t.b.bind1(&prims::SELECT_N, Params::None, cases, span)?;
    Ok(Value::Traced(out))
}

/// `jnp.trace(x, offset, axis1, axis2)`: the two axes moved last, the
/// mask `iota0 + offset == iota1`, `where`, and a sum over the last two.
pub(crate) fn trace(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, ints) = operand_and_ints(t, &c, &[0, 0, 1])?;
    let span = c.span;
    let r = t.b.aval(&x).rank();
    if r < 2 {
        return call_err(span, "`trace` needs an array of at least 2 dimensions");
    }
    let a1 = jnp::axis(&t.b, &x, ints[1], span)?;
    let a2 = jnp::axis(&t.b, &x, ints[2], span)?;
    if a1 == a2 {
        return call_err(span, "`trace`: axis1 and axis2 must differ");
    }
    let mut perm: Vec<usize> = (0..r).filter(|&k| k != a1 && k != a2).collect();
    perm.extend([a1, a2]);
    let x = if perm.iter().enumerate().all(|(i, &p)| i == p) {
        x
    } else {
        jnp::transpose(&mut t.b, x, perm, span)?
    };
    let a = t.b.aval(&x);
    let last2 = &a.shape[r - 2..];
    let rows = iota(t, last2, 0, span)?;
    let cols = iota(t, last2, 1, span)?;
    let rows = add_int(t, rows, ints[0], span)?;
    let mut mask =
        t.b.bind1(&prims::EQ, Params::None, vec![rows, cols], span)?;
    let z = zeros(t, a.dtype, &a.shape, span)?;
    if r > 2 {
        mask = broadcast(t, mask, &a.shape, vec![r - 2, r - 1], span)?;
    }
    let kept =
        t.b.bind1(&prims::SELECT_N, Params::None, vec![mask, z, x], span)?;
    let sum = jnp::reduce(
        &mut t.b,
        Reduction::Sum,
        kept,
        Some(vec![r - 2, r - 1]),
        false,
        span,
    )?;
    Ok(Value::Traced(sum))
}

/// `jnp.diag(v, k)` of a vector: `v` padded to the matrix's size, broadcast
/// along the rows and masked by `iota0 + k == iota1`.
pub(crate) fn diag(t: &mut Tracer, c: Call) -> Result<Value> {
    let (v, ints) = operand_and_ints(t, &c, &[0])?;
    let span = c.span;
    let a = t.b.aval(&v);
    let k = ints[0];
    let len = match a.shape.as_slice() {
        [Dim::Lit(n)] => *n as i128,
        [_, _] => return call_err(span, "`diag` of a matrix (its diagonal, a `gather` in JAX) is not supported in #[jax::jit] yet; it works eagerly"),
        _ => return call_err(span, format!("`diag` takes a vector or a matrix, not {a}")),
    };
    let n = len + k.abs();
    let dim = Dim::Lit(n as _);
    let zero = literal(
        cast_scalar(Scalar::Int(0), a.dtype),
        Aval::scalar(a.dtype, false),
    );
    let padded = t.b.bind1(
        &prims::PAD,
        Params::Pad {
            config: vec![((-k).max(0) as _, k.max(0) as _, 0)],
            np_ints: 0,
        },
        vec![v, zero],
        span,
    )?;
    let square = [dim.clone(), dim.clone()];
    let rows = iota(t, &square, 0, span)?;
    let cols = iota(t, &square, 1, span)?;
    let rows = add_int(t, rows, k, span)?;
    let mask =
        t.b.bind1(&prims::EQ, Params::None, vec![rows, cols], span)?;
    let column = broadcast(t, padded, &[dim.clone(), Dim::Lit(1)], vec![0], span)?;
    let full = broadcast(t, column, &square, vec![0, 1], span)?;
    let z = zeros(t, a.dtype, &square, span)?;
    let out =
        t.b.bind1(&prims::SELECT_N, Params::None, vec![mask, z, full], span)?;
    Ok(Value::Traced(out))
}

/// `jnp.diagonal`: a `gather` in JAX 0.10.2, not lowered yet.
pub(crate) fn diagonal(_t: &mut Tracer, c: Call) -> Result<Value> {
    call_err(
        c.span,
        "`jnp::diagonal` (a `gather` in JAX) is not supported in #[jax::jit] yet; it works eagerly, and `jnp::trace` works in jit",
    )
}
