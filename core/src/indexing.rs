//! Gathers and masks along axes, written once over [`Lax`] as
//! `jax.numpy` 0.10.2 lowers them: `take` and `take_along_axis` (one
//! `gather` each, in `fill` mode), `diagonal` (a `gather` of the diagonal's
//! positions), `diag`, `trace`, `tril` and `triu` (masks of two `iota`s).
//! A jitted body traces them; an eager call runs the same text.

use jax_dtypes::{DType, Kind};

use crate::ir::primitive::{GatherParams, IndexDims, IndexMode};
use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::jnp::{self, raise, rejected, Fault, Reduction, Rejected, Res};
use crate::lax::Lax;
use crate::prims;

/// JAX's fill value for a `fill` gather of `dtype`, as its jaxprs print it
/// (NaN, `true`, the unsigned maximum, the integer minimum).
pub fn default_fill(dtype: DType) -> f64 {
    match dtype {
        d if d.is_float() => f64::NAN,
        DType::Bool => 1.0,
        d if d.kind() == Kind::UInt => ((1u128 << d.bits()) - 1) as f64,
        d => -((1u128 << (d.bits() - 1)) as f64),
    }
}

/// An `i32` scalar.
fn int32<L: Lax>(l: &mut L, v: i128) -> L::V {
    l.literal(Scalar::Int(v), Aval::scalar(DType::I32, false))
}

/// A zero of `dtype` broadcast to `shape` (`jnp.zeros_like`).
fn zeros<L: Lax>(l: &mut L, dtype: DType, shape: &[Dim]) -> Res<L, L::V> {
    let z = l.literal(
        cast_scalar(Scalar::Int(0), dtype),
        Aval::scalar(dtype, false),
    );
    l.broadcast_in_dim(z, shape.to_vec(), vec![])
}

/// The sizes of `a`, each known.
fn lit_sizes<L: Lax>(l: &L, a: &Aval, what: &str) -> Res<L, Vec<usize>> {
    a.shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            d => Err(l.expression_error(format!(
                "{what} over an axis of symbolic size {d} is not supported"
            ))),
        })
        .collect()
}

/// The indices operand (argument 1) of `take`-like function `name`: an
/// integer array.
pub fn integer_indices(ia: &Aval, name: &str) -> Result<(), Rejected> {
    if !ia.dtype.is_integer() {
        return rejected(
            Fault::Arg(1),
            format!(
                "`{name}` needs integer indices, got {ia}; convert them with `.astype::<i32>()`"
            ),
        );
    }
    Ok(())
}

/// Negative indices count from the end (`select_n(i < 0, i, i + n)`;
/// unsigned ones unchanged).
fn normalize<L: Lax>(l: &mut L, idx: L::V, n: &Dim) -> Res<L, L::V> {
    let a = l.aval(&idx);
    if a.dtype.kind() == Kind::UInt {
        return Ok(idx);
    }
    let Dim::Lit(n) = n else {
        return Err(l.expression_error(format!(
            "indexing an axis of symbolic size {n} is not supported"
        )));
    };
    let lit = |l: &mut L, v: i128| l.literal(Scalar::Int(v), Aval::scalar(a.dtype, false));
    let zero = lit(l, 0);
    let neg = jnp::binary(l, &prims::LT, idx.clone(), zero)?;
    let len = lit(l, *n as i128);
    let wrapped = jnp::binary(l, &prims::ADD, idx.clone(), len)?;
    l.select_n(neg, vec![idx, wrapped])
}

/// A `fill`-mode gather with JAX's default fill value.
fn fill_gather(dtype: DType, dims: IndexDims, slice_sizes: Vec<usize>) -> GatherParams {
    GatherParams {
        dims,
        slice_sizes,
        mode: IndexMode::FillOrDrop,
        fill_value: Some(default_fill(dtype)),
        indices_are_sorted: false,
        unique_indices: false,
    }
}

