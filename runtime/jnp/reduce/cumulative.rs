//! Operations along one axis that keep the shape: cumulative sums, products,
//! maxima and minima, `softmax` and `log_softmax`.

use crate::array::{impl_array, Array, ArrayType, AsArray};
use crate::eager;
use crate::element::{Element, ToInexact, Value};
use crate::lax::{as_i128, is_nan};
use crate::shape;

use crate::array::ElemOf as E;
type Same<A, O> = <<A as AsArray>::Array as ArrayType>::WithElem<O>;

/// The element type of `jnp.cumsum`/`jnp.cumprod`: bool counts in the default
/// int (`i32`, `i64` with the `x64` feature), every other type keeps its own
/// (`cumsum` of `i8` is `i8`, unlike `sum`).
pub trait CumType: Element {
    /// The result element type.
    type Out: Element;
}

macro_rules! cum_same {
    ($($t:ty),*) => {$( impl CumType for $t { type Out = $t; } )*};
}
cum_same!(
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    half::bf16,
    half::f16,
    f32,
    f64
);
impl CumType for bool {
    type Out = super::IndexInt;
}

/// A running combination in the result type: floats round to `O` after each
/// step (an `f64` operation on two narrower floats rounds exactly once),
/// integers wrap.
fn scan<T: Element, O: Element>(
    lane: &[T],
    out: &mut [O],
    float: fn(f64, f64) -> f64,
    int: fn(i128, i128) -> i128,
) {
    let mut acc: Option<O> = None;
    for (&x, o) in lane.iter().zip(out.iter_mut()) {
        let x = x.cast::<O>();
        let next = match acc {
            None => x,
            Some(a) if O::DTYPE.is_float() => O::from_f64(float(a.to_f64(), x.to_f64())),
            Some(a) => O::from_value(Value::Int(int(as_i128(a), as_i128(x)))),
        };
        *o = next;
        acc = Some(next);
    }
}

fn running_extreme<T: Element + PartialOrd>(lane: &[T], out: &mut [T], max: bool) {
    let mut acc: Option<T> = None;
    for (&x, o) in lane.iter().zip(out.iter_mut()) {
        let next = match acc {
            Some(a) if is_nan(a) => a,
            Some(a) if !is_nan(x) && !(if max { x > a } else { x < a }) => a,
            _ => x,
        };
        *o = next;
        acc = Some(next);
    }
}

/// The longest lane a reverse cumulative sum or product folds each
/// output's window in index order, as XLA does for short lanes (longer
/// lanes run from the end; XLA's own order there is a tree).
const WINDOW_ORDER_MAX: usize = 32;

/// The cumulative reduction `op` (`cumsum`, `cumprod`, `cummax`, `cummin`)
/// of row-major `x` of `shape` along `axis`, in the element type, from the
/// end when `reverse`: the kernel of the jitted primitives.
pub(crate) fn cumulative_lanes<T: Element + PartialOrd>(
    op: &str,
    x: &[T],
    shape: &[usize],
    axis: usize,
    reverse: bool,
) -> Vec<T> {
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = vec![T::ZERO; x.len()];
    let mut lane = Vec::with_capacity(n);
    let mut res = vec![T::ZERO; n];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * n + k) * inner + i;
            let pos = |k: usize| if reverse { at(n - 1 - k) } else { at(k) };
            if reverse && n <= WINDOW_ORDER_MAX && matches!(op, "cumsum" | "cumprod") {
                // XLA sums each output's window in index order (its
                // reduce_window), which for a reverse scan is not the
                // running sum from the end.
                for i in 0..n {
                    lane.clear();
                    lane.extend((i..n).map(|k| x[at(k)]));
                    match op {
                        "cumsum" => {
                            scan(&lane, &mut res[..n - i], |a, b| a + b, i128::wrapping_add)
                        }
                        _ => scan(&lane, &mut res[..n - i], |a, b| a * b, i128::wrapping_mul),
                    }
                    out[at(i)] = res[n - i - 1];
                }
                continue;
            }
            lane.clear();
            lane.extend((0..n).map(|k| x[pos(k)]));
            match op {
                "cumsum" => scan(&lane, &mut res, |a, b| a + b, i128::wrapping_add),
                "cumprod" => scan(&lane, &mut res, |a, b| a * b, i128::wrapping_mul),
                "cummax" => running_extreme(&lane, &mut res, true),
                _ => running_extreme(&lane, &mut res, false),
            }
            for (k, &r) in res.iter().enumerate() {
                out[pos(k)] = r;
            }
        }
    }
    out
}

