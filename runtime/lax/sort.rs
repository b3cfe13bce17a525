//! `lax.sort` of one operand and `lax.sort_key_val` (the tuple form of two).

use crate::array::{ArrayType, AsArray};
use crate::shape;

use crate::array::ElemOf as E;

/// `operand` sorted along `dimension` (`lax.sort`, stable, NaNs last):
/// `jnp::sort`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 3>::from([2, 0, 1]);
/// assert_eq!(lax::sort(&x, 0).to_vec(), [0, 1, 2]);
/// ```
#[track_caller]
pub fn sort<A: AsArray>(operand: A, dimension: isize) -> A::Array
where
    <A::Array as ArrayType>::Elem: PartialOrd,
{
    let (perm, _) = sort_permutation("sort", &operand, dimension);
    let data = crate::__rt::sort::permute(operand.as_array().data(), &perm);
    <A::Array as ArrayType>::from_data(data)
}

/// `values` sorted along `dimension` by `keys` (`lax.sort_key_val`, stable):
/// the sorted keys and the values in their order.
///
/// ```
/// use jax::prelude::*;
/// let k = Array::<f32, 3>::from([2.0, 0.0, 1.0]);
/// let v = Array::<i32, 3>::from([20, 0, 10]);
/// let (ks, vs) = lax::sort_key_val(&k, &v, 0);
/// assert_eq!(ks.to_vec(), [0.0, 1.0, 2.0]);
/// assert_eq!(vs.to_vec(), [0, 10, 20]);
/// ```
#[track_caller]
pub fn sort_key_val<K: AsArray, V: AsArray>(
    keys: K,
    values: V,
    dimension: isize,
) -> (K::Array, V::Array)
where
    <K::Array as ArrayType>::Elem: PartialOrd,
{
    let ks = <K::Array as ArrayType>::SHAPE;
    let vs = <V::Array as ArrayType>::SHAPE;
    assert_eq!(
        ks, vs,
        "sort_key_val: keys and values must have equal shapes"
    );
    let (perm, _) = sort_permutation("sort_key_val", &keys, dimension);
    let k = crate::__rt::sort::permute(keys.as_array().data(), &perm);
    let v = crate::__rt::sort::permute(values.as_array().data(), &perm);
    (
        <K::Array as ArrayType>::from_data(k),
        <V::Array as ArrayType>::from_data(v),
    )
}

/// The `k` largest elements along the last axis and their indices
/// (`lax.top_k`): largest first, NaN largest, equal elements in their
/// order; indices are int32 (as in JAX, also under `x64`). The caller names
/// both result types, `k` long on the last axis.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 5>::from([1.0, 4.0, 2.0, 4.0, 3.0]);
/// let (v, i): (Array<f32, 3>, Array<i32, 3>) = lax::top_k(&x, 3);
/// assert_eq!(v.to_vec(), [4.0, 4.0, 3.0]);
/// assert_eq!(i.to_vec(), [1, 3, 4]);
/// ```
#[track_caller]
pub fn top_k<A, V, I>(operand: A, k: usize) -> (V, I)
where
    A: AsArray,
    V: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    I: ArrayType<Elem = i32>,
    <A::Array as ArrayType>::Elem: PartialOrd,
{
    let shape = <A::Array as ArrayType>::SHAPE;
    if shape.is_empty() {
        panic!("top_k operand must have >= 1 dimension, got ()");
    }
    let axis = shape.len() - 1;
    if shape[axis] < k {
        panic!(
            "k argument to top_k must be no larger than size along axis; got k={k} with shape={shape:?} and axis={axis}"
        );
    }
    let mut out_shape = shape.to_vec();
    out_shape[axis] = k;
    crate::shape::check_result::<V>("top_k", <V::Elem as crate::Element>::DTYPE, &out_shape);
    crate::shape::check_result::<I>("top_k", crate::DType::I32, &out_shape);
    let (v, i) = crate::__rt::sort::top_k::<_, i32>(operand.as_array().data(), shape, axis, k);
    (V::from_data(v), I::from_data(i))
}

/// The permutation sorting `x` along `axis` (see `__rt::sort::permutation`).
#[track_caller]
pub(crate) fn sort_permutation<A: AsArray>(op: &str, x: &A, axis: isize) -> (Vec<usize>, usize)
where
    E<A>: PartialOrd,
{
    let shape = <A::Array as ArrayType>::SHAPE;
    if shape.is_empty() {
        panic!("{op} needs an array of rank 1 or more, not a scalar");
    }
    let ax = shape::normalize_axis(op, axis, shape.len());
    let data = x.as_array().data();
    (crate::__rt::sort::permutation(&[&data], shape, ax), ax)
}
