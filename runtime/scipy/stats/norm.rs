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
use crate::array::AsArray;
use crate::element::Float;
use crate::nn::lit;
use crate::ops::{map_same, Numeric};

use crate::array::ElemOf as E;

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

/// `(lower, upper)` segment bounds of JAX's `log_ndtr` for `T`.
fn log_ndtr_segments<T: Float>() -> (f64, f64) {
    if T::DTYPE == crate::DType::F64 {
        (-20.0, 8.0)
    } else {
        (-10.0, 5.0)
    }
}

/// `jax.scipy.special.log_ndtr` (series order 3): `-ndtr(-x)` above the
/// upper segment, `log(ndtr(x))` in between, the asymptotic series below.
#[inline]
pub(crate) fn log_ndtr<T: Float + Numeric>(x: T) -> T {
    let (lo, hi) = log_ndtr_segments::<T>();
    let (lower, upper): (T, T) = (lit(lo), lit(hi));
    let above = x > upper;
    let arg = if above { o::neg(x) } else { o::max(x, lower) };
    let r = ndtr(arg);
    if above {
        o::neg(r)
    } else if x > lower {
        o::log(r)
    } else {
        let x = o::min(x, lower);
        let x2 = o::mul(x, x);
        let log_scale = o::sub(
            o::sub(o::mul(lit(-0.5), x2), o::log(o::neg(x))),
            lit(0.5 * (2.0 * std::f64::consts::PI).ln()),
        );
        // 1 + 3/x⁴ - 1/x² - 15/x⁶, summed as JAX's loop does.
        let x4 = o::mul(x2, x2);
        let x6 = o::mul(x4, x2);
        let odd = o::add(o::div(T::ONE, x2), o::div(lit(15.0), x6));
        let even = o::div(lit(3.0), x4);
        let series = o::sub(o::add(T::ONE, even), odd);
        o::add(log_scale, o::log(series))
    }
}

/// Horner's rule from the highest coefficient, as `jnp.polyval`.
#[inline]
fn polyval<T: Float + Numeric>(p: &[f64], x: T) -> T {
    p.iter().fold(T::ZERO, |y, &c| o::add(o::mul(y, x), lit(c)))
}

/// Cephes' coefficients of `ndtri`, as JAX's `_ndtri` uses them.
pub(crate) const NDTRI_P0: [f64; 5] = [
    -5.996_335_010_141_079e1,
    9.800_107_541_859_997e1,
    -5.667_628_574_690_703e1,
    1.393_126_093_872_796_8e1,
    -1.239_165_838_673_812_6,
];
pub(crate) const NDTRI_Q0: [f64; 9] = [
    1.0,
    1.954_488_583_381_417_6,
    4.676_279_128_988_815,
    8.636_024_213_908_906e1,
    -2.254_626_878_541_193_7e2,
    2.002_602_123_800_606_6e2,
    -8.203_722_561_683_334e1,
    1.590_562_251_262_117e1,
    -1.183_316_211_213_3,
];
pub(crate) const NDTRI_P1: [f64; 9] = [
    4.055_448_923_059_624_5,
    3.152_510_945_998_938_6e1,
    5.716_281_922_464_213e1,
    4.408_050_738_932_008e1,
    1.468_495_619_288_580_2e1,
    2.186_633_068_507_902_7,
    -1.402_560_791_713_545e-1,
    -3.504_246_268_278_482e-2,
    -8.574_567_851_546_854e-4,
];
pub(crate) const NDTRI_Q1: [f64; 9] = [
    1.0,
    1.577_998_832_564_667_4e1,
    4.539_076_351_288_792e1,
    4.131_720_382_546_72e1,
    1.504_253_856_929_075e1,
    2.504_649_462_083_094,
    -1.421_829_228_547_877_9e-1,
    -3.808_064_076_915_783e-2,
    -9.332_594_808_954_574e-4,
];
pub(crate) const NDTRI_P2: [f64; 9] = [
    3.237_748_917_769_460_4,
    6.915_228_890_689_842,
    3.938_810_252_924_744_4,
    1.333_034_608_158_075_5,
    2.014_853_895_491_790_8e-1,
    1.237_166_348_178_200_2e-2,
    3.015_815_535_082_354e-4,
    2.658_069_746_867_375_6e-6,
    6.239_745_391_849_833e-9,
];
pub(crate) const NDTRI_Q2: [f64; 9] = [
    1.0,
    6.024_270_393_647_42,
    3.679_835_638_561_608_7,
    1.377_020_994_890_813_3,
    2.162_369_935_944_966_3e-1,
    1.342_040_060_885_431_9e-2,
    3.280_144_646_821_277_4e-4,
    2.892_478_647_453_806_8e-6,
    6.790_194_080_099_813e-9,
];

