//! Samplers that transform uniform floats: `normal`, `exponential`,
//! `gumbel`, `truncated_normal`. Each is JAX's formula with XLA's kernels
//! (`xla.rs`); half-width floats compute each transcendental step in f32 and
//! round after it, as JAX lowers them.

use half::{bf16, f16};

use super::uniform::Uniform;
use super::{fill, xla, Key, THREEFRY_COST};
use crate::array::ArrayType;

/// Float types the continuous samplers can fill.
pub trait Continuous: Uniform {
    /// `sqrt(2) * erf_inv(u)`, the last step of `normal`.
    fn scaled_erf_inv(u: Self) -> Self;
    /// `-log1p(-u)`, the last step of `exponential`.
    fn neg_log1p_neg(u: Self) -> Self;
    /// `-log(-log(u))`, the last step of `gumbel`.
    fn neg_log_neg_log(u: Self) -> Self;
    /// `erf(x / sqrt(2))`: a bound of `truncated_normal` in uniform space.
    fn erf_over_sqrt2(x: Self) -> Self;
    /// `log(x)`.
    fn log(x: Self) -> Self;
    /// The smallest positive normal number (`finfo.tiny`).
    fn tiny() -> Self;
    /// `lax.nextafter(x, +inf)` (`up`) or `lax.nextafter(x, -inf)`.
    fn next_toward_inf(x: Self, up: bool) -> Self;
}

/// The neighbour of a float given by its bits, toward +inf or -inf.
fn next_bits(bits: u64, sign_bit: u64, up: bool, is_nan: bool, is_inf_away: bool) -> u64 {
    if is_nan || is_inf_away {
        return bits;
    }
    let magnitude = bits & !sign_bit;
    let negative = bits & sign_bit != 0;
    if magnitude == 0 {
        // ±0 steps to the smallest subnormal of the direction's sign.
        return if up { 1 } else { sign_bit | 1 };
    }
    if up != negative {
        bits + 1
    } else {
        bits - 1
    }
}

macro_rules! next_toward_inf {
    ($t:ty, $bits:ty) => {
        #[inline(always)]
        fn next_toward_inf(x: $t, up: bool) -> $t {
            let sign_bit = 1u64 << (<$bits>::BITS - 1);
            let at_end = if up {
                x == <$t>::INFINITY
            } else {
                x == <$t>::NEG_INFINITY
            };
            <$t>::from_bits(
                next_bits(x.to_bits() as u64, sign_bit, up, x.is_nan(), at_end) as $bits,
            )
        }
    };
}

impl Continuous for f32 {
    #[inline(always)]
    fn scaled_erf_inv(u: f32) -> f32 {
        xla::erf_inv_f32(u) * std::f32::consts::SQRT_2
    }
    #[inline(always)]
    fn neg_log1p_neg(u: f32) -> f32 {
        -xla::log1p_f32(-u)
    }
    #[inline(always)]
    fn neg_log_neg_log(u: f32) -> f32 {
        -xla::log_f32(-xla::log_f32(u))
    }
    #[inline(always)]
    fn erf_over_sqrt2(x: f32) -> f32 {
        // XLA divides by a constant as a multiply by its reciprocal.
        xla::erf_f32(x * (1.0 / std::f32::consts::SQRT_2))
    }
    #[inline(always)]
    fn log(x: f32) -> f32 {
        xla::log_f32(x)
    }
    #[inline(always)]
    fn tiny() -> f32 {
        f32::MIN_POSITIVE
    }
    next_toward_inf!(f32, u32);
}

