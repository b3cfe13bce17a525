//! Windows along one axis at a start known at run time, as `jax.lax`:
//! `dynamic_slice_in_dim`, `dynamic_index_in_dim`,
//! `dynamic_update_slice_in_dim` and `dynamic_update_index_in_dim`. Starts
//! count from the end when negative and are clamped so the window fits, as
//! `lax::dynamic_slice` and `lax::dynamic_update_slice`, which these wrap.

use super::slicing::{dynamic_slice_data, dynamic_update_slice_data};
use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::index::IndexInt;
use crate::shape::{self, type_string};

use crate::array::ElemOf;

/// The start of every axis: `start` on `axis`, 0 elsewhere.
#[track_caller]
fn starts_on_axis(op: &str, rank: usize, axis: usize, start: i64) -> Vec<i64> {
    assert!(
        axis < rank,
        "{op}: axis {axis} is out of bounds for an array of dimension {rank}"
    );
    let mut starts = vec![0; rank];
    starts[axis] = start;
    starts
}

/// Checks that a window of `sizes` fits in `shape` (same rank).
#[track_caller]
fn check_fits(op: &str, what: &str, dtype: crate::DType, sizes: &[usize], shape: &[usize]) {
    assert!(
        sizes.len() == shape.len() && sizes.iter().zip(shape).all(|(s, n)| s <= n),
        "{op}: {what} {} does not fit in {}",
        type_string(dtype, sizes),
        type_string(dtype, shape)
    );
}

