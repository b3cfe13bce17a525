//! `sin` and `cos`: range reduction by pi/2 (a short path for moderate
//! arguments, Payne-Hanek bits of 2/pi for huge ones) and polynomial kernels.

#![allow(clippy::excessive_precision)]

use super::*;

/// Bits 1..256 of the binary fraction of 2/pi (2/pi = 0.1010 0010 1111...).
const TWO_OVER_PI: [u64; 4] = [
    0xa2f9_836e_4e44_1529,
    0xfc27_57d1_f534_ddc0,
    0xdb62_9599_3c43_9041,
    0xfe51_63ab_debb_c561,
];

/// Reduces |x| (a finite f32 as f64) to `r` in about [-pi/4, pi/4] and the
/// quadrant `k` (mod 4) with |x| = k pi/2 + r.
///
/// Small arguments use musl's `__rem_pio2f` (n = round(|x| 2/pi) and a 33+53
/// bit split of pi/2, all in f64); arguments from 2^28 pi/2 up use a
/// branch-free Payne-Hanek reduction: |x| = m 2^E with a 24-bit integer m, and
/// only the 128 bits of 2/pi from position E - 1 on matter modulo 4, read from
/// the four constant words above with shifts and selects (no indexed load).
/// Both are computed and one is selected.
#[inline(always)]
fn rem_pio2_f32(ax: f32) -> (f64, u32) {
    let (r_med, k_med) = rem_pio2_medium_f32(ax);

    // Large arguments: x = m 2^e2.
    let bits = ax.to_bits();
    let m = ((bits & 0x007f_ffff) | 0x0080_0000) as u64;
    let e2 = ((bits >> 23) & 0xff) as i32 - 150;
    // The window starts at bit e2 - 1 of 2/pi (bit 1 is the first after the
    // point); bits before it contribute multiples of 4. Clamped so that the
    // (unused) small-argument lanes still read a valid window.
    let j = (e2 - 2).clamp(0, 127) as u32; // 0-based offset of the window
    let word = j >> 6;
    let sh = j & 63;
    let w0 = if word == 0 {
        TWO_OVER_PI[0]
    } else {
        TWO_OVER_PI[1]
    };
    let w1 = if word == 0 {
        TWO_OVER_PI[1]
    } else {
        TWO_OVER_PI[2]
    };
    let w2 = if word == 0 {
        TWO_OVER_PI[2]
    } else {
        TWO_OVER_PI[3]
    };
    // `(b >> 1) >> (63 - sh)` is `b >> (64 - sh)` without the shift by 64.
    let hi = (w0 << sh) | ((w1 >> 1) >> (63 - sh));
    let lo = (w1 << sh) | ((w2 >> 1) >> (63 - sh));
    // q = top 64 bits of (m * (hi:lo)) mod 2^128: |x| 2/pi mod 4 = q 2^-62.
    let lo_hi = (m * (lo >> 32)) + ((m * (lo & 0xffff_ffff)) >> 32);
    let q = m.wrapping_mul(hi).wrapping_add(lo_hi >> 32);
    // Round to the nearest quadrant; the remainder is a signed fraction.
    let qr = q.wrapping_add(1 << 61);
    let k_big = (qr >> 62) as u32;
    let f = q.wrapping_sub(qr & (3 << 62)) as i64;
    let r_big = i64_to_f64(f) * (core::f64::consts::FRAC_PI_2 / 4611686018427387904.0); // 2^62

    if ax >= MEDIUM_LIMIT_F32 {
        (r_big, k_big)
    } else {
        (r_med, k_med)
    }
}

/// The f32 arguments from which [`rem_pio2_f32`] needs its large-argument
/// reduction: 2^28 pi/2.
const MEDIUM_LIMIT_F32: f32 = 421657428.0;

/// [`rem_pio2_f32`] for |x| below [`MEDIUM_LIMIT_F32`] (musl's
/// `__rem_pio2f`): n = round(|x| 2/pi) and a 33+53 bit split of pi/2.
#[inline(always)]
fn rem_pio2_medium_f32(ax: f32) -> (f64, u32) {
    let xd = ax as f64;
    let t = xd * core::f64::consts::FRAC_2_PI + SHIFT_F64;
    let n = t - SHIFT_F64;
    let r = xd - n * 1.57079631090164184570e+00 - n * 1.58932547735281966916e-08;
    (r, t.to_bits() as u32)
}