impl Continuous for f64 {
    #[inline(always)]
    fn scaled_erf_inv(u: f64) -> f64 {
        xla::erf_inv_f64(u) * std::f64::consts::SQRT_2
    }
    #[inline(always)]
    fn neg_log1p_neg(u: f64) -> f64 {
        -xla::log1p_f64(-u)
    }
    #[inline(always)]
    fn neg_log_neg_log(u: f64) -> f64 {
        -xla::log_f64(-xla::log_f64(u))
    }
    #[inline(always)]
    fn erf_over_sqrt2(x: f64) -> f64 {
        xla::erf_f64(x * (1.0 / std::f64::consts::SQRT_2))
    }
    #[inline(always)]
    fn log(x: f64) -> f64 {
        xla::log_f64(x)
    }
    #[inline(always)]
    fn tiny() -> f64 {
        f64::MIN_POSITIVE
    }
    next_toward_inf!(f64, u64);
}

/// Half-width floats: each transcendental in f32, rounded once after it.
macro_rules! continuous_half {
    ($t:ty) => {
        impl Continuous for $t {
            #[inline(always)]
            fn scaled_erf_inv(u: $t) -> $t {
                let e = <$t>::from_f32(xla::erf_inv_f32(u.to_f32()));
                let sqrt2 = <$t>::from_f64(std::f64::consts::SQRT_2);
                <$t>::from_f32(e.to_f32() * sqrt2.to_f32())
            }
            #[inline(always)]
            fn neg_log1p_neg(u: $t) -> $t {
                -<$t>::from_f32(xla::log1p_f32(-u.to_f32()))
            }
            #[inline(always)]
            fn neg_log_neg_log(u: $t) -> $t {
                let inner = -<$t>::from_f32(xla::log_f32(u.to_f32()));
                -<$t>::from_f32(xla::log_f32(inner.to_f32()))
            }
            #[inline(always)]
            fn erf_over_sqrt2(x: $t) -> $t {
                let sqrt2 = <$t>::from_f64(std::f64::consts::SQRT_2);
                let scaled = <$t>::from_f32(x.to_f32() / sqrt2.to_f32());
                <$t>::from_f32(xla::erf_f32(scaled.to_f32()))
            }
            #[inline(always)]
            fn log(x: $t) -> $t {
                <$t>::from_f32(xla::log_f32(x.to_f32()))
            }
            #[inline(always)]
            fn tiny() -> $t {
                <$t>::MIN_POSITIVE
            }
            next_toward_inf!($t, u16);
        }
    };
}

continuous_half!(f16);
continuous_half!(bf16);

/// `minval + unit * (maxval - minval)`, at least `minval`: JAX's uniform
/// between two bounds of the sample's type.
#[inline(always)]
pub(crate) fn between<T: Uniform>(y: [u32; 2], lo: T, span: T) -> T {
    let v = T::mul_add(T::unit(y), span, lo);
    // lax.max(minval, v): rounding must not go below minval.
    if v < lo {
        lo
    } else {
        v
    }
}

/// Cost of a transform (a log or `erf_inv`) in `__rt::par::grain` units.
pub(crate) const TRANSFORM_COST: usize = 32;

// Each sampler below is a function of one threefry block, shared by eager
// calls (through `fill!`) and jitted code (`__rt::random`), so both give
// the same bits.

/// One `normal` sample: `sqrt(2) * erf_inv(u)`, `u` uniform in
/// [nextafter(-1, 0), 1).
#[inline(always)]
pub(crate) fn normal_of_block<T: Continuous>(y: [u32; 2]) -> T {
    let lo = T::next_toward_inf(<T as Uniform>::from_f64(-1.0), true);
    let span = T::sub(<T as Uniform>::from_f64(1.0), lo);
    T::scaled_erf_inv(between(y, lo, span))
}

/// One `exponential` sample: `-log1p(-u)`, `u` uniform in [0, 1).
#[inline(always)]
pub(crate) fn exponential_of_block<T: Continuous>(y: [u32; 2]) -> T {
    T::neg_log1p_neg(T::unit(y))
}

