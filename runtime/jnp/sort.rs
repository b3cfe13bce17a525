//! Sorting (`jnp.sort`, `jnp.argsort`) in JAX's order: stable, NaNs last,
//! `-0.0` and `0.0` equal (their order kept). The kernel is
//! `__rt::sort`, which jitted code calls too.

use crate::array::{Array, ArrayType, AsArray};
use crate::eager;
use crate::element::ToInexact;
use crate::shape;

use super::IndexInt;

type Same<A, O> = <<A as AsArray>::Array as ArrayType>::WithElem<O>;

pub(crate) use crate::lax::sort_permutation;

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
pub fn sort<A: AsArray>(x: A, axis: isize) -> A::Array
where
    E<A>: PartialOrd,
{
    crate::lax::sort(x, axis)
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
pub fn argsort<A: AsArray>(x: A, axis: isize) -> Same<A, IndexInt>
where
    E<A>: PartialOrd,
{
    let (perm, ax) = sort_permutation("argsort", &x, axis);
    let shape = <A::Array as ArrayType>::SHAPE;
    <Same<A, IndexInt>>::from_data(crate::__rt::sort::lane_positions(&perm, shape, ax))
}

use crate::array::ElemOf as E;

/// A quantile function of the one text (`jax_core::sorting::quantile`)
/// over `axis` (all axes when `None`), run eagerly.
#[track_caller]
fn quantile_of<A: AsArray, Out: ArrayType>(
    name: &'static str,
    x: A,
    which: jax_core::sorting::Quantile,
    axis: Option<isize>,
    keepdims: bool,
) -> Out {
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let axis = axis.map(|a| shape::normalize_axis(name, a, rank));
    let r = eager::call(|l| jax_core::sorting::quantile(l, eager::arg(x), which, axis, keepdims));
    eager::typed(name, r)
}

/// The median of all elements (`jnp.median`): the mean of the two middle
/// ones; NaN if any is NaN.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 4>::from([4.0, 1.0, 3.0, 2.0]);
/// assert_eq!(jnp::median(&x).item(), 2.5);
/// ```
#[track_caller]
pub fn median<A: AsArray>(x: A) -> Array<<E<A> as ToInexact>::Out>
where
    E<A>: ToInexact,
{
    quantile_of(
        "median",
        x,
        jax_core::sorting::Quantile::Median,
        None,
        false,
    )
}

/// [`median`] along one axis; the caller names the result type.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 3>::from([[3.0, 1.0, 2.0], [0.0, 5.0, 1.0]]);
/// let m: Array<f32, 2> = jnp::median_axis(&x, 1, false);
/// assert_eq!(m.to_vec(), [2.0, 1.0]);
/// ```
#[track_caller]
pub fn median_axis<A: AsArray, Out: ArrayType>(x: A, axis: isize, keepdims: bool) -> Out
where
    E<A>: ToInexact<Out = Out::Elem>,
{
    quantile_of(
        "median_axis",
        x,
        jax_core::sorting::Quantile::Median,
        Some(axis),
        keepdims,
    )
}

/// The `q`-th quantile of all elements (`jnp.quantile`, linear
/// interpolation between the two nearest ranks; NaN if any is NaN).
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 5>::from([1.0, 2.0, 3.0, 4.0, 5.0]);
/// assert_eq!(jnp::quantile(&x, 0.25).item(), 2.0);
/// ```
#[track_caller]
pub fn quantile<A: AsArray>(x: A, q: f64) -> Array<<E<A> as ToInexact>::Out>
where
    E<A>: ToInexact,
{
    quantile_of(
        "quantile",
        x,
        jax_core::sorting::Quantile::Quantile(q),
        None,
        false,
    )
}

/// [`quantile`] along one axis; the caller names the result type.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]]);
/// let q: Array<f32, 2> = jnp::quantile_axis(&x, 0.5, 1, false);
/// assert_eq!(q.to_vec(), [2.0, 6.0]);
/// ```
#[track_caller]
pub fn quantile_axis<A: AsArray, Out: ArrayType>(x: A, q: f64, axis: isize, keepdims: bool) -> Out
where
    E<A>: ToInexact<Out = Out::Elem>,
{
    quantile_of(
        "quantile_axis",
        x,
        jax_core::sorting::Quantile::Quantile(q),
        Some(axis),
        keepdims,
    )
}

/// The `p`-th percentile of all elements (`jnp.percentile`): the quantile
/// at `p / 100`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 5>::from([1.0, 2.0, 3.0, 4.0, 5.0]);
/// assert_eq!(jnp::percentile(&x, 75.0).item(), 4.0);
/// ```
#[track_caller]
pub fn percentile<A: AsArray>(x: A, p: f64) -> Array<<E<A> as ToInexact>::Out>
where
    E<A>: ToInexact,
{
    quantile_of(
        "percentile",
        x,
        jax_core::sorting::Quantile::Percentile(p),
        None,
        false,
    )
}

/// [`percentile`] along one axis; the caller names the result type.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]]);
/// let p: Array<f32, 2> = jnp::percentile_axis(&x, 50.0, 1, false);
/// assert_eq!(p.to_vec(), [2.0, 6.0]);
/// ```
#[track_caller]
pub fn percentile_axis<A: AsArray, Out: ArrayType>(x: A, p: f64, axis: isize, keepdims: bool) -> Out
where
    E<A>: ToInexact<Out = Out::Elem>,
{
    quantile_of(
        "percentile_axis",
        x,
        jax_core::sorting::Quantile::Percentile(p),
        Some(axis),
        keepdims,
    )
}

/// The `n`-th discrete difference along `axis` (`jnp.diff`): `x[1:] -
/// x[:-1]`, `n` times (`!=` for bool; integers wrap). The caller names the
/// result type, `n` shorter along `axis`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 4>::from([1, 4, 9, 16]);
/// let d: Array<i32, 3> = jnp::diff(&x, 1, 0);
/// assert_eq!(d.to_vec(), [3, 5, 7]);
/// let d2: Array<i32, 2> = jnp::diff(&x, 2, -1);
/// assert_eq!(d2.to_vec(), [2, 2]);
/// ```
#[track_caller]
pub fn diff<A: AsArray, Out: ArrayType<Elem = E<A>>>(x: A, n: usize, axis: isize) -> Out {
    let rank = <A::Array as ArrayType>::SHAPE.len();
    if rank == 0 {
        panic!("diff requires input that is at least one dimensional");
    }
    let ax = shape::normalize_axis("diff", axis, rank);
    let r = eager::call(|l| jax_core::sorting::diff(l, eager::arg(x), n, ax));
    eager::typed("diff", r)
}

/// Where each of `v` would go in the sorted 1-D `a` to keep it sorted
/// (`jnp.searchsorted`): with `side = "left"` the number of elements of `a`
/// before it, with `"right"` the number not after it, in sort's order (NaN
/// last), as int32. Computed as JAX's `method='compare_all'` (jitted code
/// too), which for a sorted `a` gives the same indices as the default
/// binary search.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 4>::from([1.0, 2.0, 2.0, 3.0]);
/// let v = Array::<f32, 3>::from([2.0, 0.0, 9.0]);
/// assert_eq!(jnp::searchsorted(&a, &v, "left").to_vec(), [1, 0, 4]);
/// assert_eq!(jnp::searchsorted(&a, &v, "right").to_vec(), [3, 0, 4]);
/// ```
#[track_caller]
pub fn searchsorted<A: AsArray, V: AsArray>(a: A, v: V, side: &str) -> Same<V, i32>
where
    E<A>: crate::element::Promote<E<V>>,
    <E<A> as crate::element::Promote<E<V>>>::Out: PartialOrd,
{
    let right = match side {
        "left" => false,
        "right" => true,
        other => panic!("searchsorted: side must be \"left\" or \"right\", got {other:?}"),
    };
    let r =
        eager::call(|l| jax_core::sorting::searchsorted(l, eager::arg(a), eager::arg(v), right));
    eager::typed("searchsorted", r)
}
