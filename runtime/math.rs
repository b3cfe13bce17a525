//! Transcendental functions that LLVM can vectorize.
//!
//! `f32::exp`, `f32::tanh` and friends are calls into the platform's libm, and
//! a call stops LLVM's loop vectorizer: a fused loop such as
//! `tanh(x * 1.5 + 0.5) * 2` then runs one element at a time. The functions
//! here are plain Rust arithmetic, `#[inline(always)]`, without table lookups
//! and without data-dependent branches (special cases are computed and then
//! chosen with `if c { a } else { b }` on values, which LLVM turns into blends),
//! so the loop that calls them vectorizes.
//!
//! The algorithms follow XLA's CPU backend where it has its own approximation
//! (so results stay close to what JAX on CPU returns): f32 exp (Cephes, as in
//! `xla/backends/cpu/codegen/polynomial_approximations.cc`), logistic (its
//! formula), f64 erf and the f32 erfc halves (Cephes, as in XLA's chlo
//! lowering of erf and erfc). Where XLA's approximation misses the accuracy
//! budget (tanh and f32 erf: XLA's are 4-8 ULP off) or XLA calls libm, a
//! standard range reduction and minimax polynomial is used, as noted on each
//! function.
//!
//! The f32 polynomials of exp, log, tanh and erf are Horner chains of
//! `mul_add`: one correctly rounded operation at every SIMD level (an FMA
//! instruction at the AVX2 and AVX-512 levels, libm's `fmaf` at the SSE2
//! baseline), so results do not depend on the level, and the AVX-512 loops
//! run 1.36x (exp) and 1.45x (tanh) faster than with a separate multiply and
//! add. The other polynomials are plain `a * b + c`, which LLVM never
//! contracts, so they too give the same bits at every level.
//!
//! Error bounds are in ULP of the result against a correctly rounded value:
//! for f32 inputs the reference is the f64 std function rounded to f32 (checked
//! exhaustively over all 2^32 inputs by `cargo test --release --test numpy --
//! --ignored math::exhaustive`), for f64 inputs values computed with mpmath at 256 bits
//! (`tests/fixtures/math.json`) plus a sample against std. Unlike XLA on CPU,
//! which runs with denormals flushed to zero, subnormal inputs and results are
//! computed, not flushed.

#![allow(clippy::excessive_precision)]

// ---------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------

/// 1.5 * 2^23: adding it to |v| < 2^22 rounds v to an integer held in the low
/// mantissa bits, without a libm `round`/`floor` call (those are calls on
/// x86-64 without SSE4.1, which would stop vectorization).
const SHIFT_F32: f32 = 12582912.0;
/// 1.5 * 2^52, the f64 counterpart of [`SHIFT_F32`].
const SHIFT_F64: f64 = 6755399441055744.0;

/// `2^n` for n in [-126, 127], built from its exponent bits.
#[inline(always)]
fn pow2_f32(n: i32) -> f32 {
    f32::from_bits(((n + 127) as u32) << 23)
}

/// `2^n` for n in [-1022, 1023], built from its exponent bits.
#[inline(always)]
fn pow2_f64(n: i64) -> f64 {
    f64::from_bits(((n + 1023) as u64) << 52)
}

/// `z * 2^n` for n in [-150, 128] (f32) with a single rounding: the scale is
/// split in two halves that are both normal, and the first product is exact.
#[inline(always)]
fn scale_f32(z: f32, n: i32) -> f32 {
    let n1 = n >> 1;
    z * pow2_f32(n1) * pow2_f32(n - n1)
}

/// `z * 2^n` for n in [-1080, 1030] (f64), as [`scale_f32`].
#[inline(always)]
fn scale_f64(z: f64, n: i64) -> f64 {
    let n1 = n >> 1;
    z * pow2_f64(n1) * pow2_f64(n - n1)
}

// ---------------------------------------------------------------------------
// exp
// ---------------------------------------------------------------------------