/// `jax.scipy.special.ndtri`: the inverse of the standard normal CDF, with
/// Cephes' rational approximations in JAX's arrangement.
#[inline]
pub(crate) fn ndtri<T: Float + Numeric>(p: T) -> T {
    let e2 = (-2.0f64).exp();
    let maybe_complement = if p > lit(-(-2.0f64).exp_m1()) {
        o::sub(T::ONE, p)
    } else {
        p
    };
    let s = if maybe_complement == T::ZERO {
        lit(0.5)
    } else {
        maybe_complement
    };
    let w = o::sub(s, lit(0.5));
    let ww = o::mul(w, w);
    let ratio = o::div(polyval(&NDTRI_P0, ww), polyval(&NDTRI_Q0, ww));
    let big = o::add(w, o::mul(o::mul(w, ww), ratio));
    let big = o::mul(big, lit(-(2.0 * std::f64::consts::PI).sqrt()));
    let z = o::sqrt(o::mul(lit(-2.0), o::log(s)));
    let first = o::sub(z, o::div(o::log(z), z));
    let iz = o::div(T::ONE, z);
    let tail = |pn: &[f64], qn: &[f64]| o::div(o::div(polyval(pn, iz), polyval(qn, iz)), z);
    let x = if s > lit(e2) {
        big
    } else if z >= lit(8.0) {
        o::sub(first, tail(&NDTRI_P2, &NDTRI_Q2))
    } else {
        o::sub(first, tail(&NDTRI_P1, &NDTRI_Q1))
    };
    let x = if p > lit(1.0 - e2) { x } else { o::neg(x) };
    if p == T::ZERO {
        T::NEG_INFINITY
    } else if p == T::ONE {
        T::INFINITY
    } else {
        x
    }
}

/// The log of the standard normal CDF, accurate far into the lower tail.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::logcdf(Array::<f32, 2>::from([0.0, -20.0]));
/// assert_eq!(y.to_vec()[0], 0.5f32.ln());
/// assert!((y.to_vec()[1] + 203.917).abs() < 1e-2);
/// ```
pub fn logcdf<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    map_same(x.as_array(), log_ndtr)
}

/// The log of the normal CDF with mean `loc` and standard deviation `scale`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::logcdf_with(Array::<f32, 1>::from([2.0]), 2.0, 3.0);
/// assert_eq!(y.to_vec(), [0.5f32.ln()]);
/// ```
pub fn logcdf_with<A: AsArray>(x: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let (loc, scale): (E<A>, E<A>) = (lit(loc), lit(scale));
    map_same(x.as_array(), |x| log_ndtr(o::div(o::sub(x, loc), scale)))
}

/// The standard normal quantile function, the inverse of [`cdf`].
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::ppf(Array::<f32, 3>::from([0.5, 0.0, 1.0]));
/// assert_eq!(y.to_vec(), [0.0, f32::NEG_INFINITY, f32::INFINITY]);
/// ```
pub fn ppf<A: AsArray>(q: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    ppf_with(q, 0.0, 1.0)
}

/// The quantile function of the normal distribution with mean `loc` and
/// standard deviation `scale`: `ndtri(q) * scale + loc`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::stats::norm::ppf_with(Array::<f32, 1>::from([0.5]), 1.0, 2.0);
/// assert_eq!(y.to_vec(), [1.0]);
/// ```
pub fn ppf_with<A: AsArray>(q: A, loc: f64, scale: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let (loc, scale): (E<A>, E<A>) = (lit(loc), lit(scale));
    map_same(q.as_array(), |q| o::add(o::mul(ndtri(q), scale), loc))
}