/// `slice_size` elements of `x` along `axis` from `start_index`, every
/// other axis whole (`lax.dynamic_slice_in_dim`): `x[.., start:start +
/// slice_size]` with the start clamped so the window fits.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 4> = Array::arange();
/// let y: Array<i32, 2, 2> = lax::dynamic_slice_in_dim(&x, 3, 2, 1);
/// assert_eq!(y.to_vec(), [2, 3, 6, 7]);
/// ```
#[track_caller]
pub fn dynamic_slice_in_dim<Out, A, I>(x: A, start_index: I, slice_size: usize, axis: usize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
    I: IndexInt,
{
    let op = "dynamic_slice_in_dim";
    let src = <A::Array as ArrayType>::SHAPE;
    let dtype = <ElemOf<A> as Element>::DTYPE;
    let starts = starts_on_axis(op, src.len(), axis, start_index.to_i64());
    let mut sizes = src.to_vec();
    sizes[axis] = slice_size;
    check_fits(op, "a slice", dtype, &sizes, src);
    shape::check_result::<Out>(op, dtype, &sizes);
    let x = x.as_array();
    Out::from_data(dynamic_slice_data(op, x.data(), src, &starts, &sizes)).set_weak(x.is_weak())
}

/// Element `index` of `x` along `axis` (`lax.dynamic_index_in_dim`): the
/// axis kept with length 1 when `keepdims`, else removed; the index is
/// clamped into bounds.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// let col: Array<i32, 2> = lax::dynamic_index_in_dim(&x, -1, 1, false);
/// assert_eq!(col.to_vec(), [2, 5]);
/// let row: Array<i32, 1, 3> = lax::dynamic_index_in_dim(&x, 7, 0, true);
/// assert_eq!(row.to_vec(), [3, 4, 5]);
/// ```
#[track_caller]
pub fn dynamic_index_in_dim<Out, A, I>(x: A, index: I, axis: usize, keepdims: bool) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
    I: IndexInt,
{
    let op = "dynamic_index_in_dim";
    let src = <A::Array as ArrayType>::SHAPE;
    let dtype = <ElemOf<A> as Element>::DTYPE;
    let starts = starts_on_axis(op, src.len(), axis, index.to_i64());
    let mut sizes = src.to_vec();
    sizes[axis] = 1;
    check_fits(op, "an index", dtype, &sizes, src);
    let mut out_shape = sizes.clone();
    if !keepdims {
        out_shape.remove(axis);
    }
    shape::check_result::<Out>(op, dtype, &out_shape);
    let x = x.as_array();
    Out::from_data(dynamic_slice_data(op, x.data(), src, &starts, &sizes)).set_weak(x.is_weak())
}

/// `x` with `update` written along `axis` from `start_index`
/// (`lax.dynamic_update_slice_in_dim`): `update` has `x`'s rank, and the
/// start is clamped so it fits.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 4> = Array::zeros();
/// let u = Array::<i32, 2, 2>::ones();
/// let y = lax::dynamic_update_slice_in_dim(&x, &u, 3, 1);
/// assert_eq!(y.to_vec(), [0, 0, 1, 1, 0, 0, 1, 1]);
/// ```
#[track_caller]
pub fn dynamic_update_slice_in_dim<A, U, I>(
    x: A,
    update: U,
    start_index: I,
    axis: usize,
) -> A::Array
where
    A: AsArray,
    U: AsArray,
    U::Array: ArrayType<Elem = ElemOf<A>>,
    I: IndexInt,
{
    let op = "dynamic_update_slice_in_dim";
    let sizes = <U::Array as ArrayType>::SHAPE;
    update_at(op, x, update, start_index, axis, sizes)
}

/// `x` with `update` written at `index` along `axis`
/// (`lax.dynamic_update_index_in_dim`): `update` has `x`'s rank with length
/// 1 on `axis`, or one axis fewer (that axis left out); the index is
/// clamped into bounds.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 3, 2> = Array::zeros();
/// let row = Array::<f32, 2>::from([1.0, 2.0]);
/// let y = lax::dynamic_update_index_in_dim(&x, &row, -1, 0);
/// assert_eq!(y.to_vec(), [0.0, 0.0, 0.0, 0.0, 1.0, 2.0]);
/// ```
#[track_caller]
pub fn dynamic_update_index_in_dim<A, U, I>(x: A, update: U, index: I, axis: usize) -> A::Array
where
    A: AsArray,
    U: AsArray,
    U::Array: ArrayType<Elem = ElemOf<A>>,
    I: IndexInt,
{
    let op = "dynamic_update_index_in_dim";
    let src = <A::Array as ArrayType>::SHAPE;
    let mut sizes = <U::Array as ArrayType>::SHAPE.to_vec();
    if sizes.len() + 1 == src.len() && axis <= sizes.len() {
        sizes.insert(axis, 1);
    }
    update_at(op, x, update, index, axis, &sizes)
}

/// `x` with `update`'s elements (a window of `sizes`) written from `start`
/// along `axis`.
#[track_caller]
fn update_at<A, U, I>(op: &str, x: A, update: U, start: I, axis: usize, sizes: &[usize]) -> A::Array
where
    A: AsArray,
    U: AsArray,
    U::Array: ArrayType<Elem = ElemOf<A>>,
    I: IndexInt,
{
    let src = <A::Array as ArrayType>::SHAPE;
    let dtype = <ElemOf<A> as Element>::DTYPE;
    let starts = starts_on_axis(op, src.len(), axis, start.to_i64());
    check_fits(op, "an update", dtype, sizes, src);
    let x = x.into_array();
    let weak = x.is_weak();
    let mut data = x.data().to_vec();
    dynamic_update_slice_data(op, &mut data, src, update.as_array().data(), sizes, &starts);
    <A::Array as ArrayType>::from_data(data).set_weak(weak)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Array;

    #[test]
    #[should_panic(
        expected = "dynamic_slice_in_dim gives i32[2,2] but the result type is i32[2,3]"
    )]
    fn slice_size_must_match_the_result_type() {
        let x: Array<i32, 2, 4> = Array::arange();
        let _: Array<i32, 2, 3> = dynamic_slice_in_dim(&x, 0, 2, 1);
    }

    #[test]
    #[should_panic(
        expected = "dynamic_update_slice_in_dim: an update i32[3] does not fit in i32[2]"
    )]
    fn update_must_fit() {
        let x: Array<i32, 2> = Array::zeros();
        let _ = dynamic_update_slice_in_dim(&x, Array::<i32, 3>::ones(), 0, 0);
    }
}
