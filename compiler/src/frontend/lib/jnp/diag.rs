//! `jnp::tril`, `triu`, `trace`, `diag` and `diagonal`, lowered as
//! `jax.numpy` 0.10.2 lowers them: a mask from two `iota`s, `select_n`,
//! `reduce_sum` for `trace`, and a `gather` for `diagonal` (and `diag` of a
//! matrix); derivatives and `vmap` come from those primitives.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp::{self, Reduction};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{literal, Result};
use crate::ir::primitive::{GatherParams, IndexDims, IndexMode};
use crate::ir::{cast_scalar, Atom, Aval, Dim, Scalar};
use crate::prims::{self};
use jax_core::lax::Lax;
use jax_dtypes::DType;

fn iota(t: &mut Tracer, shape: &[Dim], dimension: usize, span: Span) -> Result<Atom> {
    t.at(span).iota(DType::I32, shape.to_vec(), dimension)
}

fn add_int(t: &mut Tracer, x: Atom, k: i128, span: Span) -> Result<Atom> {
    let k = literal(Scalar::Int(k), Aval::scalar(DType::I32, false));
    t.at(span).binary(&prims::ADD, x, k)
}

fn broadcast(t: &mut Tracer, x: Atom, shape: &[Dim], dims: Vec<usize>, span: Span) -> Result<Atom> {
    t.at(span).broadcast_in_dim(x, shape.to_vec(), dims)
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
    let mut mask = t.at(span).binary(&prims::GE, rows, cols)?;
    if r > 2 {
        mask = broadcast(t, mask, &a.shape, vec![r - 2, r - 1], span)?;
    }
    let z = zeros(t, a.dtype, &a.shape, span)?;
    let cases = if upper {
        vec![mask, x, z]
    } else {
        vec![mask, z, x]
    };
    let out = t.at(span).apply(&prims::SELECT_N, cases)?;
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
    let mut mask = t.at(span).binary(&prims::EQ, rows, cols)?;
    let z = zeros(t, a.dtype, &a.shape, span)?;
    if r > 2 {
        mask = broadcast(t, mask, &a.shape, vec![r - 2, r - 1], span)?;
    }
    let kept = t.at(span).apply(&prims::SELECT_N, vec![mask, z, x])?;
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
        [_, _] => return Ok(Value::Traced(diagonal_of(t, v, k, 0, 1, span)?)),
        _ => return call_err(span, format!("`diag` takes a vector or a matrix, not {a}")),
    };
    let n = len + k.abs();
    let dim = Dim::Lit(n as _);
    let zero = literal(
        cast_scalar(Scalar::Int(0), a.dtype),
        Aval::scalar(a.dtype, false),
    );
    let padded = t
        .at(span)
        .pad(v, zero, vec![((-k).max(0) as _, k.max(0) as _, 0)], 0)?;
    let square = [dim.clone(), dim.clone()];
    let rows = iota(t, &square, 0, span)?;
    let cols = iota(t, &square, 1, span)?;
    let rows = add_int(t, rows, k, span)?;
    let mask = t.at(span).binary(&prims::EQ, rows, cols)?;
    let column = broadcast(t, padded, &[dim.clone(), Dim::Lit(1)], vec![0], span)?;
    let full = broadcast(t, column, &square, vec![0, 1], span)?;
    let z = zeros(t, a.dtype, &square, span)?;
    let out = t.at(span).apply(&prims::SELECT_N, vec![mask, z, full])?;
    Ok(Value::Traced(out))
}

/// `x[..., i]` made non-negative as JAX's indexing does: `i < 0 ? i + n : i`.
fn wrap_negative(t: &mut Tracer, i: Atom, n: usize, span: Span) -> Result<Atom> {
    let zero = literal(Scalar::Int(0), Aval::scalar(DType::I32, false));
    let neg = t.at(span).binary(&prims::LT, i.clone(), zero)?;
    let wrapped = add_int(t, i.clone(), n as i128, span)?;
    t.at(span).apply(&prims::SELECT_N, vec![neg, i, wrapped])
}

