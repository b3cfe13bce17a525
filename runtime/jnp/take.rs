//! `jnp.take` and `jnp.take_along_axis`: gathers along one axis, with JAX's
//! default mode (`fill`: an out-of-bounds index reads NaN, the integer
//! minimum, the unsigned maximum or `true`). The same kernel as jitted code.

use crate::__rt::gather::{gather, Dims, FILL_OR_DROP};
use crate::array::{ArrayType, AsArray};
use crate::element::{Element, Value};
use crate::shape;

use crate::array::ElemOf;

/// The indices with negative ones counted from the end of an axis of `n`
/// (`jnp`'s index normalization), as `i64`.
fn normalized<I: AsArray>(op: &str, idx: &I, n: usize) -> Vec<i64> {
    let d = <ElemOf<I> as Element>::DTYPE;
    assert!(
        d.is_integer(),
        "{op}: indices must be of an integer type, got {}",
        d.name()
    );
    idx.as_array()
        .data()
        .iter()
        .map(|v| match v.to_value() {
            Value::Int(i) if i < 0 => (i + n as i128) as i64,
            Value::Int(i) => i.min(i64::MAX as i128) as i64,
            _ => unreachable!("integer indices"),
        })
        .collect()
}

/// The elements of `x` at `indices` along `axis` (`jnp.take(x, indices,
/// axis)`): the result has the indices' axes where `axis` was. Negative
/// indices count from the end; out-of-bounds ones give the fill value.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
/// let i = Array::<i32, 2>::from([2, -3]);
/// let y: Array<f32, 2, 2> = jnp::take(&x, &i, 1);
/// assert_eq!(y.to_vec(), [3.0, 1.0, 6.0, 4.0]);
/// let z: Array<f32, 1, 3> = jnp::take(&x, &Array::<i32, 1>::from([5]), 0);
/// assert!(z.to_vec().iter().all(|v| v.is_nan()));
/// ```
#[track_caller]
pub fn take<Out, A, I>(x: A, indices: I, axis: isize) -> Out
where
    A: AsArray,
    I: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let xs = <A::Array as ArrayType>::SHAPE;
    let is = <I::Array as ArrayType>::SHAPE;
    let ax = shape::normalize_axis("take", axis, xs.len());
    let mut out_shape: Vec<usize> = xs[..ax].to_vec();
    out_shape.extend_from_slice(is);
    out_shape.extend_from_slice(&xs[ax + 1..]);
    shape::check_result::<Out>("take", <ElemOf<A> as Element>::DTYPE, &out_shape);
    let idx = normalized("take", &indices, xs[ax]);
    let mut idx_shape = is.to_vec();
    idx_shape.push(1);
    let mut sizes = xs.to_vec();
    sizes[ax] = 1;
    let offset: Vec<usize> = (0..ax)
        .chain(ax + is.len()..xs.len() + is.len() - 1)
        .collect();
    let x = x.as_array();
    let data = gather(
        x.data(),
        xs,
        &idx,
        &idx_shape,
        Dims {
            offset: &offset,
            collapsed: &[ax],
            index_map: &[ax],
            operand_batching: &[],
            indices_batching: &[],
        },
        &sizes,
        &out_shape,
        FILL_OR_DROP,
        crate::index::default_fill(),
    );
    Out::from_data(data).set_weak(x.is_weak())
}

/// The elements of `x` at `indices` along `axis`, position by position
/// (`jnp.take_along_axis`): `indices` has `x`'s rank; off `axis` the two
/// broadcast (a size-1 index axis reads the whole array axis). Negative
/// indices count from the end; out-of-bounds ones give the fill value.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
/// let i = Array::<i32, 2, 1>::from([[2], [0]]);
/// let y: Array<f32, 2, 1> = jnp::take_along_axis(&x, &i, 1);
/// assert_eq!(y.to_vec(), [3.0, 4.0]);
/// // One row of indices for every row: the index axis broadcasts.
/// let j = Array::<i32, 1, 2>::from([[1, 0]]);
/// let z: Array<f32, 2, 2> = jnp::take_along_axis(&x, &j, 1);
/// assert_eq!(z.to_vec(), [2.0, 1.0, 5.0, 4.0]);
/// ```
#[track_caller]
pub fn take_along_axis<Out, A, I>(x: A, indices: I, axis: isize) -> Out
where
    A: AsArray,
    I: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let xs = <A::Array as ArrayType>::SHAPE;
    let is = <I::Array as ArrayType>::SHAPE;
    let ax = shape::normalize_axis("take_along_axis", axis, xs.len());
    assert!(
        is.len() == xs.len()
            && (0..xs.len()).all(|k| k == ax || is[k] == xs[k] || is[k] == 1 || xs[k] == 1),
        "take_along_axis: indices of shape {is:?} do not broadcast with the array's {xs:?} off axis {ax}"
    );
    let out: Vec<usize> = (0..xs.len())
        .map(|k| if k == ax { is[k] } else { is[k].max(xs[k]) })
        .collect();
    shape::check_result::<Out>("take_along_axis", <ElemOf<A> as Element>::DTYPE, &out);
    let idx = normalized("take_along_axis", &indices, xs[ax]);
    // As `jnp.take_along_axis`: size-1 index axes read whole array axes
    // (offset axes), size-1 array axes are squeezed, equal ones are batching.
    let mut idx_shape: Vec<usize> = (0..xs.len())
        .filter(|&k| k == ax || is[k] != 1)
        .map(|k| out[k])
        .collect();
    idx_shape.push(1);
    let (mut offset, mut sizes, mut squeezed_shape) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ob, mut ib) = (Vec::new(), Vec::new());
    let (mut new_i, mut j) = (0, 0);
    for k in 0..xs.len() {
        if k == ax {
            sizes.push(1);
            squeezed_shape.push(xs[k]);
            new_i += 1;
            j += 1;
        } else if is[k] == 1 {
            offset.push(k);
            sizes.push(xs[k]);
            squeezed_shape.push(xs[k]);
            new_i += 1;
        } else if xs[k] == 1 {
            j += 1;
        } else {
            sizes.push(1);
            squeezed_shape.push(xs[k]);
            ob.push(new_i);
            ib.push(j);
            new_i += 1;
            j += 1;
        }
    }
    let at = (0..xs.len())
        .filter(|&k| k < ax && !(xs[k] == 1 && is[k] != 1))
        .count();
    let x = x.as_array();
    let data = gather(
        x.data(),
        &squeezed_shape,
        &idx,
        &idx_shape,
        Dims {
            offset: &offset,
            collapsed: &[at],
            index_map: &[at],
            operand_batching: &ob,
            indices_batching: &ib,
        },
        &sizes,
        &out,
        FILL_OR_DROP,
        crate::index::default_fill(),
    );
    Out::from_data(data).set_weak(x.is_weak())
}