/// Cumulative sum along `axis` (`jnp.cumsum`); the dtype is kept (bool
/// counts in the default int) and integers wrap.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 2, 3>::from([[1, 2, 3], [4, 5, 6]]);
/// assert_eq!(jnp::cumsum(&x, 1).to_vec(), [1, 3, 6, 4, 9, 15]);
/// assert_eq!(x.cumsum(0).to_vec(), [1, 2, 3, 5, 7, 9]);
/// ```
#[track_caller]
pub fn cumsum<A: AsArray>(x: A, axis: isize) -> Same<A, <E<A> as CumType>::Out>
where
    E<A>: CumType,
{
    cumulative_of("cumsum", x, axis)
}

/// Cumulative product along `axis` (`jnp.cumprod`).
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 4>::from([1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(jnp::cumprod(&x, 0).to_vec(), [1.0, 2.0, 6.0, 24.0]);
/// ```
#[track_caller]
pub fn cumprod<A: AsArray>(x: A, axis: isize) -> Same<A, <E<A> as CumType>::Out>
where
    E<A>: CumType,
{
    cumulative_of("cumprod", x, axis)
}

/// Running maximum along `axis` (`lax.cummax`); NaN propagates.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 4>::from([1, 3, 2, 5]);
/// assert_eq!(jnp::cummax(&x, 0).to_vec(), [1, 3, 3, 5]);
/// ```
#[track_caller]
pub fn cummax<A: AsArray>(x: A, axis: isize) -> Same<A, E<A>>
where
    E<A>: PartialOrd,
{
    cumulative_of("cummax", x, axis)
}

/// Running minimum along `axis` (`lax.cummin`); NaN propagates.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 4>::from([3, 1, 2, 0]);
/// assert_eq!(jnp::cummin(&x, -1).to_vec(), [3, 1, 1, 0]);
/// ```
#[track_caller]
pub fn cummin<A: AsArray>(x: A, axis: isize) -> Same<A, E<A>>
where
    E<A>: PartialOrd,
{
    cumulative_of("cummin", x, axis)
}

/// `jnp.cumsum` and its kin: the one text (`jax_core::sorting::cumulative`)
/// on the kernel jitted code calls.
#[track_caller]
fn cumulative_of<A: AsArray, Out: ArrayType>(name: &'static str, x: A, axis: isize) -> Out {
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let ax = shape::normalize_axis(name, axis, rank);
    let r = eager::call(|l| jax_core::sorting::cumulative(l, name, eager::arg(x), ax));
    eager::typed(name, r)
}

/// `exp(x) / sum(exp(x))` along `axis` (`jax.nn.softmax`), computed stably:
/// the maximum is subtracted first. Integer inputs give [`ToInexact`]'s dtype;
/// a `+inf` input gives NaNs, as in JAX.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2>::from([1000.0, 1000.0]);
/// assert_eq!(jnp::softmax(&x, -1).to_vec(), [0.5, 0.5]);
/// ```
#[track_caller]
pub fn softmax<A: AsArray>(x: A, axis: isize) -> Same<A, <E<A> as ToInexact>::Out>
where
    E<A>: ToInexact,
{
    softmax_of("softmax", x, axis, false)
}

/// `x - logsumexp(x)` along `axis` (`jax.nn.log_softmax`), computed stably.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2>::from([0.0, 0.0]);
/// assert_eq!(jnp::log_softmax(&x, 0).to_vec(), [-(2f32.ln()), -(2f32.ln())]);
/// ```
#[track_caller]
pub fn log_softmax<A: AsArray>(x: A, axis: isize) -> Same<A, <E<A> as ToInexact>::Out>
where
    E<A>: ToInexact,
{
    softmax_of("log_softmax", x, axis, true)
}

/// `jax.nn.softmax` or `log_softmax` of `x` along `axis`: the one text
/// (`jax_core::jnp::softmax`) run as a unit, by blocks of rows.
#[track_caller]
fn softmax_of<A: AsArray>(
    name: &'static str,
    x: A,
    axis: isize,
    log: bool,
) -> Same<A, <E<A> as ToInexact>::Out>
where
    E<A>: ToInexact,
{
    let shape = <A::Array as ArrayType>::SHAPE;
    let ax = shape::normalize_axis(name, axis, shape.len());
    let x = eager::unit::Input::of(&x);
    let r = eager::call(|_| {
        eager::unit::along_axis(name, &format!("log={log}"), x, ax, &|t, x, axis| {
            jax_core::jnp::softmax(t, x, axis, log)
        })
    });
    eager::typed(name, r)
}

impl_array! {
    impl<T: Element> Array<T, ..> {
        /// Cumulative sum along `axis`: [`jnp::cumsum`](crate::jnp::cumsum) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<i32, 2, 3>::from([[1, 2, 3], [4, 5, 6]]);
        /// assert_eq!(x.cumsum(1).to_vec(), [1, 3, 6, 4, 9, 15]);
        /// assert_eq!(x.cumsum(0).to_vec(), [1, 2, 3, 5, 7, 9]);
        /// ```
        #[track_caller]
        pub fn cumsum(&self, axis: isize) -> Array<<T as CumType>::Out, D0, D1, D2, D3, D4, D5>
        where
            T: CumType,
        {
            cumsum(self, axis)
        }

        /// Cumulative product along `axis`: [`jnp::cumprod`](crate::jnp::cumprod) as a method.
        ///
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
        /// assert_eq!(x.cumprod(-1).to_vec(), [1.0, 2.0, 3.0, 12.0]);
        /// ```
        #[track_caller]
        pub fn cumprod(&self, axis: isize) -> Array<<T as CumType>::Out, D0, D1, D2, D3, D4, D5>
        where
            T: CumType,
        {
            cumprod(self, axis)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::f16;

    #[test]
    fn cumulative_dtypes_and_wrapping() {
        let b = Array::<bool, 3>::from([true, false, true]);
        assert_eq!(cumsum(&b, 0).to_vec(), [1, 1, 2]);
        assert_eq!(cumprod(&b, 0).to_vec(), [1, 0, 0]);
        let i = Array::<i8, 2>::from([100, 100]);
        assert_eq!(cumsum(&i, 0).to_vec(), [100, -56]);
        let h = Array::<f16, 3>::from([f16::from_f32(2048.0), f16::ONE, f16::ONE]);
        // Each step rounds to f16: 2048 + 1 = 2048 (ties to even), twice.
        assert_eq!(cumsum(&h, 0).to_vec(), [f16::from_f32(2048.0); 3]);
    }

    #[test]
    fn running_extremes_propagate_nan() {
        let x = Array::<f32, 4>::from([1.0, f32::NAN, 3.0, 0.0]);
        let m = cummax(&x, 0).to_vec();
        assert_eq!(m[0], 1.0);
        assert!(m[1..].iter().all(|v| v.is_nan()));
    }

    #[test]
    fn softmax_along_the_first_axis() {
        let x = Array::<f32, 2, 2>::from([[0.0, 5.0], [0.0, 5.0]]);
        assert_eq!(softmax(&x, 0).to_vec(), [0.5; 4]);
        let i = Array::<i32, 2>::from([7, 7]);
        let p: Array<f32, 2> = softmax(&i, 0);
        assert_eq!(p.to_vec(), [0.5, 0.5]);
        let inf = Array::<f32, 2>::from([f32::INFINITY, 0.0]);
        assert!(softmax(&inf, 0).to_vec()[0].is_nan());
    }
}