/// `e^x` in f32. XLA's CPU algorithm (Cephes `expf`): n = round(x / ln 2),
/// Cody-Waite reduction with XLA's ln 2 split, XLA's degree-5 polynomial for
/// e^r on |r| <= ln2/2, then scaling by 2^n. Differences from XLA: n is
/// rounded half to even rather than half up, and results below 2^-126 are
/// subnormals instead of zero.
///
/// Max error: 1 ULP (exhaustive over all f32).
///
/// ```
/// use jax::math::exp_f32;
/// assert_eq!(exp_f32(0.0), 1.0);
/// assert!((exp_f32(1.0) - std::f32::consts::E).abs() < 1e-6);
/// assert_eq!((exp_f32(-100.0) > 0.0, exp_f32(89.0)), (true, f32::INFINITY)); // subnormal, not flushed
/// ```
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // Beyond these, e^x is inf or rounds to 0; comparisons keep NaN as NaN.
    let xc = if x > 88.8 { 88.8 } else { x };
    let xc = if xc < -104.0 { -104.0 } else { xc };
    let (z, n) = exp_reduced_f32(xc);
    scale_f32(z, n)
}

/// e^x as z · 2^n, z in [0.7, 1.42] (for x within [`exp_f32`]'s clamps):
/// n = round(x / ln 2), the reduction and the polynomial of [`exp_f32`].
#[inline(always)]
fn exp_reduced_f32(x: f32) -> (f32, i32) {
    let (q, n) = expm1_reduced_f32(x);
    (1.0 + q, n)
}

/// e^x as (q + 1) · 2^n with q = e^r - 1 for the reduced r, |r| <= ln2/2:
/// q keeps its relative accuracy as r goes to 0, which `1 + q` would lose.
#[inline(always)]
fn expm1_reduced_f32(x: f32) -> (f32, i32) {
    let t = x * core::f32::consts::LOG2_E + SHIFT_F32;
    let n = t - SHIFT_F32;
    // n times the high part is exact (15 by 8 significant bits), so one
    // fused multiply-add gives the bits of `x - n * hi`.
    let r = (-n).mul_add(0.693145751953125, x);
    let r = r - n * 1.4286067653301877e-6;
    let p = (1.9875691500e-4f32).mul_add(r, 1.3981999507e-3);
    let p = p.mul_add(r, 8.3334519073e-3);
    let p = p.mul_add(r, 4.1665795894e-2);
    let p = p.mul_add(r, 1.6666665459e-1);
    let p = p.mul_add(r, 5.0000001201e-1);
    let q = p.mul_add(r * r, r);
    (q, t.to_bits() as i32 - SHIFT_F32.to_bits() as i32)
}

/// `e^x` in f64. XLA uses LLVM's libm call here; this is Cephes `exp`: n =
/// round(x / ln 2), two-part Cody-Waite reduction, the Padé form
/// e^r = 1 + 2 r P(r^2) / (Q(r^2) - r P(r^2)) on |r| <= ln2/2, scaling by 2^n.
///
/// Max error: 1 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::exp_f64;
/// assert_eq!(exp_f64(0.0), 1.0);
/// assert!((exp_f64(1.0) - std::f64::consts::E).abs() < 1e-15);
/// assert_eq!(exp_f64(710.0), f64::INFINITY);
/// ```
#[inline(always)]
pub fn exp_f64(x: f64) -> f64 {
    let xc = if x > 709.8 { 709.8 } else { x };
    let xc = if xc < -746.0 { -746.0 } else { xc };
    let t = xc * core::f64::consts::LOG2_E + SHIFT_F64;
    let n = t - SHIFT_F64;
    // Exact product (15 by 11 bits), as in `exp_f32`.
    let r = (-n).mul_add(6.93145751953125e-1, xc);
    let r = r - n * 1.42860682030941723212e-6;
    let rr = r * r;
    let p = 1.26177193074810590878e-4 * rr + 3.02994407707441961300e-2;
    let p = (p * rr + 9.99999999999999999910e-1) * r;
    let q = 3.00198505138664455042e-6 * rr + 2.52448340349684104192e-3;
    let q = q * rr + 2.27265548208155028766e-1;
    let q = q * rr + 2.00000000000000000009e0;
    let z = 1.0 + 2.0 * (p / (q - p));
    let ni = t.to_bits() as i64 - SHIFT_F64.to_bits() as i64;
    scale_f64(z, ni)
}

