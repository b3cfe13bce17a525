//! `lax.sort` of one operand and `lax.sort_key_val` (the tuple form of two).

use crate::array::{ArrayType, AsArray};

/// `operand` sorted along `dimension` (`lax.sort`, stable, NaNs last):
/// `jnp::sort`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 3>::from([2, 0, 1]);
/// assert_eq!(lax::sort(&x, 0).to_vec(), [0, 1, 2]);
/// ```
#[track_caller]
pub fn sort<A: AsArray>(operand: A, dimension: isize) -> A::Array {
    crate::jnp::sort(operand, dimension)
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
) -> (K::Array, V::Array) {
    let ks = <K::Array as ArrayType>::SHAPE;
    let vs = <V::Array as ArrayType>::SHAPE;
    assert_eq!(
        ks, vs,
        "sort_key_val: keys and values must have equal shapes"
    );
    let (perm, _) = crate::jnp::sort_permutation("sort_key_val", &keys, dimension);
    let k = crate::__rt::sort::permute(keys.as_array().data(), &perm);
    let v = crate::__rt::sort::permute(values.as_array().data(), &perm);
    (
        <K::Array as ArrayType>::from_data(k),
        <V::Array as ArrayType>::from_data(v),
    )
}
