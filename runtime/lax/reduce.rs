//! Reductions of the strict layer (`lax.reduce_sum`, `lax.reduce_max`, ...,
//! `lax.argmax`) and the lane machinery every reduction of the crate shares.
//!
//! A reduction over a set of axes views the array as lanes: one lane per
//! element of the result, holding the elements that reduce into it. Lanes
//! along trailing axes are contiguous slices of the data; other axes are
//! moved to the end first (one copy), so every kernel works on plain slices.
//!
//! Float sums use pairwise summation in a fixed order (see [`pairwise_sum`]),
//! with `f16`/`bf16` accumulated in `f32` and rounded once, as XLA does, so
//! results do not depend on the number of threads.

use std::ops::{Add, Div, Mul, Sub};

use crate::array::{ArrayType, AsArray};
use crate::element::{Complex, DType, Element, Int, Value};
use crate::shape;

use crate::array::ElemOf as E;

/// The float type the kernels compute in: `f32` for `f16`, `bf16` and `f32`,
/// `f64` for `f64`. Private to the crate: only the dispatch in
/// [`is_f64`] chooses it.
pub(crate) trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn of<T: Element>(x: T) -> Self;
    fn to<T: Element>(self) -> T;
}

macro_rules! impl_real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline]
            fn of<T: Element>(x: T) -> Self {
                // Exact for every float element and for ints up to 2^53; the
                // conversion into the result dtype happens before this call.
                x.to_f64() as $t
            }
            #[inline]
            fn to<T: Element>(self) -> T {
                T::from_f64(self as f64)
            }
        }
    )*};
}
impl_real!(f32, f64);

/// Whether float results of element type `T` are computed in `f64` (else `f32`).
#[inline]
pub(crate) fn is_f64<T: Element>() -> bool {
    T::DTYPE == DType::F64
}

/// Lanes at most this long are summed left to right.
const PAIRWISE_BLOCK: usize = 32;

/// Pairwise summation: the slice is halved recursively (at `len / 2`) until
/// the pieces have at most 32 elements, which are summed left to right. The
/// order is fixed by the length alone, and the error grows with `log n`
/// rather than `n`.
pub(crate) fn pairwise_sum<C: Real>(x: &[C]) -> C {
    if x.len() <= PAIRWISE_BLOCK {
        let mut s = C::ZERO;
        for &v in x {
            s = s + v;
        }
        s
    } else {
        let (a, b) = x.split_at(x.len() / 2);
        pairwise_sum(a) + pairwise_sum(b)
    }
}

// Used by the reductions here and by `lax`'s other kernels.
pub(crate) use crate::element::{as_i128, is_nan};

/// The sum of a lane in the result type `O`: each element is first converted
/// to `O` (as `jnp.sum` does); floats are summed pairwise in `f32`/`f64`,
/// integers wrap, as XLA's do.
pub(crate) fn sum_lane<T: Element, O: Element>(lane: &[T]) -> O {
    fn float<T: Element, O: Element, C: Real>(lane: &[T]) -> O {
        let v: Vec<C> = lane.iter().map(|&x| C::of(x.cast::<O>())).collect();
        pairwise_sum(&v).to::<O>()
    }
    // Complex addition is per part: the real and imaginary parts are summed
    // as floats of the part type, in the same order.
    fn complex<T: Element, O: Element, C: Real>(lane: &[T]) -> O {
        let z: Vec<Complex<f64>> = lane.iter().map(|&x| x.cast::<O>().cast()).collect();
        let re: Vec<C> = z.iter().map(|c| C::of(c.re)).collect();
        let im: Vec<C> = z.iter().map(|c| C::of(c.im)).collect();
        O::from_parts(pairwise_sum(&re).to::<f64>(), pairwise_sum(&im).to::<f64>())
    }
    if O::DTYPE == DType::C64 {
        complex::<T, O, f32>(lane)
    } else if O::DTYPE == DType::C128 {
        complex::<T, O, f64>(lane)
    } else if O::DTYPE.is_float() {
        if is_f64::<O>() {
            float::<T, O, f64>(lane)
        } else {
            float::<T, O, f32>(lane)
        }
    } else if O::DTYPE == DType::Bool {
        // XLA's add on bool is logical or.
        O::from_value(Value::Bool(lane.iter().any(|&x| x.cast::<bool>())))
    } else {
        // Wrapping in i128 agrees with wrapping in any narrower width.
        let s = lane
            .iter()
            .fold(0i128, |s, &x| s.wrapping_add(as_i128(x.cast::<O>())));
        O::from_value(Value::Int(s))
    }
}