/// `x as f64`, from its two 32-bit halves: both convert exactly and their
/// sum rounds once, so the result is the same; unlike `as`, the halves'
/// conversions vectorize without AVX-512DQ (`as` went lane by lane, and was
/// most of the time of an f32 `sin` loop).
#[inline(always)]
fn i64_to_f64(x: i64) -> f64 {
    let hi = (x >> 32) as i32;
    let lo = x as u32;
    hi as f64 * 4294967296.0 + lo as f64
}

/// sin r for |r| <= pi/4 + a little, in f64 with enough accuracy for an f32
/// result (musl's `__sindf` minimax coefficients).
#[inline(always)]
fn sin_kernel_f32(r: f64) -> f64 {
    let z = r * r;
    let w = z * z;
    let s = z * r;
    let a = -0.166666666416265235595 + z * 0.0083333293858894631756;
    let b = -0.000198393348360966317347 + z * 0.0000027183114939898219064;
    r + s * a + s * w * b
}

/// cos r for |r| <= pi/4 + a little (musl's `__cosdf` coefficients).
#[inline(always)]
fn cos_kernel_f32(r: f64) -> f64 {
    let z = r * r;
    let w = z * z;
    let a = 1.0 + z * -0.499999997251031003120;
    let b = w * 0.0416666233237390631894;
    let c = w * z * (-0.00138867637746099294692 + z * 0.0000243904487962774090654);
    a + b + c
}

/// `sin x` in f32. XLA calls a vectorized routine (YNNPACK's); this follows
/// musl: the argument reduction of `rem_pio2_f32` (exact for every f32,
/// including the largest), then minimax polynomials for sin and cos on
/// [-pi/4, pi/4] evaluated in f64 and rounded once.
///
/// Max error: 1 ULP (exhaustive over all f32).
///
/// ```
/// use jax::math::sin_f32;
/// assert_eq!(sin_f32(0.0), 0.0);
/// assert!((sin_f32(std::f32::consts::FRAC_PI_2) - 1.0).abs() < 1e-7);
/// assert!((sin_f32(1e6) - 1e6f64.sin() as f32).abs() < 1e-6);
/// assert!(sin_f32(f32::INFINITY).is_nan());
/// ```
#[inline(always)]
pub fn sin_f32(x: f32) -> f32 {
    let (r, k) = rem_pio2_f32(x.abs());
    sin_from_f32(x, r, k)
}

/// sin x from the reduction |x| = k pi/2 + r.
#[inline(always)]
fn sin_from_f32(x: f32, r: f64, k: u32) -> f32 {
    let s = sin_kernel_f32(r);
    let c = cos_kernel_f32(r);
    let v = if k & 1 == 0 { s } else { c };
    let v = if k & 2 == 0 { v } else { -v };
    let v = if x < 0.0 { -v } else { v };
    // sin(±0) = ±0 and sin of a subnormal is itself.
    let v = if x.abs() < 1e-30 { x as f64 } else { v };
    if x.is_finite() {
        v as f32
    } else {
        f32::NAN
    }
}

/// cos x from the reduction |x| = k pi/2 + r.
#[inline(always)]
fn cos_from_f32(x: f32, r: f64, k: u32) -> f32 {
    let s = sin_kernel_f32(r);
    let c = cos_kernel_f32(r);
    let v = if k & 1 == 0 { c } else { s };
    let v = if (k + 1) & 2 == 0 { v } else { -v };
    if x.is_finite() {
        v as f32
    } else {
        f32::NAN
    }
}

/// `(sin x, cos x)` as [`sincos_f32`] where |x| < 2^28 pi/2, where the
/// medium reduction alone is exact; beyond, the values are wrong and `wide`
/// is set. For loops run in blocks: a block whose `wide` ends up set is
/// computed again with [`sincos_f32`]. The large-argument reduction, computed
/// for every lane and then discarded, was half of the cost of `sin`.
///
/// ```
/// use jax::math::{sincos_f32, sincos_near_f32};
/// let mut wide = false;
/// for x in [0.0f32, -0.0, 1.0, -2.5, 1e6, 4e8, f32::NAN, f32::INFINITY] {
///     let (s, c) = sincos_near_f32(x, &mut wide);
///     assert_eq!((s.to_bits(), c.to_bits()), (sincos_f32(x).0.to_bits(), sincos_f32(x).1.to_bits()));
/// }
/// assert!(!wide);
/// sincos_near_f32(1e9, &mut wide);
/// assert!(wide);
/// ```
#[inline(always)]
pub fn sincos_near_f32(x: f32, wide: &mut bool) -> (f32, f32) {
    let ax = x.abs();
    // Not for infinities: their result is NaN either way.
    *wide |= ax >= MEDIUM_LIMIT_F32 && ax.is_finite();
    let (r, k) = rem_pio2_medium_f32(ax);
    (sin_from_f32(x, r, k), cos_from_f32(x, r, k))
}