/// `jnp.take(x, idx, axis)`: the result has `idx`'s axes where `axis`
/// was; out-of-bounds indices read the fill value.
pub fn take<L: Lax>(l: &mut L, x: L::V, idx: L::V, axis: usize) -> Res<L, L::V> {
    let a = l.aval(&x);
    let ia = l.aval(&idx);
    raise(l, integer_indices(&ia, "take"))?;
    let ir = ia.rank();
    let idx = normalize(l, idx, &a.shape[axis])?;
    let mut full = l.aval(&idx).shape;
    full.push(Dim::Lit(1));
    let idx = l.broadcast_in_dim(idx, full, (0..ir).collect())?;
    let mut slice_sizes = lit_sizes(l, &a, "a gather")?;
    slice_sizes[axis] = 1;
    let offset: Vec<usize> = (0..axis).chain(axis + ir..a.rank() + ir - 1).collect();
    let dims = IndexDims {
        offset,
        collapsed: vec![axis],
        index_map: vec![axis],
        operand_batching: vec![],
        indices_batching: vec![],
        np_ints: [0; 5],
    };
    l.gather(x, idx, fill_gather(a.dtype, dims, slice_sizes))
}

/// `take_along_axis`'s indices (argument 1): `x`'s rank, and broadcasting
/// with it off `axis`.
pub fn along_axis_indices(a: &Aval, ia: &Aval, axis: usize) -> Result<(), Rejected> {
    integer_indices(ia, "take_along_axis")?;
    if ia.rank() != a.rank() {
        return rejected(
            Fault::Arg(1),
            format!(
                "indices and arr must have the same number of dimensions; {} vs. {}",
                ia.rank(),
                a.rank()
            ),
        );
    }
    for k in (0..a.rank()).filter(|&k| k != axis) {
        let (i, x) = (&ia.shape[k], &a.shape[k]);
        if i != x && *i != Dim::Lit(1) && *x != Dim::Lit(1) {
            return rejected(
                Fault::Arg(1),
                format!(
                    "take_along_axis: the indices {ia} do not broadcast with {a} off axis {axis}"
                ),
            );
        }
    }
    Ok(())
}

/// `jnp.take_along_axis(x, idx, axis)`: `idx` has `x`'s rank; off `axis`
/// the two broadcast (a size-1 index axis reads the whole array axis, a
/// size-1 array axis is read by every index); each result element reads
/// `x` at its own position with the index along `axis`.
pub fn take_along_axis<L: Lax>(l: &mut L, x: L::V, idx: L::V, axis: usize) -> Res<L, L::V> {
    let a = l.aval(&x);
    let ia = l.aval(&idx);
    raise(l, along_axis_indices(&a, &ia, axis))?;
    let xs = lit_sizes(l, &a, "a gather")?;
    let is = lit_sizes(l, &ia, "a gather")?;
    let along = take_along_axis_dims(&xs, &is, axis);
    let idx = normalize(l, idx, &a.shape[axis])?;
    let idx = l.reshape(
        idx,
        along.index_shape.iter().map(|&n| Dim::Lit(n)).collect(),
    )?;
    let x = if along.squeezed.is_empty() {
        x
    } else {
        l.squeeze(x, along.squeezed.clone())?
    };
    l.gather(x, idx, fill_gather(a.dtype, along.dims, along.slice_sizes))
}

/// The gather `jnp.take_along_axis` builds for an array of shape `xs` and
/// indices of shape `is`.
struct Along {
    /// The indices' shape for the gather (their size-1 axes off `axis`
    /// dropped, then 1).
    index_shape: Vec<usize>,
    /// The array's axes squeezed first (size 1 where the indices' are not).
    squeezed: Vec<usize>,
    dims: IndexDims,
    slice_sizes: Vec<usize>,
}

fn take_along_axis_dims(xs: &[usize], is: &[usize], axis: usize) -> Along {
    let out: Vec<usize> = (0..xs.len())
        .map(|k| if k == axis { is[k] } else { is[k].max(xs[k]) })
        .collect();
    let mut index_shape: Vec<usize> = (0..xs.len())
        .filter(|&k| k == axis || is[k] != 1)
        .map(|k| out[k])
        .collect();
    index_shape.push(1);
    let mut dims = IndexDims::default();
    let (mut slice_sizes, mut squeezed) = (Vec::new(), Vec::new());
    let (mut new_i, mut j) = (0, 0);
    for k in 0..xs.len() {
        if k == axis {
            slice_sizes.push(1);
            dims.index_map.push(new_i);
            dims.collapsed.push(new_i);
            new_i += 1;
            j += 1;
        } else if is[k] == 1 {
            dims.offset.push(k);
            slice_sizes.push(xs[k]);
            new_i += 1;
        } else if xs[k] == 1 {
            squeezed.push(k);
            j += 1;
        } else {
            slice_sizes.push(1);
            dims.operand_batching.push(new_i);
            dims.indices_batching.push(j);
            new_i += 1;
            j += 1;
        }
    }
    Along {
        index_shape,
        squeezed,
        dims,
        slice_sizes,
    }
}

