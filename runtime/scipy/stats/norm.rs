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

use jax_core::ir::Scalar;

use crate::array::AsArray;
use crate::element::Float;
use crate::ops::Numeric;

use crate::array::ElemOf as E;

/// `jax_core::stats::norm`'s function `name` of `x`, eagerly, with `loc`
/// and `scale` as weakly typed numbers (`None`: the standard normal).
#[track_caller]
fn eager<A: AsArray>(name: &'static str, x: A, loc_scale: Option<(f64, f64)>) -> A::Array {
    let statics = match loc_scale {
        Some((loc, scale)) => format!("loc={} scale={}", loc.to_bits(), scale.to_bits()),
        None => String::new(),
    };
    crate::nn::eager_unary(name, &statics, &x, &|t, x| {
        let loc_scale = loc_scale.map(|(loc, scale)| {
            let mut number = |v| jax_core::jnp::weak_literal(t, Scalar::Float(v));
            (number(loc), number(scale))
        });
        jax_core::stats::norm(t, name, x, loc_scale)
    })
}

/// The standard normal density `e^(-x²/2) / √(2π)`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::pdf(Array::<f32, 1>::from([0.0]));
/// assert!((y.item() - 0.3989423).abs() < 1e-7);
/// ```
#[track_caller]
pub fn pdf<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("pdf", x, None)
}

/// The normal density with mean `loc` and standard deviation `scale`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::pdf_with(Array::<f32, 1>::from([1.0]), 1.0, 2.0);
/// assert!((y.item() - 0.19947115).abs() < 1e-7);
/// ```
#[track_caller]
pub fn pdf_with<A: AsArray>(x: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("pdf", x, Some((loc, scale)))
}

/// The log of the standard normal density.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::logpdf(Array::<f32, 1>::from([0.0]));
/// assert!((y.item() + 0.9189385).abs() < 1e-6);
/// ```
#[track_caller]
pub fn logpdf<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("logpdf", x, None)
}

/// The log of the normal density with mean `loc` and standard deviation `scale`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::logpdf_with(Array::<f32, 1>::from([3.0]), 3.0, 1.0);
/// assert!((y.item() + 0.9189385).abs() < 1e-6);
/// ```
#[track_caller]
pub fn logpdf_with<A: AsArray>(x: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("logpdf", x, Some((loc, scale)))
}

/// The standard normal cumulative distribution function.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::cdf(Array::<f32, 2>::from([0.0, f32::INFINITY]));
/// assert_eq!(y.to_vec(), [0.5, 1.0]);
/// ```
#[track_caller]
pub fn cdf<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("cdf", x, None)
}

/// The normal CDF with mean `loc` and standard deviation `scale`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::cdf_with(Array::<f32, 1>::from([2.0]), 2.0, 5.0);
/// assert_eq!(y.to_vec(), [0.5]);
/// ```
#[track_caller]
pub fn cdf_with<A: AsArray>(x: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("cdf", x, Some((loc, scale)))
}

/// The log of the standard normal CDF, accurate far into the lower tail.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::logcdf(Array::<f32, 2>::from([0.0, -20.0]));
/// assert_eq!(y.to_vec()[0], 0.5f32.ln());
/// assert!((y.to_vec()[1] + 203.917).abs() < 1e-2);
/// ```
#[track_caller]
pub fn logcdf<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("logcdf", x, None)
}

/// The log of the normal CDF with mean `loc` and standard deviation `scale`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::logcdf_with(Array::<f32, 1>::from([2.0]), 2.0, 3.0);
/// assert_eq!(y.to_vec(), [0.5f32.ln()]);
/// ```
#[track_caller]
pub fn logcdf_with<A: AsArray>(x: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("logcdf", x, Some((loc, scale)))
}

/// The standard normal quantile function, the inverse of [`cdf`].
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::ppf(Array::<f32, 3>::from([0.5, 0.0, 1.0]));
/// assert_eq!(y.to_vec(), [0.0, f32::NEG_INFINITY, f32::INFINITY]);
/// ```
#[track_caller]
pub fn ppf<A: AsArray>(q: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("ppf", q, None)
}

/// The quantile function of the normal distribution with mean `loc` and
/// standard deviation `scale`: `ndtri(q) * scale + loc`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::ppf_with(Array::<f32, 1>::from([0.5]), 1.0, 2.0);
/// assert_eq!(y.to_vec(), [1.0]);
/// ```
#[track_caller]
pub fn ppf_with<A: AsArray>(q: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    eager("ppf", q, Some((loc, scale)))
}
