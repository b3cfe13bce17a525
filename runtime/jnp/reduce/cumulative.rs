//! Operations along one axis that keep the shape: cumulative sums, products,
//! maxima and minima, `softmax` and `log_softmax`.

use crate::array::{impl_array, Array, ArrayType, AsArray};
use crate::eager;
use crate::element::{Element, ToInexact};
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
