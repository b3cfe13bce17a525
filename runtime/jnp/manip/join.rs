//! Joining and repeating arrays: concatenate, stack, repeat, tile.

use super::ElemOf;
use crate::array::{ArrayType, AsArray};
use crate::eager;
use crate::shape;

pub use crate::lax::{ArrayList, Part};

/// Joins arrays along an existing axis (`jnp.concatenate`). The arrays may
/// differ in length along `axis` when given as a tuple.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 2>::from([1, 2]);
/// let b = Array::<i32, 3>::from([3, 4, 5]);
/// let c: Array<i32, 5> = jnp::concatenate((&a, &b), 0);
/// assert_eq!(c.to_vec(), [1, 2, 3, 4, 5]);
/// let d: Array<i32, 4> = jnp::concatenate(&[&a, &a], 0);
/// assert_eq!(d.to_vec(), [1, 2, 1, 2]);
/// ```
#[track_caller]
pub fn concatenate<Out, L>(arrays: L, axis: isize) -> Out
where
    L: ArrayList,
    Out: ArrayType<Elem = L::Elem>,
{
    let parts = arrays.parts();
    assert!(
        !parts.is_empty(),
        "concatenate: {}",
        jax_dtypes::checks::NOTHING_TO_CONCATENATE
    );
    let rank = parts[0].0.len();
    assert!(
        rank > 0,
        "concatenate: zero-dimensional arrays cannot be concatenated"
    );
    let a = shape::normalize_axis("concatenate", axis, rank);
    crate::lax::concatenate(arrays, a)
}

/// Joins arrays of one shape along a new axis (`jnp.stack`; `lax.stack`,
/// one text with the jitted call: `jax_core::jnp::concatenate`), with
/// JAX's messages for no arrays or arrays of different shapes.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 2>::from([1, 2]);
/// let b = Array::<i32, 2>::from([3, 4]);
/// let c: Array<i32, 2, 2> = jnp::stack(&[&a, &b], 1);
/// assert_eq!(c.to_vec(), [1, 3, 2, 4]);
/// ```
#[track_caller]
pub fn stack<Out, L>(arrays: L, axis: isize) -> Out
where
    L: ArrayList,
    Out: ArrayType<Elem = L::Elem>,
{
    let parts = arrays
        .parts()
        .into_iter()
        .map(|(shape, data, weak)| eager::slice_arg(shape, data, weak))
        .collect();
    let r = eager::call(|l| jax_core::jnp::concatenate(l, parts, axis as i128, true));
    eager::typed("stack", r)
}

/// Repeats each element `repeats` times along `axis`, or along the
/// flattened array for `None` (`jnp.repeat`).
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 2, 2>::from([[1, 2], [3, 4]]);
/// let y: Array<i32, 2, 4> = jnp::repeat(&x, 2, Some(1));
/// assert_eq!(y.to_vec(), [1, 1, 2, 2, 3, 3, 4, 4]);
/// let z: Array<i32, 8> = jnp::repeat(&x, 2, None);
/// assert_eq!(z.to_vec(), [1, 1, 2, 2, 3, 3, 4, 4]);
/// ```
#[track_caller]
pub fn repeat<Out, A>(x: A, repeats: usize, axis: Option<isize>) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let ax = axis.map(|a| shape::normalize_axis("repeat", a, rank));
    let r = eager::call(|l| jax_core::manip::repeat(l, eager::arg(x), repeats, ax));
    eager::typed("repeat", r)
}

/// Repeats the whole array `reps[k]` times along each axis (`jnp.tile`);
/// `reps` shorter than the rank applies to the trailing axes, longer adds
/// leading axes.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 2>::from([1, 2]);
/// let y: Array<i32, 2, 4> = jnp::tile(&x, &[2, 2]);
/// assert_eq!(y.to_vec(), [1, 2, 1, 2, 1, 2, 1, 2]);
/// ```
#[track_caller]
pub fn tile<Out, A>(x: A, reps: &[usize]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let r = eager::call(|l| jax_core::manip::tile(l, eager::arg(x), reps));
    eager::typed("tile", r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Array;

    #[test]
    #[should_panic(expected = "concatenate gives i32[5] but the result type is i32[4]")]
    fn concatenate_wrong_result_type() {
        let a = Array::<i32, 2>::from([1, 2]);
        let b = Array::<i32, 3>::from([3, 4, 5]);
        let _: Array<i32, 4> = concatenate((&a, &b), 0);
    }
}