/// `jnp.diagonal(x, offset, axis1, axis2)` as JAX 0.10.2: the two axes
/// moved last, then a `gather` of the `(i, i + offset)` positions.
pub(crate) fn diagonal_of(
    t: &mut Tracer,
    x: Atom,
    offset: i128,
    axis1: i128,
    axis2: i128,
    span: Span,
) -> Result<Atom> {
    let r = t.b.aval(&x).rank();
    if r < 2 {
        return call_err(span, "`diagonal` needs an array of at least 2 dimensions");
    }
    let a1 = jnp::axis(&t.b, &x, axis1, span)?;
    let a2 = jnp::axis(&t.b, &x, axis2, span)?;
    if a1 == a2 {
        return call_err(span, "`diagonal`: axis1 and axis2 must differ");
    }
    let mut perm: Vec<usize> = (0..r).filter(|&k| k != a1 && k != a2).collect();
    perm.extend([a1, a2]);
    let x = if perm.iter().enumerate().all(|(i, &p)| i == p) {
        x
    } else {
        jnp::transpose(&mut t.b, x, perm, span)?
    };
    let a = t.b.aval(&x);
    let lit = |d: &Dim| match d {
        Dim::Lit(n) => Some(*n),
        _ => None,
    };
    let (Some(n), Some(m)) = (lit(&a.shape[r - 2]), lit(&a.shape[r - 1])) else {
        return call_err(span, "`diagonal` needs the sizes of its two axes");
    };
    let len = (n as i128 - (-offset).max(0)).min(m as i128 - offset.max(0));
    if len <= 0 {
        return call_err(
            span,
            "`diagonal` of an empty diagonal is not supported in #[jax::jit] yet",
        );
    }
    let len = len as usize;
    let first = iota(t, &[Dim::Lit(len)], 0, span)?;
    let second = iota(t, &[Dim::Lit(len)], 0, span)?;
    let shift = |t: &mut Tracer, i: Atom, k: i128| {
        let k = literal(Scalar::Int(k), Aval::scalar(DType::I32, false));
        t.at(span).binary(&prims::ADD, k, i)
    };
    let (rows, cols) = match offset {
        0 => (first, second),
        k if k > 0 => (first, shift(t, second, k)?),
        k => (shift(t, second, -k)?, first),
    };
    let rows = wrap_negative(t, rows, n, span)?;
    let cols = wrap_negative(t, cols, m, span)?;
    let column = [Dim::Lit(len), Dim::Lit(1)];
    let rows = broadcast(t, rows, &column, vec![0], span)?;
    let cols = broadcast(t, cols, &column, vec![0], span)?;
    let idx = t.at(span).concatenate(vec![rows, cols], 1)?;
    let mut slice_sizes: Vec<usize> = a.shape[..r - 2]
        .iter()
        .map(|d| lit(d).unwrap_or(0))
        .collect();
    if a.shape[..r - 2].iter().any(|d| lit(d).is_none()) {
        return call_err(span, "`diagonal` needs the sizes of the other axes");
    }
    slice_sizes.extend([1, 1]);
    t.at(span).gather(
        x,
        idx,
        GatherParams {
            dims: IndexDims {
                offset: (0..r - 2).collect(),
                collapsed: vec![r - 2, r - 1],
                index_map: vec![r - 2, r - 1],
                operand_batching: vec![],
                indices_batching: vec![],
                np_ints: [0; 5],
            },
            slice_sizes,
            mode: IndexMode::PromiseInBounds,
            fill_value: None,
            indices_are_sorted: false,
            unique_indices: false,
        },
    )
}

/// `jnp::diagonal(x, offset, axis1, axis2)`.
pub(crate) fn diagonal(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, ints) = operand_and_ints(t, &c, &[0, 0, 1])?;
    Ok(Value::Traced(diagonal_of(
        t, x, ints[0], ints[1], ints[2], c.span,
    )?))
}
