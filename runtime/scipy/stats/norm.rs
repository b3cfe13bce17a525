//! `jax.scipy.stats.norm`: the normal distribution's `pdf`, `logpdf` and
//! `cdf`, standard (`pdf(x)`) or with a location and scale
//! (`pdf_with(x, loc, scale)`, JAX's keyword arguments), as JAX computes them.
//!
//! ```
//! use jax::prelude::*;
//! use jax::scipy::stats::norm;
//!
//! let x = Array::<f32, 1>::from([0.0]);
//! assert_eq!(norm::cdf(&x).to_vec(), [0.5]);
//! ```

use crate::__rt::ops as o;
use crate::array::{ArrayType, AsArray};
use crate::element::Float;
use crate::nn::lit;
use crate::ops::{map_same, Numeric};

type E<A> = <<A as AsArray>::Array as ArrayType>::Elem;

/// `lax.special.ndtr`: the standard normal CDF, through `erf` near 0 and
/// `erfc` in the tails.
#[inline]
pub(crate) fn ndtr<T: Float + Numeric>(x: T) -> T {
    let half_sqrt_2: T = lit(0.5 * 2f64.sqrt());
    let w = o::mul(x, half_sqrt_2);
    let z = o::abs(w);
    let y = if z < half_sqrt_2 {
        o::add(lit(1.0), o::erf(w))
    } else if w > T::ZERO {
        o::sub(lit(2.0), o::erfc(z))
    } else {
        o::erfc(z)
    };
    o::mul(lit(0.5), y)
}

#[inline]
fn logpdf_scalar<T: Float + Numeric>(x: T, loc: T, scale: T) -> T {
    let ss = o::mul(scale, scale);
    let log_norm = o::log(o::mul(lit(2.0 * std::f64::consts::PI), ss));
    let d = o::sub(x, loc);
    let quad = o::div(o::mul(d, d), ss);
    o::div(o::add(log_norm, quad), lit(-2.0))
}

/// The standard normal density `e^(-x²/2) / √(2π)`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::pdf(Array::<f32, 1>::from([0.0]));
/// assert!((y.item() - 0.3989423).abs() < 1e-7);
/// ```
pub fn pdf<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    pdf_with(x, 0.0, 1.0)
}

/// The normal density with mean `loc` and standard deviation `scale`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::pdf_with(Array::<f32, 1>::from([1.0]), 1.0, 2.0);
/// assert!((y.item() - 0.19947115).abs() < 1e-7);
/// ```
pub fn pdf_with<A: AsArray>(x: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let (loc, scale) = (lit(loc), lit(scale));
    map_same(x.as_array(), |x| o::exp(logpdf_scalar(x, loc, scale)))
}

/// The log of the standard normal density.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::logpdf(Array::<f32, 1>::from([0.0]));
/// assert!((y.item() + 0.9189385).abs() < 1e-6);
/// ```
pub fn logpdf<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    logpdf_with(x, 0.0, 1.0)
}

/// The log of the normal density with mean `loc` and standard deviation `scale`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::logpdf_with(Array::<f32, 1>::from([3.0]), 3.0, 1.0);
/// assert!((y.item() + 0.9189385).abs() < 1e-6);
/// ```
pub fn logpdf_with<A: AsArray>(x: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let (loc, scale) = (lit(loc), lit(scale));
    map_same(x.as_array(), |x| logpdf_scalar(x, loc, scale))
}

/// The standard normal cumulative distribution function.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::cdf(Array::<f32, 2>::from([0.0, f32::INFINITY]));
/// assert_eq!(y.to_vec(), [0.5, 1.0]);
/// ```
pub fn cdf<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    map_same(x.as_array(), ndtr)
}

/// The normal CDF with mean `loc` and standard deviation `scale`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::cdf_with(Array::<f32, 1>::from([2.0]), 2.0, 5.0);
/// assert_eq!(y.to_vec(), [0.5]);
/// ```
pub fn cdf_with<A: AsArray>(x: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let (loc, scale): (E<A>, E<A>) = (lit(loc), lit(scale));
    map_same(x.as_array(), |x| ndtr(o::div(o::sub(x, loc), scale)))
}