// ---------------------------------------------------------------------------
// log
// ---------------------------------------------------------------------------

/// `ln x` in f32: Cephes `logf` (the polynomial Eigen's `plog` uses). x =
/// m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = f - f^2/2 + f^3 P(f) with
/// f = m - 1, and e ln 2 added in two parts. Subnormal inputs are scaled by
/// 2^23 first (XLA flushes them and returns -inf).
///
/// Max error: 1 ULP (exhaustive over all f32).
///
/// ```
/// use jax::math::log_f32;
/// assert_eq!(log_f32(1.0), 0.0);
/// assert!((log_f32(std::f32::consts::E) - 1.0).abs() < 1e-6);
/// assert_eq!(log_f32(0.0), f32::NEG_INFINITY);
/// assert!(log_f32(-1.0).is_nan());
/// ```
#[inline(always)]
pub fn log_f32(x: f32) -> f32 {
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 8388608.0 } else { x };
    let bits = xs.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 126 - if sub { 23 } else { 0 };
    // m in [0.5, 1).
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000);
    let low = m < core::f32::consts::FRAC_1_SQRT_2;
    let e = (e - low as i32) as f32;
    let f = if low { m + m } else { m } - 1.0;
    let z = f * f;
    let p = (7.0376836292e-2f32).mul_add(f, -1.1514610310e-1);
    let p = p.mul_add(f, 1.1676998740e-1);
    let p = p.mul_add(f, -1.2420140846e-1);
    let p = p.mul_add(f, 1.4249322787e-1);
    let p = p.mul_add(f, -1.6668057665e-1);
    let p = p.mul_add(f, 2.0000714765e-1);
    let p = p.mul_add(f, -2.4999993993e-1);
    let p = p.mul_add(f, 3.3333331174e-1);
    let y = f * z * p;
    let y = y + e * -2.12194440e-4;
    let y = y - 0.5 * z;
    let r = f + y + e * 0.693359375;
    let r = if x == f32::INFINITY { x } else { r };
    let r = if x == 0.0 { f32::NEG_INFINITY } else { r };
    if x < 0.0 || x.is_nan() {
        f32::NAN
    } else {
        r
    }
}

