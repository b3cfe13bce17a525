//! Sorting (`jnp.sort`, `jnp.argsort`) in JAX's order: stable, NaNs last,
//! `-0.0` and `0.0` equal (their order kept). The kernel is
//! `__rt::sort`, which jitted code calls too.

use crate::array::{Array, ArrayType, AsArray};
use crate::element::{Element, ToInexact};
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

/// `v` rounded to `O` (JAX's scalar arithmetic in the array's float type).
fn round<O: Element>(v: f64) -> f64 {
    O::from_f64(v).to_f64()
}

/// How the two ranks around a quantile combine.
#[derive(Clone, Copy)]
enum Interpolation {
    Linear,
    Midpoint,
}

/// One lane's quantile, as `jnp.quantile` computes it: NaN if the lane has
/// one; otherwise the sorted lane's ranks `floor` and `ceil` of
/// `q * (n - 1)`, weighted in `O`'s arithmetic.
fn quantile_lane<T: Element, O: Element>(lane: &[T], q: f64, how: Interpolation) -> O {
    let n = lane.len();
    let v: Vec<f64> = lane.iter().map(|&x| x.cast::<O>().to_f64()).collect();
    if v.iter().any(|x| x.is_nan()) || n == 0 {
        return O::from_f64(f64::NAN);
    }
    let mut sorted = v;
    sorted.sort_by(|a, b| crate::__rt::sort::total_cmp(*a, *b));
    let m = round::<O>(q * round::<O>((n - 1) as f64));
    let clamp = |r: f64| r.clamp(0.0, (n - 1) as f64) as usize;
    let (lo, hi) = (sorted[clamp(m.floor())], sorted[clamp(m.ceil())]);
    let out = match how {
        Interpolation::Linear => {
            let hi_w = round::<O>(m - m.floor());
            let lo_w = round::<O>(1.0 - hi_w);
            round::<O>(round::<O>(lo * lo_w) + round::<O>(hi * hi_w))
        }
        Interpolation::Midpoint => round::<O>(round::<O>(lo + hi) * 0.5),
    };
    O::from_f64(out)
}

#[track_caller]
fn check_q(op: &str, q: f64) {
    assert!(
        (0.0..=1.0).contains(&q),
        "{op}: q must be in [0, 1] (in [0, 100] for percentile), got {q}"
    );
}

#[track_caller]
fn quantile_all<A: AsArray>(
    op: &str,
    x: A,
    q: f64,
    how: Interpolation,
) -> Array<<E<A> as ToInexact>::Out>
where
    E<A>: ToInexact,
{
    check_q(op, q);
    let v = quantile_lane::<E<A>, <E<A> as ToInexact>::Out>(x.as_array().data(), q, how);
    Array::from_vec_unchecked(vec![v])
}

#[track_caller]
fn quantile_along<A: AsArray, Out: ArrayType>(
    op: &str,
    x: A,
    q: f64,
    axis: isize,
    keepdims: bool,
    how: Interpolation,
) -> Out
where
    E<A>: ToInexact<Out = Out::Elem>,
{
    check_q(op, q);
    let shape = <A::Array as ArrayType>::SHAPE;
    let axes = [shape::normalize_axis(op, axis, shape.len())];
    let out_shape = crate::lax::reduced_shape(shape, &axes, keepdims);
    shape::check_result::<Out>(op, <Out::Elem as Element>::DTYPE, &out_shape);
    Out::from_data(crate::lax::reduce_lanes(
        x.as_array().data(),
        shape,
        &axes,
        |lane| quantile_lane::<E<A>, Out::Elem>(lane, q, how),
    ))
}

/// `q` as JAX's jaxpr computes it: rounded to the array's float type (a
/// percentile divided by 100 in that type).
fn q_in<O: Element>(q: f64, percent: bool) -> f64 {
    let q = round::<O>(q);
    if percent {
        round::<O>(q / 100.0)
    } else {
        q
    }
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
    quantile_all("median", x, 0.5, Interpolation::Midpoint)
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
    quantile_along(
        "median_axis",
        x,
        0.5,
        axis,
        keepdims,
        Interpolation::Midpoint,
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
    let q = q_in::<<E<A> as ToInexact>::Out>(q, false);
    quantile_all("quantile", x, q, Interpolation::Linear)
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
    let q = q_in::<Out::Elem>(q, false);
    quantile_along("quantile_axis", x, q, axis, keepdims, Interpolation::Linear)
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
    let q = q_in::<<E<A> as ToInexact>::Out>(p, true);
    quantile_all("percentile", x, q, Interpolation::Linear)
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
    let q = q_in::<Out::Elem>(p, true);
    quantile_along(
        "percentile_axis",
        x,
        q,
        axis,
        keepdims,
        Interpolation::Linear,
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
    let mut shape = <A::Array as ArrayType>::SHAPE.to_vec();
    if shape.is_empty() {
        panic!("diff requires input that is at least one dimensional");
    }
    let ax = shape::normalize_axis("diff", axis, shape.len());
    let mut data = x.as_array().data().to_vec();
    for _ in 0..n {
        let len = shape[ax];
        if len == 0 {
            break;
        }
        let inner: usize = shape[ax + 1..].iter().product();
        let outer: usize = shape[..ax].iter().product();
        let mut next = Vec::with_capacity(outer * (len - 1) * inner);
        for o in 0..outer {
            for k in 1..len {
                for i in 0..inner {
                    let hi = data[(o * len + k) * inner + i];
                    let lo = data[(o * len + k - 1) * inner + i];
                    next.push(difference(hi, lo));
                }
            }
        }
        data = next;
        shape[ax] = len - 1;
    }
    shape::check_result::<Out>("diff", <E<A> as Element>::DTYPE, &shape);
    Out::from_data(data)
}

/// `a - b` as `lax.sub` computes it (integers wrap), `a != b` for bool.
fn difference<T: Element>(a: T, b: T) -> T {
    use crate::element::{Complex, Value};
    if T::DTYPE.kind() == crate::element::DType::C64.kind() {
        // Per part, in f64: exact before the one rounding to the part type.
        let (a, b) = (a.cast::<Complex<f64>>(), b.cast::<Complex<f64>>());
        return T::from_parts(a.re - b.re, a.im - b.im);
    }
    match (a.to_value(), b.to_value()) {
        (Value::Bool(x), Value::Bool(y)) => T::from_value(Value::Bool(x != y)),
        (Value::Int(x), Value::Int(y)) => T::from_value(Value::Int(x.wrapping_sub(y))),
        _ => T::from_f64(a.to_f64() - b.to_f64()),
    }
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
    if <A::Array as ArrayType>::SHAPE.len() != 1 {
        panic!("searchsorted: a should be 1-dimensional");
    }

    let a: Vec<<E<A> as crate::element::Promote<E<V>>>::Out> =
        a.as_array().data().iter().map(|&x| x.cast()).collect();
    let out: Vec<i32> = v
        .as_array()
        .data()
        .iter()
        .map(|&y| {
            let y: <E<A> as crate::element::Promote<E<V>>>::Out = y.cast();
            a.iter()
                .filter(|&&x| {
                    let o = crate::__rt::sort::total_cmp(x, y);
                    if right {
                        o.is_le()
                    } else {
                        o.is_lt()
                    }
                })
                .count() as i32
        })
        .collect();
    <Same<V, i32>>::from_data(out)
}
