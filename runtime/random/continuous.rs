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
pub(super) fn between<T: Uniform>(y: [u32; 2], lo: T, span: T) -> T {
    let v = T::mul_add(T::unit(y), span, lo);
    // lax.max(minval, v): rounding must not go below minval.
    if v < lo {
        lo
    } else {
        v
    }
}

/// Cost of a transform (a log or `erf_inv`) in `__rt::par::grain` units.
const TRANSFORM_COST: usize = 32;

/// Fills `A` with `f(uniform in [lo, hi))`.
fn map_uniform<A, F>(k: Key, lo: A::Elem, hi: A::Elem, f: F) -> A
where
    A: ArrayType,
    A::Elem: Uniform,
    F: Fn(A::Elem) -> A::Elem + Sync,
{
    let span = A::Elem::sub(hi, lo);
    A::from_data(
        fill!(k, A::SIZE, cost THREEFRY_COST + TRANSFORM_COST, |y| f(
            between(y, lo, span)
        )),
    )
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
    let one = A::Elem::from_f64(1.0);
    let lo = A::Elem::next_toward_inf(A::Elem::from_f64(-1.0), true);
    map_uniform(k, lo, one, A::Elem::scaled_erf_inv)
}

/// `jax.random.exponential(key, shape, dtype)`: samples of the standard
/// exponential distribution (`-log1p(-u)`).
pub fn exponential<A: ArrayType>(k: Key) -> A
where
    A::Elem: Continuous,
{
    map_uniform(k, A::Elem::from_f64(0.0), A::Elem::from_f64(1.0), |u| {
        A::Elem::neg_log1p_neg(u)
    })
}

/// One Gumbel sample from a threefry block. JAX draws `u` in [tiny, 1),
/// but XLA folds the `+ tiny` of that range into the `- 1` that makes the
/// uniform float (`-1 + tiny` rounds to -1), leaving `max(tiny, f - 1)`;
/// the difference shows in f16.
#[inline(always)]
pub(super) fn gumbel_of_block<T: Continuous>(y: [u32; 2]) -> T {
    let u = T::unit(y);
    T::neg_log_neg_log(if u < T::tiny() { T::tiny() } else { u })
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
    type T<A> = <A as ArrayType>::Elem;
    let (lower, upper) = (T::<A>::from_f64(lower), T::<A>::from_f64(upper));
    let a = T::<A>::erf_over_sqrt2(lower);
    let b = T::<A>::erf_over_sqrt2(upper);
    let span = T::<A>::sub(b, a);
    let (lo, hi) = (
        T::<A>::next_toward_inf(lower, true),
        T::<A>::next_toward_inf(upper, false),
    );
    A::from_data(fill!(k, A::SIZE, cost THREEFRY_COST + TRANSFORM_COST, |y| {
        let v = T::<A>::scaled_erf_inv(between(y, a, span));
        // jnp.clip: maximum, then minimum (NaN stays NaN).
        let v = if v < lo { lo } else { v };
        if v > hi {
            hi
        } else {
            v
        }
    }))
}