/// `ln x` in f64: fdlibm's `log` (x = m 2^e with m in [sqrt(1/2), sqrt(2)),
/// s = f / (2 + f), ln m = 2 atanh(s) by a degree-14 minimax polynomial in s).
///
/// Max error: 1 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::log_f64;
/// assert_eq!(log_f64(1.0), 0.0);
/// assert!((log_f64(std::f64::consts::E) - 1.0).abs() < 1e-15);
/// assert!(log_f64(-1.0).is_nan());
/// ```
#[inline(always)]
pub fn log_f64(x: f64) -> f64 {
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18014398509481984.0 } else { x }; // 2^54
    let bits = xs.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1022 - if sub { 54 } else { 0 };
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3fe0_0000_0000_0000);
    let low = m < core::f64::consts::FRAC_1_SQRT_2;
    let k = (e - low as i64) as i32 as f64; // |k| < 1100: through i32, which vectorizes without AVX-512DQ
    let f = if low { m + m } else { m } - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w
        * (3.999999999940941908e-01
            + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
    let t2 = z
        * (6.666666666666735130e-01
            + w * (2.857142874366239149e-01
                + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
    let rr = t2 + t1;
    let r = k * 6.93147180369123816490e-01
        - ((hfsq - (s * (hfsq + rr) + k * 1.90821492927058770002e-10)) - f);
    let r = if x == f64::INFINITY { x } else { r };
    let r = if x == 0.0 { f64::NEG_INFINITY } else { r };
    if x < 0.0 || x.is_nan() {
        f64::NAN
    } else {
        r
    }
}

// ---------------------------------------------------------------------------
// log1p and expm1
// ---------------------------------------------------------------------------

/// `ln(1 + x)` in f32, as Eigen's `generic_log1p` (which XLA uses): with
/// u = 1 + x rounded, ln(1 + x) = ln(u) x / (u - 1), which cancels the
/// rounding error of u (Goldberg's method); x itself when u == 1.
///
/// Max error: 2 ULP (exhaustive over all f32).
///
/// ```
/// use jax::math::log1p_f32;
/// // Exact for tiny x, where `ln(1.0 + x)` would round 1 + x to 1 and give 0.
/// assert_eq!(log1p_f32(1e-10), 1e-10);
/// assert!((log1p_f32(std::f32::consts::E - 1.0) - 1.0).abs() < 1e-6);
/// ```
#[inline(always)]
pub fn log1p_f32(x: f32) -> f32 {
    let u = 1.0 + x;
    let lu = log_f32(u);
    let r = x * (lu / (u - 1.0));
    let r = if u == 1.0 { x } else { r };
    if u == f32::INFINITY {
        u
    } else {
        r
    }
}

/// `ln(1 + x)` in f64, as [`log1p_f32`].
///
/// Max error: 2 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::log1p_f64;
/// assert_eq!(log1p_f64(1e-20), 1e-20);
/// assert!((log1p_f64(std::f64::consts::E - 1.0) - 1.0).abs() < 1e-15);
/// ```
#[inline(always)]
pub fn log1p_f64(x: f64) -> f64 {
    let u = 1.0 + x;
    let lu = log_f64(u);
    let r = x * (lu / (u - 1.0));
    let r = if u == 1.0 { x } else { r };
    if u == f64::INFINITY {
        u
    } else {
        r
    }
}

/// `e^x - 1` in f32. XLA uses Eigen's `generic_expm1` (Kahan's method:
/// with u = e^x rounded, (u - 1) x / ln(u)), an exp, a log and a division;
/// here it is [`exp_f32`]'s reduction and polynomial, which give e^x as
/// (q + 1) 2^n with q = e^r - 1 accurate relative to itself, and
/// e^x - 1 = q 2^n + (2^n - 1) in one fused multiply-add (done on
/// 2^(n-1) and doubled, so n = 128 stays finite until the result is not).
///
/// Max error: 1 ULP from the correctly rounded result, 1.44 ULP from the
/// exact value (exhaustive over all f32).
///
/// ```
/// use jax::math::expm1_f32;
/// // Exact for tiny x, where `exp(x) - 1.0` would give 0.
/// assert_eq!(expm1_f32(1e-10), 1e-10);
/// assert!((expm1_f32(1.0) - (std::f32::consts::E - 1.0)).abs() < 1e-6);
/// assert_eq!(expm1_f32(-100.0), -1.0);
/// assert_eq!((expm1_f32(88.7) < f32::INFINITY, expm1_f32(88.8)), (true, f32::INFINITY));
/// ```
#[inline(always)]
pub fn expm1_f32(x: f32) -> f32 {
    // Above 88.8 the result is inf, below -18 it rounds to -1; comparisons
    // keep NaN as NaN.
    let xc = if x > 88.8 { 88.8 } else { x };
    let xc = if xc < -18.0 { -18.0 } else { xc };
    let (q, n) = expm1_reduced_f32(xc);
    let half = pow2_f32(n - 1);
    let u = q.mul_add(half, half - 0.5) * 2.0;
    // Below 2^-30, e^x - 1 rounds to x. Taken as is it keeps the sign of -0
    // and the last bit of a subnormal, which halving would round away.
    if x.abs() < 9.313225746154785e-10 {
        x
    } else {
        u
    }
}

/// `e^x - 1` in f64, as [`expm1_f32`].
///
/// Max error: 2 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::expm1_f64;
/// assert_eq!(expm1_f64(1e-20), 1e-20);
/// assert!((expm1_f64(1.0) - (std::f64::consts::E - 1.0)).abs() < 1e-15);
/// assert_eq!(expm1_f64(-800.0), -1.0);
/// ```
#[inline(always)]
pub fn expm1_f64(x: f64) -> f64 {
    let u = exp_f64(x);
    let um1 = u - 1.0;
    let lu = log_f64(u);
    let r = um1 * (x / lu);
    let r = if u == f64::INFINITY { u } else { r };
    let r = if um1 == -1.0 { -1.0 } else { r };
    if u == 1.0 {
        x
    } else {
        r
    }
}

// ---------------------------------------------------------------------------
// tanh and logistic
// ---------------------------------------------------------------------------

/// `tanh x` in f32. XLA's CPU algorithm (Eigen's `ptanh_float`, a 13/6-degree
/// rational function clamped at ±7.9) is 4 ULP off near 0 and up to 7 ULP
/// off for |x| in [2, 9] when evaluated without FMA (JAX's own results are
/// 4 ULP off in `tests/fixtures/math.json`), over the 3 ULP budget; so this
/// is one form over the whole range instead, u / (u + 2) with
/// u = e^(2|x|) - 1, then the sign of x. u is (q + 1) 2^n - 1 =
/// q 2^n + (2^n - 1) from [`exp_f32`]'s reduction and polynomial, which keeps
/// u's relative accuracy down to the smallest x (where u / 2 = |x| exactly);
/// one fused multiply-add, no branch and no second polynomial.
///
/// Max error: 2 ULP from the correctly rounded result, 2.42 ULP from the
/// exact value (exhaustive over all f32).
///
/// ```
/// use jax::math::tanh_f32;
/// assert_eq!((tanh_f32(0.0), tanh_f32(20.0), tanh_f32(-20.0)), (0.0, 1.0, -1.0));
/// assert!((tanh_f32(0.5) - 0.5f32.tanh()).abs() < 1e-7);
/// assert_eq!(tanh_f32(1e-40), 1e-40); // subnormals are kept, not flushed
/// ```
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    // About 22 vector operations against 35 for a polynomial below 0.625
    // and 1 - 2 / (e^(2|x|) + 1) above, both computed and one selected
    // (1.42x on AMD Zen 4); the error grows from 1 to 2 ULP.
    let ax = x.abs();
    // From |x| = 9.02 on, u / (u + 2) rounds to 1: clamping there changes
    // no result and keeps 2^n normal. NaN passes the comparison and stays.
    let y = ax + ax;
    let y = if y > 20.0 { 20.0 } else { y };
    let (q, n) = expm1_reduced_f32(y);
    let two_n = pow2_f32(n);
    let u = q.mul_add(two_n, two_n - 1.0);
    let t = u / (u + 2.0);
    f32::from_bits(t.to_bits() | (x.to_bits() & 0x8000_0000))
}

/// `tanh x` in f64. XLA's CPU algorithm (Eigen's `ptanh_double`, a 19/18
/// rational function, `xla/codegen/intrinsic/tanh.cc`) measures up to 8 ULP
/// off without FMA, so this is a standard form: a degree-11 polynomial
/// (absolute fit error 4e-18) for |x| < 0.625 and 1 - 2 / (e^(2|x|) + 1)
/// above, both computed and one selected (the form [`tanh_f32`] replaced
/// with u / (u + 2)).
///
/// Max error: 2 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::tanh_f64;
/// assert_eq!((tanh_f64(0.0), tanh_f64(30.0), tanh_f64(-30.0)), (0.0, 1.0, -1.0));
/// assert!((tanh_f64(0.5) - 0.5f64.tanh()).abs() < 1e-15);
/// ```
#[inline(always)]
pub fn tanh_f64(x: f64) -> f64 {
    let ax = x.abs();
    let s = x * x;
    let g = 6.485163482793113e-06 * s - 3.12011014257974e-05;
    let g = g * s + 9.257116129556769e-05;
    let g = g * s - 0.0002375906496055562;
    let g = g * s + 0.0005896606577757043;
    let g = g * s - 0.0014557754120478055;
    let g = g * s + 0.0035921217511549622;
    let g = g * s - 0.008863235103240878;
    let g = g * s + 0.021869488519008305;
    let g = g * s - 0.05396825396789699;
    let g = g * s + 0.13333333333333042;
    let g = g * s - 0.3333333333333333;
    let small = x + x * (s * g);
    let e = exp_f64(ax + ax);
    let big = 1.0 - 2.0 / (e + 1.0);
    let big = if x < 0.0 { -big } else { big };
    let small = if ax < 1e-9 { x } else { small };
    if ax < 0.625 {
        small
    } else {
        big
    }
}

/// `1 / (1 + e^-x)` in f32 (`lax.logistic`, `jax.nn.sigmoid`). XLA computes
/// the formula as written, so e^-x overflows for x < -88.7 and the result is 0
/// where the true value is a tiny (sub)normal; here e = e^-|x| never
/// overflows, and the result is 1 / (1 + e) for x >= 0 and e / (1 + e) for
/// x < 0, one division either way.
///
/// Max error: 2 ULP (exhaustive over all f32).
///
/// ```
/// use jax::math::logistic_f32;
/// assert_eq!((logistic_f32(0.0), logistic_f32(100.0)), (0.5, 1.0));
/// // A tiny subnormal, not 0 as `1 / (1 + e^100)` would give.
/// assert!(logistic_f32(-100.0) > 0.0);
/// ```
#[inline(always)]
pub fn logistic_f32(x: f32) -> f32 {
    let e = exp_f32(-x.abs());
    let num = if x < 0.0 { e } else { 1.0 };
    num / (1.0 + e)
}

/// `1 / (1 + e^-x)` in f64, as [`logistic_f32`].
///
/// Max error: 2 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::logistic_f64;
/// assert_eq!((logistic_f64(0.0), logistic_f64(100.0)), (0.5, 1.0));
/// assert!(logistic_f64(-740.0) > 0.0);
/// ```
#[inline(always)]
pub fn logistic_f64(x: f64) -> f64 {
    let e = exp_f64(-x.abs());
    let num = if x < 0.0 { e } else { 1.0 };
    num / (1.0 + e)
}

// ---------------------------------------------------------------------------
// sin and cos
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// erf
// ---------------------------------------------------------------------------

/// `erf x` in f32. XLA's f32 erf (Eigen's rational approximation clamped at
/// ±4) has an absolute error near 2e-7: 3 ULP near 0 and up to 7 ULP where
/// erf x is close to 1, over the 2 ULP budget. So this uses the two halves of
/// XLA's f32 `erfc` lowering (Cephes `erff`/`erfcf`): x T(x^2) with a degree-6
/// T for |x| < 1, and 1 - erfc |x| above, erfc = e^(-x^2) / x P(1/x^2) below
/// 2 and e^(-x^2) / x R(1/x^2) above, |x| clamped to 4 (erf is 1 in f32
/// there).
///
/// Max error: 2 ULP (exhaustive over all f32; 3 ULP, at x = 0.4701495, before
/// T was evaluated with fused multiply-adds).
///
/// ```
/// use jax::math::erf_f32;
/// assert_eq!((erf_f32(0.0), erf_f32(10.0), erf_f32(-10.0)), (0.0, 1.0, -1.0));
/// assert!((erf_f32(0.5) - 0.5204999).abs() < 1e-6);
/// ```
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    let ax = x.abs();
    let x2 = x * x;
    let t = (7.853861353153693e-5f32).mul_add(x2, -8.010193625184903e-4);
    let t = t.mul_add(x2, 5.188327685732524e-3);
    let t = t.mul_add(x2, -2.685381193529856e-2);
    let t = t.mul_add(x2, 1.128358514861418e-1);
    let t = t.mul_add(x2, -3.761262582423300e-1);
    let t = t.mul_add(x2, 1.128379165726710e+0);
    let small = x * t;
    // Comparisons keep NaN.
    let a = if ax > 4.0 { 4.0 } else { ax };
    let a = if a < 1.0 { 1.0 } else { a };
    let a2 = a * a;
    let z = 1.0 / a2;
    let pp = (2.326819970068386e-2f32).mul_add(z, -1.387039388740657e-1);
    let pp = pp.mul_add(z, 3.687424674597105e-1);
    let pp = pp.mul_add(z, -5.824733027278666e-1);
    let pp = pp.mul_add(z, 6.210004621745983e-1);
    let pp = pp.mul_add(z, -4.944515323274145e-1);
    let pp = pp.mul_add(z, 3.404879937665872e-1);
    let pp = pp.mul_add(z, -2.741127028184656e-1);
    let pp = pp.mul_add(z, 5.638259427386472e-1);
    let rr = (-1.047766399936249e+1f32).mul_add(z, 1.297719955372516e+1);
    let rr = rr.mul_add(z, -7.495518717768503e+0);
    let rr = rr.mul_add(z, 2.921019019210786e+0);
    let rr = rr.mul_add(z, -1.015265279202700e+0);
    let rr = rr.mul_add(z, 4.218463358204948e-1);
    let rr = rr.mul_add(z, -2.820767439740514e-1);
    let rr = rr.mul_add(z, 5.641895067754075e-1);
    let poly = if a < 2.0 { pp } else { rr };
    let erfc = exp_f32(-a2) / a * poly;
    let big = 1.0 - erfc;
    let big = if x < 0.0 { -big } else { big };
    if ax < 1.0 {
        small
    } else {
        big
    }
}

