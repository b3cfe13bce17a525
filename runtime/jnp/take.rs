//! `jnp.take` and `jnp.take_along_axis`: gathers along one axis, with JAX's
//! default mode (`fill`: an out-of-bounds index reads NaN, the integer
//! minimum, the unsigned maximum or `true`); the one text of
//! `jax_core::indexing` (which jitted bodies trace) run eagerly, on the
//! same gather kernel.

use crate::array::{ArrayType, AsArray};
use crate::eager;
use crate::shape;

use crate::array::ElemOf;

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
    let ax = shape::normalize_axis("take", axis, <A::Array as ArrayType>::SHAPE.len());
    let r = eager::call(|l| jax_core::indexing::take(l, eager::arg(x), eager::arg(indices), ax));
    eager::typed("take", r)
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
    let ax = shape::normalize_axis(
        "take_along_axis",
        axis,
        <A::Array as ArrayType>::SHAPE.len(),
    );
    let r = eager::call(|l| {
        jax_core::indexing::take_along_axis(l, eager::arg(x), eager::arg(indices), ax)
    });
    eager::typed("take_along_axis", r)
}
