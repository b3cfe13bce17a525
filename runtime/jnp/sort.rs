//! Sorting (`jnp.sort`, `jnp.argsort`) in JAX's order: stable, NaNs last,
//! `-0.0` and `0.0` equal (their order kept). The kernel is
//! `__rt::sort`, which jitted code calls too.

use crate::array::{ArrayType, AsArray};
use crate::shape;

use super::IndexInt;

type Same<A, O> = <<A as AsArray>::Array as ArrayType>::WithElem<O>;

/// The permutation sorting `x` along `axis` (see `__rt::sort::permutation`).
#[track_caller]
pub(crate) fn sort_permutation<A: AsArray>(op: &str, x: &A, axis: isize) -> (Vec<usize>, usize) {
    let shape = <A::Array as ArrayType>::SHAPE;
    if shape.is_empty() {
        panic!("{op} needs an array of rank 1 or more, not a scalar");
    }
    let ax = shape::normalize_axis(op, axis, shape.len());
    let data = x.as_array().data();
    (crate::__rt::sort::permutation(&[&data], shape, ax), ax)
}

/// `x` sorted along `axis` (`jnp.sort`): stable, NaNs last.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 4>::from([3.0, f32::NAN, -1.0, 2.0]);
/// let s = jnp::sort(&x, 0).to_vec();
/// assert_eq!(s[..3], [-1.0, 2.0, 3.0]);
/// assert!(s[3].is_nan());
/// let m = Array::<i32, 2, 2>::from([[4, 1], [2, 3]]);
/// assert_eq!(jnp::sort(&m, 0).to_vec(), [2, 1, 4, 3]);
/// ```
#[track_caller]
pub fn sort<A: AsArray>(x: A, axis: isize) -> A::Array {
    let (perm, _) = sort_permutation("sort", &x, axis);
    let data = crate::__rt::sort::permute(x.as_array().data(), &perm);
    <A::Array as ArrayType>::from_data(data)
}

/// The indices that sort `x` along `axis` (`jnp.argsort`, stable: equal
/// elements keep their order), as the default int.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 4>::from([3.0, 1.0, 3.0, 0.0]);
/// assert_eq!(jnp::argsort(&x, -1).to_vec(), [3, 1, 0, 2]);
/// ```
#[track_caller]
pub fn argsort<A: AsArray>(x: A, axis: isize) -> Same<A, IndexInt> {
    let (perm, ax) = sort_permutation("argsort", &x, axis);
    let shape = <A::Array as ArrayType>::SHAPE;
    <Same<A, IndexInt>>::from_data(crate::__rt::sort::lane_positions(&perm, shape, ax))
}