/// The product of a lane in the result type `O` (left to right; integers wrap).
pub(crate) fn prod_lane<T: Element, O: Element>(lane: &[T]) -> O {
    fn float<T: Element, O: Element, C: Real>(lane: &[T]) -> O {
        let mut p = C::ONE;
        for &x in lane {
            p = p * C::of(x.cast::<O>());
        }
        p.to::<O>()
    }
    if O::DTYPE == DType::C64 {
        let p = lane.iter().fold(Complex::<f32>::ONE, |p, &x| {
            crate::ops::AddMul::mul(p, x.cast::<Complex<f32>>())
        });
        O::from_parts(p.re as f64, p.im as f64)
    } else if O::DTYPE == DType::C128 {
        let p = lane.iter().fold(Complex::<f64>::ONE, |p, &x| {
            crate::ops::AddMul::mul(p, x.cast::<Complex<f64>>())
        });
        O::from_parts(p.re, p.im)
    } else if O::DTYPE.is_float() {
        if is_f64::<O>() {
            float::<T, O, f64>(lane)
        } else {
            float::<T, O, f32>(lane)
        }
    } else if O::DTYPE == DType::Bool {
        O::from_value(Value::Bool(lane.iter().all(|&x| x.cast::<bool>())))
    } else {
        let p = lane
            .iter()
            .fold(1i128, |p, &x| p.wrapping_mul(as_i128(x.cast::<O>())));
        O::from_value(Value::Int(p))
    }
}

/// The largest element, NaN if any element is NaN (XLA's `max`).
#[track_caller]
pub(crate) fn max_lane<T: Element + PartialOrd>(op: &str, lane: &[T]) -> T {
    extreme(op, lane, |a, b| a > b, false)
}

/// The smallest element, NaN if any element is NaN (XLA's `min`).
#[track_caller]
pub(crate) fn min_lane<T: Element + PartialOrd>(op: &str, lane: &[T]) -> T {
    extreme(op, lane, |a, b| a < b, true)
}

#[track_caller]
/// Ties between zeros go to `-0` for min (`neg_zero`) and `+0` for max, in
/// any order, as XLA's `min`/`max`.
fn extreme<T: Element + PartialOrd>(
    op: &str,
    lane: &[T],
    better: impl Fn(T, T) -> bool,
    neg_zero: bool,
) -> T {
    let Some(&first) = lane.first() else {
        panic!("{}", jax_dtypes::checks::no_identity(op));
    };
    let mut m = first;
    for &x in &lane[1..] {
        if is_nan(m) {
            break;
        }
        let zero_tie = x == m && x.to_f64() == 0.0 && x.to_f64().is_sign_negative() == neg_zero;
        if is_nan(x) || better(x, m) || zero_tie {
            m = x;
        }
    }
    m
}

/// The index of the first largest (`max = true`) or smallest element; the
/// first NaN counts as the extreme (`lax.argmax`; `jnp.nanargmax` is a
/// composite over it, `jax_core::numeric::arg_reduce`).
#[track_caller]
pub(crate) fn arg_lane<T: Element + PartialOrd>(op: &str, lane: &[T], max: bool) -> i64 {
    if lane.is_empty() {
        panic!("{op}: attempt to get {op} of an empty sequence");
    }
    let mut best: Option<(usize, T)> = None;
    for (i, &x) in lane.iter().enumerate() {
        if is_nan(x) {
            return i as i64;
        }
        match best {
            Some((_, b)) if !(if max { x > b } else { x < b }) => {}
            _ => best = Some((i, x)),
        }
    }
    best.map_or(-1, |(i, _)| i as i64)
}

/// Checks, sorts and deduplicates the axes of a multi-axis reduction.
#[track_caller]
pub(crate) fn normalize_axes(op: &str, axes: &[usize], rank: usize) -> Vec<usize> {
    let mut v = axes.to_vec();
    v.sort_unstable();
    for (k, &a) in v.iter().enumerate() {
        if a >= rank {
            panic!("{op}: axis {a} is out of bounds for array of dimension {rank}");
        }
        if k > 0 && v[k - 1] == a {
            panic!("{op}: duplicate value in 'axes': {axes:?}");
        }
    }
    v
}