/// One Gumbel sample from a threefry block. JAX draws `u` in [tiny, 1),
/// but XLA folds the `+ tiny` of that range into the `- 1` that makes the
/// uniform float (`-1 + tiny` rounds to -1), leaving `max(tiny, f - 1)`;
/// the difference shows in f16.
#[inline(always)]
pub(crate) fn gumbel_of_block<T: Continuous>(y: [u32; 2]) -> T {
    let u = T::unit(y);
    T::neg_log_neg_log(if u < T::tiny() { T::tiny() } else { u })
}

/// `truncated_normal`'s bounds, in uniform space and as clipping limits.
#[derive(Clone, Copy)]
pub(crate) struct Truncation<T> {
    a: T,
    span: T,
    lo: T,
    hi: T,
}

impl<T: Continuous> Truncation<T> {
    #[inline(always)]
    pub(crate) fn new(lower: f64, upper: f64) -> Self {
        let (lower, upper) = (
            <T as Uniform>::from_f64(lower),
            <T as Uniform>::from_f64(upper),
        );
        let (a, b) = (T::erf_over_sqrt2(lower), T::erf_over_sqrt2(upper));
        Truncation {
            a,
            span: T::sub(b, a),
            lo: T::next_toward_inf(lower, true),
            hi: T::next_toward_inf(upper, false),
        }
    }

    /// One sample: a normal sample of the uniform range [a, b), clipped
    /// (`jnp.clip`: maximum, then minimum; NaN stays NaN).
    #[inline(always)]
    pub(crate) fn sample(self, y: [u32; 2]) -> T {
        let v = T::scaled_erf_inv(between(y, self.a, self.span));
        let v = if v < self.lo { self.lo } else { v };
        if v > self.hi {
            self.hi
        } else {
            v
        }
    }
}

/// `jax.random.normal(key, shape, dtype)`: standard normal samples, the
/// shape and dtype from the result type (`sqrt(2) * erf_inv(u)` for `u`
/// uniform in (-1, 1)).
///
/// ```
/// let z: jax::Array<f32, 3> = jax::random::normal(jax::random::key(0));
/// assert_eq!(z.to_vec()[0], 1.6226422);
/// ```
pub fn normal<A: ArrayType>(k: Key) -> A
where
    A::Elem: Continuous,
{
    if let Some(v) = super::fills::normal(k, A::SIZE) {
        return A::from_data(v);
    }
    A::from_data(fill!(k, A::SIZE, cost THREEFRY_COST + TRANSFORM_COST, |y| {
        normal_of_block(y)
    }))
}

/// `jax.random.exponential(key, shape, dtype)`: samples of the standard
/// exponential distribution (`-log1p(-u)`).
pub fn exponential<A: ArrayType>(k: Key) -> A
where
    A::Elem: Continuous,
{
    A::from_data(fill!(k, A::SIZE, cost THREEFRY_COST + TRANSFORM_COST, |y| {
        exponential_of_block(y)
    }))
}

/// `jax.random.gumbel(key, shape, dtype)`: samples of the standard Gumbel
/// distribution (`-log(-log(u))`, `u` in [tiny, 1)).
pub fn gumbel<A: ArrayType>(k: Key) -> A
where
    A::Elem: Continuous,
{
    A::from_data(fill!(k, A::SIZE, cost THREEFRY_COST + TRANSFORM_COST, |y| {
        gumbel_of_block(y)
    }))
}

/// `jax.random.truncated_normal(key, lower, upper, shape, dtype)`: normal
/// samples inside (lower, upper), bounds included only as limits (either may
/// be infinite).
///
/// ```
/// let z: jax::Array<f32, 100> = jax::random::truncated_normal(jax::random::key(0), -1.0, 2.0);
/// assert!(z.to_vec().iter().all(|&v| -1.0 < v && v < 2.0));
/// ```
pub fn truncated_normal<A: ArrayType>(k: Key, lower: f64, upper: f64) -> A
where
    A::Elem: Continuous,
{
    let t = Truncation::<A::Elem>::new(lower, upper);
    A::from_data(fill!(k, A::SIZE, cost THREEFRY_COST + TRANSFORM_COST, |y| {
        t.sample(y)
    }))
}