/// `erf x` in f64: XLA's algorithm (Cephes `erf`/`erfc`): x T(x^2) / U(x^2)
/// for |x| < 1, else 1 - erfc |x| with erfc = e^(-x^2) P(|x|) / Q(|x|) below 8
/// and e^(-x^2) R(|x|) / S(|x|) above (0 past e^(-x^2) underflow), sign
/// restored.
///
/// Max error: 2 ULP (sampled; see `tests/math.rs`).
///
/// ```
/// use jax::math::erf_f64;
/// assert_eq!((erf_f64(0.0), erf_f64(7.0), erf_f64(-7.0)), (0.0, 1.0, -1.0));
/// assert!((erf_f64(0.5) - 0.5204998778130465).abs() < 1e-15);
/// ```
#[inline(always)]
pub fn erf_f64(x: f64) -> f64 {
    let ax = x.abs();
    // |x| < 1.
    let z = x * x;
    let t = 9.60497373987051638749e0 * z + 9.00260197203842689217e1;
    let t = t * z + 2.23200534594684319226e3;
    let t = t * z + 7.00332514112805075473e3;
    let t = t * z + 5.55923013010394962768e4;
    let u = z + 3.35617141647503099647e1;
    let u = u * z + 5.21357949780152679795e2;
    let u = u * z + 4.59432382970980127987e3;
    let u = u * z + 2.26290000613890934246e4;
    let u = u * z + 4.92673942608635921086e4;
    let small = x * t / u;
    // |x| >= 1: erfc |x|. Beyond 6, erf is 1 in f64; clamping keeps the
    // polynomials finite (and NaN stays NaN).
    let a = if ax > 6.0 { 6.0 } else { ax };
    let ez = exp_f64(-(a * a));
    let p = 2.46196981473530512524e-10 * a + 5.64189564831068821977e-1;
    let p = p * a + 7.46321056442269912687e0;
    let p = p * a + 4.86371970985681366614e1;
    let p = p * a + 1.96520832956077098242e2;
    let p = p * a + 5.26445194995477358631e2;
    let p = p * a + 9.34528527171957607540e2;
    let p = p * a + 1.02755188689515710272e3;
    let p = p * a + 5.57535335369399327526e2;
    let q = a + 1.32281951154744992508e1;
    let q = q * a + 8.67072140885989742329e1;
    let q = q * a + 3.54937778887819891062e2;
    let q = q * a + 9.75708501743205489753e2;
    let q = q * a + 1.82390916687909736289e3;
    let q = q * a + 2.24633760818710981792e3;
    let q = q * a + 1.65666309194161350182e3;
    let q = q * a + 5.57535340817727675546e2;
    let erfc = ez * p / q;
    let big = 1.0 - erfc;
    let big = if x < 0.0 { -big } else { big };
    if ax < 1.0 {
        small
    } else {
        big
    }
}