/// The rank check of the functions over two axes.
fn at_least_2d<L: Lax>(l: &L, a: &Aval, name: &str) -> Res<L, ()> {
    if a.rank() < 2 {
        return Err(l.expression_error(format!(
            "`{name}` needs an array of at least 2 dimensions, not {a}"
        )));
    }
    Ok(())
}

/// `x` with `axis1` and `axis2` moved last (in that order).
fn two_axes_last<L: Lax>(l: &mut L, x: L::V, axis1: i128, axis2: i128, name: &str) -> Res<L, L::V> {
    let a = l.aval(&x);
    at_least_2d(l, &a, name)?;
    let r = a.rank();
    let a1 = jnp::axis(l, &x, axis1)?;
    let a2 = jnp::axis(l, &x, axis2)?;
    if a1 == a2 {
        return Err(l.expression_error(format!("`{name}`: axis1 and axis2 must differ")));
    }
    let mut perm: Vec<usize> = (0..r).filter(|&k| k != a1 && k != a2).collect();
    perm.extend([a1, a2]);
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        Ok(x)
    } else {
        l.transpose(x, perm)
    }
}

/// JAX's `tri` mask over `shape` (two axes): `iota0 + k >= iota1`, or
/// `==` with `diagonal`.
fn mask<L: Lax>(l: &mut L, shape: &[Dim], k: i128, diagonal: bool) -> Res<L, L::V> {
    // The equations in JAX's order: `tri` adds before the second iota,
    // the diagonal masks after it.
    let rows = l.iota(DType::I32, shape.to_vec(), 0)?;
    let kk = int32(l, k);
    if diagonal {
        let cols = l.iota(DType::I32, shape.to_vec(), 1)?;
        let rows = l.binary(&prims::ADD, rows, kk)?;
        l.binary(&prims::EQ, rows, cols)
    } else {
        let rows = l.binary(&prims::ADD, rows, kk)?;
        let cols = l.iota(DType::I32, shape.to_vec(), 1)?;
        l.binary(&prims::GE, rows, cols)
    }
}

/// `jnp.tril(x, k)` (`upper`: `jnp.triu`): JAX's `tri` mask
/// `iota0 + k >= iota1` (with `k - 1` for `triu`) over the last two axes,
/// broadcast over the others, then `select_n`.
pub fn tril_triu<L: Lax>(l: &mut L, x: L::V, k: i128, upper: bool) -> Res<L, L::V> {
    let a = l.aval(&x);
    at_least_2d(l, &a, if upper { "triu" } else { "tril" })?;
    let r = a.rank();
    let k = if upper { k - 1 } else { k };
    let mut m = mask(l, &a.shape[r - 2..], k, false)?;
    if r > 2 {
        m = l.broadcast_in_dim(m, a.shape.clone(), vec![r - 2, r - 1])?;
    }
    let z = zeros(l, a.dtype, &a.shape)?;
    let cases = if upper { vec![x, z] } else { vec![z, x] };
    l.select_n(m, cases)
}

/// `jnp.trace(x, offset, axis1, axis2)`: the two axes moved last, the
/// mask `iota0 + offset == iota1`, `where`, and a sum over the last two.
pub fn trace<L: Lax>(l: &mut L, x: L::V, offset: i128, axis1: i128, axis2: i128) -> Res<L, L::V> {
    let x = two_axes_last(l, x, axis1, axis2, "trace")?;
    let a = l.aval(&x);
    let r = a.rank();
    let mut m = mask(l, &a.shape[r - 2..], offset, true)?;
    let z = zeros(l, a.dtype, &a.shape)?;
    if r > 2 {
        m = l.broadcast_in_dim(m, a.shape.clone(), vec![r - 2, r - 1])?;
    }
    let kept = l.select_n(m, vec![z, x])?;
    jnp::reduce(l, Reduction::Sum, kept, Some(vec![r - 2, r - 1]), false)
}

