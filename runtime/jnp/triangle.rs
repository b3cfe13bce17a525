//! Diagonals and triangles of matrices: `jnp.diag`, `diagonal`, `trace`,
//! `tril`, `triu`, with NumPy's offsets (`k > 0` above the main diagonal):
//! each the one text of `jax_core::indexing` (which jitted bodies trace)
//! run eagerly. A result shape that depends on an offset is checked when
//! the call runs.

use crate::array::{ArrayType, AsArray};
use crate::eager;
use crate::element::SumType;

/// The element type of an array argument.
use crate::array::ElemOf;

/// The lower triangle: elements above the `k`-th diagonal set to zero, over
/// the last two axes (`jnp.tril(x, k)`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// assert_eq!(jnp::tril(&x, 0).to_vec(), [0, 0, 0, 3, 4, 0]);
/// assert_eq!(jnp::tril(&x, 1).to_vec(), [0, 1, 0, 3, 4, 5]);
/// ```
#[track_caller]
pub fn tril<A: AsArray>(x: A, k: isize) -> A::Array {
    let r = eager::call(|l| jax_core::indexing::tril_triu(l, eager::arg(x), k as i128, false));
    eager::typed("tril", r)
}

/// The upper triangle: elements below the `k`-th diagonal set to zero, over
/// the last two axes (`jnp.triu(x, k)`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// assert_eq!(jnp::triu(&x, 0).to_vec(), [0, 1, 2, 0, 4, 5]);
/// assert_eq!(jnp::triu(&x, -1).to_vec(), [0, 1, 2, 3, 4, 5]);
/// ```
#[track_caller]
pub fn triu<A: AsArray>(x: A, k: isize) -> A::Array {
    let r = eager::call(|l| jax_core::indexing::tril_triu(l, eager::arg(x), k as i128, true));
    eager::typed("triu", r)
}

/// The `offset`-th diagonal over `axis1` and `axis2`, as the last axis after
/// the others (`jnp.diagonal(x, offset, axis1, axis2)`). The result type is
/// checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 3, 3> = Array::arange();
/// let d: Array<f32, 3> = jnp::diagonal(&x, 0, 0, 1);
/// assert_eq!(d.to_vec(), [0.0, 4.0, 8.0]);
/// let d: Array<f32, 2> = jnp::diagonal(&x, -1, 0, 1);
/// assert_eq!(d.to_vec(), [3.0, 7.0]);
/// ```
#[track_caller]
pub fn diagonal<Out, A>(x: A, offset: isize, axis1: isize, axis2: isize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let (o, a1, a2) = (offset as i128, axis1 as i128, axis2 as i128);
    let r = eager::call(|l| jax_core::indexing::diagonal(l, eager::arg(x), o, a1, a2));
    eager::typed("diagonal", r)
}

/// The sum of the `offset`-th diagonal over `axis1` and `axis2`
/// (`jnp.trace(x, offset, axis1, axis2)`) in [`SumType`]'s dtype, as
/// `jnp.sum`; the other axes remain. The result type is checked when the
/// call runs.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 3, 3> = Array::arange();
/// let t: Array<DefaultInt> = jnp::trace(&x, 0, 0, 1); // i64 under x64, as JAX
/// assert_eq!(t.item(), 12);
/// let t: Array<DefaultInt> = jnp::trace(&x, 1, 0, 1);
/// assert_eq!(t.item(), 6);
/// ```
#[track_caller]
pub fn trace<Out, A>(x: A, offset: isize, axis1: isize, axis2: isize) -> Out
where
    A: AsArray,
    ElemOf<A>: SumType,
    Out: ArrayType<Elem = <ElemOf<A> as SumType>::Out>,
{
    let (o, a1, a2) = (offset as i128, axis1 as i128, axis2 as i128);
    let r = eager::call(|l| jax_core::indexing::trace(l, eager::arg(x), o, a1, a2));
    eager::typed("trace", r)
}

/// `jnp.diag(x, k)`: of a vector, the square matrix with `x` on its `k`-th
/// diagonal; of a matrix, its `k`-th diagonal. The result type is checked
/// when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let m: Array<i32, 3, 3> = jnp::diag(Array::<i32, 2>::from([1, 2]), 1);
/// assert_eq!(m.to_vec(), [0, 1, 0, 0, 0, 2, 0, 0, 0]);
/// let d: Array<i32, 2> = jnp::diag(&m, 1);
/// assert_eq!(d.to_vec(), [1, 2]);
/// ```
#[track_caller]
pub fn diag<Out, A>(x: A, k: isize) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let r = eager::call(|l| jax_core::indexing::diag(l, eager::arg(x), k as i128));
    eager::typed("diag", r)
}