/// The shape of a reduction's result: reduced axes dropped, or kept as 1.
pub(crate) fn reduced_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
    (0..shape.len())
        .filter_map(|k| match (axes.contains(&k), keepdims) {
            (false, _) => Some(shape[k]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// The data of an array of `shape` with its axes reordered: axis `k` of the
/// result is axis `perm[k]` of the input (`jnp.transpose(x, perm)`).
pub(crate) fn permute<T: Copy>(data: &[T], shape: &[usize], perm: &[usize]) -> Vec<T> {
    let strides = shape::strides(shape);
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let step: Vec<usize> = perm.iter().map(|&p| strides[p]).collect();
    let mut out = Vec::with_capacity(data.len());
    if data.is_empty() {
        return out;
    }
    let rank = perm.len();
    let mut counter = vec![0usize; rank];
    let mut pos = 0usize;
    for _ in 0..data.len() {
        out.push(data[pos]);
        for k in (0..rank).rev() {
            counter[k] += 1;
            pos += step[k];
            if counter[k] < out_shape[k] {
                break;
            }
            pos -= step[k] * counter[k];
            counter[k] = 0;
        }
    }
    out
}

/// Applies `f` to each lane of `axes` (sorted, unique), in the row-major
/// order of the remaining axes.
pub(crate) fn reduce_lanes<T: Copy, R>(
    data: &[T],
    shape: &[usize],
    axes: &[usize],
    mut f: impl FnMut(&[T]) -> R,
) -> Vec<R> {
    let rank = shape.len();
    let lane_len: usize = axes.iter().map(|&a| shape[a]).product();
    let kept: Vec<usize> = (0..rank).filter(|k| !axes.contains(k)).collect();
    let out_len: usize = kept.iter().map(|&k| shape[k]).product();
    if lane_len == 0 {
        return (0..out_len).map(|_| f(&[])).collect();
    }
    let trailing = axes
        .iter()
        .enumerate()
        .all(|(i, &a)| a == rank - axes.len() + i);
    if trailing {
        data.chunks_exact(lane_len).map(f).collect()
    } else {
        let perm: Vec<usize> = kept.iter().chain(axes).copied().collect();
        permute(data, shape, &perm)
            .chunks_exact(lane_len)
            .map(f)
            .collect()
    }
}

/// Runs a lane kernel over `axes` and checks the caller's result type.
#[track_caller]
fn reduce_to<A: AsArray, Out: ArrayType>(
    op: &str,
    x: A,
    axes: &[usize],
    f: impl FnMut(&[E<A>]) -> Out::Elem,
) -> Out {
    let shape = <A::Array as ArrayType>::SHAPE;
    let axes = normalize_axes(op, axes, shape.len());
    shape::check_result::<Out>(
        op,
        <Out::Elem as Element>::DTYPE,
        &reduced_shape(shape, &axes, false),
    );
    Out::from_data(reduce_lanes(x.as_array().data(), shape, &axes, f))
}

/// Sums over `axes` in the operand's own dtype (`lax.reduce_sum`): integers
/// wrap, `f16`/`bf16` accumulate in `f32`. The result type is chosen by the
/// caller and checked.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i8, 2, 3>::from([[100, 100, 0], [1, 2, 3]]);
/// let s: Array<i8, 2> = lax::reduce_sum(&x, &[1]);
/// assert_eq!(s.to_vec(), [-56, 6]);
/// ```
#[track_caller]
pub fn reduce_sum<A: AsArray, Out: ArrayType<Elem = E<A>>>(x: A, axes: &[usize]) -> Out {
    reduce_to("reduce_sum", x, axes, sum_lane::<E<A>, E<A>>)
}

/// Multiplies over `axes` in the operand's own dtype (`lax.reduce_prod`).
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
/// let p: Array<f32, 2> = lax::reduce_prod(&x, &[0]);
/// assert_eq!(p.to_vec(), [3.0, 8.0]);
/// ```
#[track_caller]
pub fn reduce_prod<A: AsArray, Out: ArrayType<Elem = E<A>>>(x: A, axes: &[usize]) -> Out {
    reduce_to("reduce_prod", x, axes, prod_lane::<E<A>, E<A>>)
}

/// The maximum over `axes` (`lax.reduce_max`); NaN propagates.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 2>::from([[1.0, f32::NAN], [3.0, 4.0]]);
/// let m: Array<f32, 2> = lax::reduce_max(&x, &[1]);
/// assert!(m.to_vec()[0].is_nan());
/// assert_eq!(m.to_vec()[1], 4.0);
/// ```
#[track_caller]
pub fn reduce_max<A: AsArray, Out: ArrayType<Elem = E<A>>>(x: A, axes: &[usize]) -> Out
where
    E<A>: PartialOrd,
{
    reduce_to("reduce_max", x, axes, |l| max_lane("reduce_max", l))
}

/// The minimum over `axes` (`lax.reduce_min`); NaN propagates.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 2, 3>::from([[5, 1, 7], [0, 2, 3]]);
/// let m: Array<i32> = lax::reduce_min(&x, &[0, 1]);
/// assert_eq!(m.item(), 0);
/// ```
#[track_caller]
pub fn reduce_min<A: AsArray, Out: ArrayType<Elem = E<A>>>(x: A, axes: &[usize]) -> Out
where
    E<A>: PartialOrd,
{
    reduce_to("reduce_min", x, axes, |l| min_lane("reduce_min", l))
}

/// The index of the largest element along `axis` (`lax.argmax`): the first
/// on ties, and a NaN counts as the largest. The index dtype is the element
/// type of the result, chosen by the caller.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 3>::from([[1.0, 3.0, 3.0], [f32::NAN, 0.0, 9.0]]);
/// let i: Array<u8, 2> = lax::argmax(&x, 1);
/// assert_eq!(i.to_vec(), [1, 0]);
/// ```
#[track_caller]
pub fn argmax<A: AsArray, Out: ArrayType>(x: A, axis: usize) -> Out
where
    Out::Elem: Int,
    E<A>: PartialOrd,
{
    reduce_to("argmax", x, &[axis], |l| {
        <Out::Elem>::wrap(arg_lane("argmax", l, true) as i128)
    })
}

/// The index of the smallest element along `axis` (`lax.argmin`): the first
/// on ties, and a NaN counts as the smallest.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 4>::from([2, 0, 0, 5]);
/// let i: Array<i32> = lax::argmin(&x, 0);
/// assert_eq!(i.item(), 1);
/// ```
#[track_caller]
pub fn argmin<A: AsArray, Out: ArrayType>(x: A, axis: usize) -> Out
where
    Out::Elem: Int,
    E<A>: PartialOrd,
{
    reduce_to("argmin", x, &[axis], |l| {
        <Out::Elem>::wrap(arg_lane("argmin", l, false) as i128)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Array;

    #[test]
    fn lanes_along_any_axis() {
        // shape [2, 3]: rows 0 1 2 / 3 4 5
        let d = [0, 1, 2, 3, 4, 5];
        let sums = |axes: &[usize]| reduce_lanes(&d, &[2, 3], axes, |l| l.iter().sum::<i32>());
        assert_eq!(sums(&[1]), [3, 12]);
        assert_eq!(sums(&[0]), [3, 5, 7]);
        assert_eq!(sums(&[0, 1]), [15]);
        assert_eq!(sums(&[]), d);
        assert_eq!(
            reduce_lanes(&[0i32; 0], &[0, 3], &[0], |l| l.len()),
            [0, 0, 0]
        );
    }

    #[test]
    fn permute_reverses_axes() {
        let d: Vec<i32> = (0..24).collect();
        let p = permute(&d, &[2, 3, 4], &[2, 1, 0]);
        // out[k][j][i] = in[i][j][k] = 12 i + 4 j + k
        assert_eq!(p[0], 0);
        assert_eq!(p[1], 12);
        assert_eq!(p[2], 4);
        assert_eq!(p[23], 23);
    }

    #[test]
    fn pairwise_sum_is_accurate() {
        // Left to right, 1 + 1e-8 * n loses every small term in f32.
        let mut v = vec![1.0f32];
        v.extend(std::iter::repeat_n(1e-8f32, 1 << 16));
        let s = pairwise_sum(&v);
        assert!((s - (1.0 + 65536.0 * 1e-8)).abs() < 1e-6, "{s}");
    }

    #[test]
    fn half_sums_round_once() {
        // 2048 + 1 + 1 in f16: stepwise rounding would stay at 2048.
        let v = [half::f16::from_f32(2048.0), half::f16::ONE, half::f16::ONE];
        assert_eq!(sum_lane::<_, half::f16>(&v).to_f32(), 2050.0);
    }

    #[test]
    fn integer_sums_and_products_wrap() {
        assert_eq!(sum_lane::<i8, i8>(&[100, 100]), -56);
        assert_eq!(sum_lane::<i8, i32>(&[100, 100]), 200);
        assert_eq!(prod_lane::<u8, u8>(&[16, 16, 3]), 0);
        assert_eq!(sum_lane::<u64, u64>(&[u64::MAX, 2]), 1);
        assert_eq!(sum_lane::<bool, i32>(&[true, true, false]), 2);
    }

    #[test]
    fn arg_lane_rules() {
        let nan = f32::NAN;
        assert_eq!(arg_lane("argmax", &[1.0, nan, 3.0], true), 1);
        assert_eq!(arg_lane("argmin", &[nan, nan], false), 0);
        assert_eq!(arg_lane("argmin", &[2, 1, 1, 0, 0], false), 3);
    }

    #[test]
    #[should_panic(expected = "reduce_sum gives f32[3] but the result type is f32[2]")]
    fn wrong_result_type_panics() {
        let x = Array::<f32, 2, 3>::zeros();
        let _: Array<f32, 2> = reduce_sum(&x, &[0]);
    }
}