/// `x[..., i]` made non-negative as JAX's indexing does: `i < 0 ? i + n : i`.
fn wrap_negative<L: Lax>(l: &mut L, i: L::V, n: usize) -> Res<L, L::V> {
    let zero = int32(l, 0);
    let neg = l.binary(&prims::LT, i.clone(), zero)?;
    let len = int32(l, n as i128);
    let wrapped = l.binary(&prims::ADD, i.clone(), len)?;
    l.select_n(neg, vec![i, wrapped])
}

/// `jnp.diagonal(x, offset, axis1, axis2)` as JAX 0.10.2: the two axes
/// moved last, then a `gather` of the `(i, i + offset)` positions.
pub fn diagonal<L: Lax>(
    l: &mut L,
    x: L::V,
    offset: i128,
    axis1: i128,
    axis2: i128,
) -> Res<L, L::V> {
    let x = two_axes_last(l, x, axis1, axis2, "diagonal")?;
    let a = l.aval(&x);
    let r = a.rank();
    let sizes = lit_sizes(l, &a, "`diagonal`")?;
    let (n, m) = (sizes[r - 2], sizes[r - 1]);
    let len = (n as i128 - (-offset).max(0)).min(m as i128 - offset.max(0));
    if len <= 0 {
        // An empty diagonal: nothing to gather.
        let mut shape = a.shape[..r - 2].to_vec();
        shape.push(Dim::Lit(0));
        return zeros(l, a.dtype, &shape);
    }
    let len = len as usize;
    let first = l.iota(DType::I32, vec![Dim::Lit(len)], 0)?;
    let second = l.iota(DType::I32, vec![Dim::Lit(len)], 0)?;
    let shift = |l: &mut L, i: L::V, k: i128| {
        let k = int32(l, k);
        l.binary(&prims::ADD, k, i)
    };
    let (rows, cols) = match offset {
        0 => (first, second),
        k if k > 0 => (first, shift(l, second, k)?),
        k => (shift(l, second, -k)?, first),
    };
    let rows = wrap_negative(l, rows, n)?;
    let cols = wrap_negative(l, cols, m)?;
    let column = vec![Dim::Lit(len), Dim::Lit(1)];
    let rows = l.broadcast_in_dim(rows, column.clone(), vec![0])?;
    let cols = l.broadcast_in_dim(cols, column, vec![0])?;
    let idx = l.concatenate(vec![rows, cols], 1)?;
    let mut slice_sizes = sizes[..r - 2].to_vec();
    slice_sizes.extend([1, 1]);
    l.gather(
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

/// `jnp.diag(v, k)`: of a vector, `v` padded to the matrix's size,
/// broadcast along the rows and masked by `iota0 + k == iota1`; of a
/// matrix, its `k`-th diagonal.
pub fn diag<L: Lax>(l: &mut L, v: L::V, k: i128) -> Res<L, L::V> {
    let a = l.aval(&v);
    let len = match a.shape.as_slice() {
        [Dim::Lit(n)] => *n as i128,
        [_, _] => return diagonal(l, v, k, 0, 1),
        _ => return Err(l.expression_error(format!("`diag` takes a vector or a matrix, not {a}"))),
    };
    let n = len + k.abs();
    let dim = Dim::Lit(n as usize);
    let zero = l.literal(
        cast_scalar(Scalar::Int(0), a.dtype),
        Aval::scalar(a.dtype, false),
    );
    let padded = l.pad(v, zero, vec![((-k).max(0) as i64, k.max(0) as i64, 0)], 0)?;
    let square = vec![dim.clone(), dim.clone()];
    let m = mask(l, &square, k, true)?;
    let column = l.broadcast_in_dim(padded, vec![dim, Dim::Lit(1)], vec![0])?;
    let full = l.broadcast_in_dim(column, square.clone(), vec![0, 1])?;
    let z = zeros(l, a.dtype, &square)?;
    l.select_n(m, vec![z, full])
}
