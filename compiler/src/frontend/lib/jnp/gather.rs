//! `jnp::take(x, idx, axis)` and `jnp::take_along_axis(x, idx, axis)`: one
//! `gather` each, built as `jnp`'s `_take` and `take_along_axis` build it,
//! with their default mode (`fill`: NaN, or the integer minimum, where an
//! index is out of bounds).

use jax_dtypes::DType;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::index_gather::default_fill;
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Aval, Dim, Scalar};
use crate::prims::{self, GatherParams, IndexDims, IndexMode, Params};
use jax_core::lax::Lax;

/// The index array (integer) and the static axis of a `take`-like call.
fn take_args(t: &mut Tracer, c: &Call) -> Result<(crate::ir::Atom, crate::ir::Atom, usize)> {
    c.want(3)?;
    let x = c.atom(t, 0)?;
    let idx = c.atom(t, 1)?;
    let ia = t.b.aval(&idx);
    if !ia.dtype.is_integer() {
        return call_err(
            c.args[1].1,
            format!(
                "`{}` needs integer indices, got {ia}; convert them with `.astype::<i32>()`",
                c.name
            ),
        );
    }
    let ax = t.static_int(&c.args[2].0, c.args[2].1, "the axis")?;
    let ax = jnp::axis(&t.b, &x, ax, c.args[2].1)?;
    Ok((x, idx, ax))
}

/// Negative indices count from the end (`select_n(i < 0, i, i + n)`).
fn normalize(
    t: &mut Tracer,
    idx: crate::ir::Atom,
    n: &Dim,
    span: proc_macro2::Span,
) -> Result<crate::ir::Atom> {
    let a = t.b.aval(&idx);
    if a.dtype.kind() == jax_dtypes::Kind::UInt {
        return Ok(idx);
    }
    let Dim::Lit(n) = n else {
        return call_err(
            span,
            format!("indexing an axis of symbolic size {n} is not supported"),
        );
    };
    let lit = |v: i128| crate::ir::builder::literal(Scalar::Int(v), Aval::scalar(a.dtype, false));
    let neg = jnp::binary(&mut t.b, &prims::LT, idx.clone(), lit(0), span)?;
    let wrapped = jnp::binary(&mut t.b, &prims::ADD, idx.clone(), lit(*n as i128), span)?;
    t.at(span).apply(&prims::SELECT_N, vec![neg, idx, wrapped])
}

fn fill_gather(dtype: DType, dims: IndexDims, slice_sizes: Vec<usize>) -> Params {
    Params::Gather(GatherParams {
        dims,
        slice_sizes,
        mode: IndexMode::FillOrDrop,
        fill_value: Some(default_fill(dtype)),
        indices_are_sorted: false,
        unique_indices: false,
    })
}

fn lit_sizes(a: &Aval, span: proc_macro2::Span) -> Result<Vec<usize>> {
    a.shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            d => call_err(
                span,
                format!("a gather over an axis of symbolic size {d} is not supported"),
            ),
        })
        .collect()
}

/// `jnp::take(x, idx, axis)`: the result has `idx`'s axes where `axis` was.
pub(crate) fn take(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, idx, axis) = take_args(t, &c)?;
    Ok(Value::Traced(take_atoms(t, x, idx, axis, c.span)?))
}

/// `jnp.take(x, idx, axis)` on traced atoms (`idx` an integer array), for
/// lowerings that gather, such as `random::choice_rows` with replacement.
pub(crate) fn take_atoms(
    t: &mut Tracer,
    x: crate::ir::Atom,
    idx: crate::ir::Atom,
    axis: usize,
    span: proc_macro2::Span,
) -> Result<crate::ir::Atom> {
    let a = t.b.aval(&x);
    let ir = t.b.aval(&idx).rank();
    let idx = normalize(t, idx, &a.shape[axis], span)?;
    let mut full = t.b.aval(&idx).shape;
    full.push(Dim::Lit(1));
    let idx = t.at(span).broadcast_in_dim(idx, full, (0..ir).collect())?;
    let mut slice_sizes = lit_sizes(&a, span)?;
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
    let p = fill_gather(a.dtype, dims, slice_sizes);
    t.b.bind1(&prims::GATHER, p, vec![x, idx], span)
}

/// `jnp::take_along_axis(x, idx, axis)`: `idx` has `x`'s rank; off `axis`
/// the two broadcast (a size-1 index axis reads the whole array axis, a
/// size-1 array axis is read by every index); each result element reads
/// `x` at its own position with the index along `axis`.
pub(crate) fn take_along_axis(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, idx, axis) = take_args(t, &c)?;
    let a = t.b.aval(&x);
    let ia = t.b.aval(&idx);
    if ia.rank() != a.rank() {
        return call_err(
            c.args[1].1,
            format!(
                "indices and arr must have the same number of dimensions; {} vs. {}",
                ia.rank(),
                a.rank()
            ),
        );
    }
    let xs = lit_sizes(&a, c.span)?;
    let is = lit_sizes(&ia, c.span)?;
    for k in (0..a.rank()).filter(|&k| k != axis) {
        if is[k] != xs[k] && is[k] != 1 && xs[k] != 1 {
            return call_err(
                c.args[1].1,
                format!(
                    "take_along_axis: the indices {ia} do not broadcast with {a} off axis {axis}"
                ),
            );
        }
    }
    let along = take_along_axis_dims(&xs, &is, axis);
    let idx = normalize(t, idx, &a.shape[axis], c.span)?;
    let idx = t.at(c.span).reshape(
        idx,
        along.index_shape.iter().map(|&n| Dim::Lit(n)).collect(),
    )?;
    let x = if along.squeezed.is_empty() {
        x
    } else {
        t.at(c.span).squeeze(x, along.squeezed.clone())?
    };
    let p = fill_gather(a.dtype, along.dims, along.slice_sizes);
    Ok(Value::Traced(t.b.bind1(
        &prims::GATHER,
        p,
        vec![x, idx],
        c.span,
    )?))
}

/// The gather `jnp.take_along_axis` builds for an array of shape `xs` and
/// indices of shape `is`.
struct Along {
    /// The indices' shape for the gather (their size-1 axes off `axis` dropped, then 1).
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
    let mut dims = IndexDims {
        offset: vec![],
        collapsed: vec![],
        index_map: vec![],
        operand_batching: vec![],
        indices_batching: vec![],
        np_ints: [0; 5],
    };
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