/// `cos x` in f32, as [`sin_f32`].
///
/// Max error: 1 ULP (exhaustive over all f32).
///
/// ```
/// use jax::math::cos_f32;
/// assert_eq!(cos_f32(0.0), 1.0);
/// assert!((cos_f32(std::f32::consts::PI) + 1.0).abs() < 1e-7);
/// assert!(cos_f32(f32::NAN).is_nan());
/// ```
#[inline(always)]
pub fn cos_f32(x: f32) -> f32 {
    let (r, k) = rem_pio2_f32(x.abs());
    cos_from_f32(x, r, k)
}

/// `(sin x, cos x)` in f32 with one argument reduction: the same bits as
/// [`sin_f32`] and [`cos_f32`] (both already evaluate both polynomials and
/// select), for a loop that needs both, as the derivative of `sin(x) * x`.
///
/// ```
/// use jax::math::{cos_f32, sin_f32, sincos_f32};
/// for x in [0.0f32, -0.0, 1.0, -2.5, 1e6, f32::MAX, f32::NAN] {
///     let (s, c) = sincos_f32(x);
///     assert_eq!(s.to_bits(), sin_f32(x).to_bits());
///     assert_eq!(c.to_bits(), cos_f32(x).to_bits());
/// }
/// ```
#[inline(always)]
pub fn sincos_f32(x: f32) -> (f32, f32) {
    let (r, k) = rem_pio2_f32(x.abs());
    (sin_from_f32(x, r, k), cos_from_f32(x, r, k))
}

/// fdlibm's `__kernel_sin(x, y)`: sin(x + y) for |x| <= pi/4, y a tail.
#[inline(always)]
fn sin_kernel_f64(x: f64, y: f64) -> f64 {
    let z = x * x;
    let v = z * x;
    let r = 8.33333333332248946124e-03
        + z * (-1.98412698298579493134e-04
            + z * (2.75573137070700676789e-06
                + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
    x - ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01)
}

/// fdlibm's `__kernel_cos(x, y)`: cos(x + y) for |x| <= pi/4, y a tail.
#[inline(always)]
fn cos_kernel_f64(x: f64, y: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = z
        * (4.16666666666666019037e-02
            + z * (-1.38888888888741095749e-03 + z * 2.48015872894767294178e-05))
        + w * w
            * (-2.75573143513906633035e-07
                + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * r - x * y))
}

/// Largest |x| reduced without a call: n = round(x 2/pi) < 2^20, so n times
/// each 33-bit part of pi/2 is exact.
const SIN_F64_FAST_LIMIT: f64 = 1647099.0; // about 2^20 pi/2

/// Reduces x (|x| < [`SIN_F64_FAST_LIMIT`]) to r_hi + r_lo in [-pi/4, pi/4]
/// and the quadrant: fdlibm's three-part Cody-Waite split of pi/2.
#[inline(always)]
fn rem_pio2_f64(x: f64) -> (f64, f64, u64) {
    let t = x * core::f64::consts::FRAC_2_PI + SHIFT_F64;
    let n = t - SHIFT_F64;
    let a = x - n * 1.57079632673412561417e+00; // exact
    let b = n * 6.07710050630396597660e-11; // exact
    let hi = a - b;
    let err = (a - hi) - b;
    let lo = err - n * 2.02226624879595063154e-21;
    let r = hi + lo;
    let lo = lo - (r - hi);
    (r, lo, t.to_bits())
}

/// The slow path for huge arguments: musl's reduction through libm. Kept out
/// of line so that the fast path stays small.
#[cold]
#[inline(never)]
fn sin_cos_f64_huge(x: f64, cos: bool) -> f64 {
    if cos {
        libm::cos(x)
    } else {
        libm::sin(x)
    }
}

/// `sin x` in f64: fdlibm's kernels after a three-part Cody-Waite reduction
/// for |x| < 1.6e6; larger arguments take a cold branch to libm's Payne-Hanek
/// reduction (so a loop over f64 sin does not vectorize; f32 has no such
/// branch).
///
/// Max error: 1 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::sin_f64;
/// assert_eq!(sin_f64(0.0), 0.0);
/// assert!((sin_f64(std::f64::consts::FRAC_PI_6) - 0.5).abs() < 1e-15);
/// assert!((sin_f64(1e10) - 1e10f64.sin()).abs() < 1e-15);
/// ```
#[inline(always)]
pub fn sin_f64(x: f64) -> f64 {
    // NaN takes the fast path, which returns NaN.
    if x.abs() >= SIN_F64_FAST_LIMIT {
        return sin_cos_f64_huge(x, false);
    }
    let (hi, lo, k) = rem_pio2_f64(x);
    let s = sin_kernel_f64(hi, lo);
    let c = cos_kernel_f64(hi, lo);
    let v = if k & 1 == 0 { s } else { c };
    let v = if k & 2 == 0 { v } else { -v };
    // Keeps sin(-0) = -0 and subnormals exact.
    if x.abs() < 1e-300 {
        x
    } else {
        v
    }
}

/// `cos x` in f64, as [`sin_f64`].
///
/// Max error: 1 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::cos_f64;
/// assert_eq!(cos_f64(0.0), 1.0);
/// assert!((cos_f64(std::f64::consts::FRAC_PI_3) - 0.5).abs() < 1e-15);
/// assert!(cos_f64(f64::INFINITY).is_nan());
/// ```
#[inline(always)]
pub fn cos_f64(x: f64) -> f64 {
    // NaN takes the fast path, which returns NaN.
    if x.abs() >= SIN_F64_FAST_LIMIT {
        return sin_cos_f64_huge(x, true);
    }
    let (hi, lo, k) = rem_pio2_f64(x);
    let s = sin_kernel_f64(hi, lo);
    let c = cos_kernel_f64(hi, lo);
    let v = if k & 1 == 0 { c } else { s };
    if (k.wrapping_add(1)) & 2 == 0 {
        v
    } else {
        -v
    }
}

/// `(sin x, cos x)` in f64 with one argument reduction: the same bits as
/// [`sin_f64`] and [`cos_f64`].
///
/// ```
/// use jax::math::{cos_f64, sin_f64, sincos_f64};
/// for x in [0.0f64, -0.0, 1.0, -2.5, 1e6, 1e300, f64::NAN] {
///     let (s, c) = sincos_f64(x);
///     assert_eq!(s.to_bits(), sin_f64(x).to_bits());
///     assert_eq!(c.to_bits(), cos_f64(x).to_bits());
/// }
/// ```
#[inline(always)]
pub fn sincos_f64(x: f64) -> (f64, f64) {
    if x.abs() >= SIN_F64_FAST_LIMIT {
        return (sin_cos_f64_huge(x, false), sin_cos_f64_huge(x, true));
    }
    sincos_fast_f64(x)
}

/// [`sincos_f64`] without its branch to libm for huge arguments: exact below
/// about 1.6e6 (2^20 pi/2); from there on (infinities too) the values are
/// wrong and `wide` is set, for loops run in blocks that compute such a
/// block again with [`sincos_f64`] (see `sincos_near_f32`). Without the
/// branch, the loop vectorizes.
///
/// ```
/// use jax::math::{sincos_f64, sincos_near_f64};
/// let mut wide = false;
/// for x in [0.0f64, -0.0, 1.0, -2.5, 1e6, f64::NAN] {
///     let (s, c) = sincos_near_f64(x, &mut wide);
///     assert_eq!((s.to_bits(), c.to_bits()), (sincos_f64(x).0.to_bits(), sincos_f64(x).1.to_bits()));
/// }
/// assert!(!wide);
/// sincos_near_f64(1e10, &mut wide);
/// assert!(wide);
/// ```
#[inline(always)]
pub fn sincos_near_f64(x: f64, wide: &mut bool) -> (f64, f64) {
    *wide |= x.abs() >= SIN_F64_FAST_LIMIT;
    sincos_fast_f64(x)
}

/// The body of [`sincos_f64`] for |x| < [`SIN_F64_FAST_LIMIT`].
#[inline(always)]
fn sincos_fast_f64(x: f64) -> (f64, f64) {
    let (hi, lo, k) = rem_pio2_f64(x);
    let s = sin_kernel_f64(hi, lo);
    let c = cos_kernel_f64(hi, lo);
    let vs = if k & 1 == 0 { s } else { c };
    let vs = if k & 2 == 0 { vs } else { -vs };
    let vs = if x.abs() < 1e-300 { x } else { vs };
    let vc = if k & 1 == 0 { c } else { s };
    let vc = if (k.wrapping_add(1)) & 2 == 0 {
        vc
    } else {
        -vc
    };
    (vs, vc)
}
