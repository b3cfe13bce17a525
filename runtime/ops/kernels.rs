//! Scalar kernels of the elementwise operations, one trait per family of
//! element types, with XLA's semantics (wrapping integers, IEEE floats,
//! defined results for integer division by zero).
//!
//! The traits are what the operators and the `jnp`/`lax` functions use as
//! bounds, so a dtype JAX rejects (`bool - bool`, `-bool`, `f32 & f32`) is a
//! compile error here.

use crate::element::{bf16, f16, DType, Element, Float};

/// Element types with `+`, `*`, `max`, `min`, `abs` and rounding: every
/// element type. On `bool`, `+` is logical or and `*` logical and, as in JAX.
pub trait Arith: Element + PartialOrd {
    /// `a + b`: wrapping for integers, `a | b` for bool.
    fn add(a: Self, b: Self) -> Self;
    /// `a * b`: wrapping for integers, `a & b` for bool.
    fn mul(a: Self, b: Self) -> Self;
    /// The larger value; NaN if either is NaN (`lax.max`).
    fn max(a: Self, b: Self) -> Self;
    /// The smaller value; NaN if either is NaN (`lax.min`).
    fn min(a: Self, b: Self) -> Self;
    /// `|a|`; wraps for the most negative integer; identity for bool and unsigned.
    fn abs(a: Self) -> Self;
    /// Rounds toward -inf (identity for integers and bool).
    fn floor(a: Self) -> Self;
    /// Rounds toward +inf (identity for integers and bool).
    fn ceil(a: Self) -> Self;
    /// Rounds toward zero (identity for integers and bool).
    fn trunc(a: Self) -> Self;
    /// Whether `a` is NaN (never for integers and bool).
    fn is_nan(a: Self) -> bool;
    /// Whether `a` is infinite (never for integers and bool).
    fn is_inf(a: Self) -> bool;
}

/// Numeric element types: every type but `bool` (JAX rejects `sub`, `neg`,
/// `div`, `rem` and `sign` on bool).
pub trait Numeric: Arith {
    /// `a - b`, wrapping for integers.
    fn sub(a: Self, b: Self) -> Self;
    /// `lax.div`: truncating for integers, with XLA's results where Rust
    /// would panic: `x / 0` is all ones (-1 signed, MAX unsigned) and
    /// `MIN / -1` is `MIN`. IEEE for floats.
    fn div(a: Self, b: Self) -> Self;
    /// `lax.rem`: the sign of the dividend (C's `fmod` for floats); `x % 0` is
    /// `x` and `MIN % -1` is 0 for integers.
    fn rem(a: Self, b: Self) -> Self;
    /// `-a`, wrapping for integers.
    fn neg(a: Self) -> Self;
    /// -1, 0 or 1 (NaN stays NaN, zeros keep their sign).
    fn sign(a: Self) -> Self;
    /// Rounds half to even (`jnp.round`); identity for integers.
    fn round_even(a: Self) -> Self;
    /// Rounds half away from zero (`lax.round`'s default); identity for integers.
    fn round_away(a: Self) -> Self;
}

/// Element types with bitwise operations: `bool` and the integers.
pub trait Bitwise: Element {
    /// `a & b`.
    fn and(a: Self, b: Self) -> Self;
    /// `a | b`.
    fn or(a: Self, b: Self) -> Self;
    /// `a ^ b`.
    fn xor(a: Self, b: Self) -> Self;
    /// `!a`: logical not for bool, bitwise not for integers.
    fn not(a: Self) -> Self;
}

/// Integer shifts with XLA's semantics: the shift amount is read as
/// unsigned, and one of the type's width or more shifts every bit out (0,
/// or the sign for an arithmetic right shift).
pub trait Shift: Element {
    /// `lax.shift_left`.
    fn shift_left(a: Self, b: Self) -> Self;
    /// `lax.shift_right_logical`: zeros shifted in.
    fn shift_right_logical(a: Self, b: Self) -> Self;
    /// `lax.shift_right_arithmetic`: the sign bit shifted in.
    fn shift_right_arithmetic(a: Self, b: Self) -> Self;
}

/// Comparisons in IEEE 754's total order (XLA's `TOTALORDER`: -NaN < -inf
/// < .. < -0 < +0 < .. < inf < NaN), which `jnp.searchsorted` sorts by;
/// the usual order for integers and bool.
pub trait TotalOrder: Element {
    /// How `a` compares with `b` in the total order.
    fn total_cmp(a: Self, b: Self) -> std::cmp::Ordering;
}

macro_rules! impl_total_order {
    (plain: $($t:ty),*) => {$(
        impl TotalOrder for $t {
            #[inline]
            fn total_cmp(a: Self, b: Self) -> std::cmp::Ordering {
                a.cmp(&b)
            }
        }
    )*};
    (float: $($t:ty),*) => {$(
        impl TotalOrder for $t {
            #[inline]
            fn total_cmp(a: Self, b: Self) -> std::cmp::Ordering {
                a.total_cmp(&b)
            }
        }
    )*};
    (half: $($t:ty),*) => {$(
        // Widening to f32 keeps signs, zeros and NaN payloads in order.
        impl TotalOrder for $t {
            #[inline]
            fn total_cmp(a: Self, b: Self) -> std::cmp::Ordering {
                a.to_f32().total_cmp(&b.to_f32())
            }
        }
    )*};
}
impl_total_order!(plain: bool, u8, u16, u32, u64, i8, i16, i32, i64);
impl_total_order!(float: f32, f64);
impl_total_order!(half: f16, bf16);

/// Element types as their bit patterns (`lax.bitcast_convert_type` between
/// types of one width).
pub trait BitPattern: Element {
    /// The value's bits, in the low bits of a `u64`.
    fn to_pattern(self) -> u64;
    /// The value of the low bits of `bits`.
    fn from_pattern(bits: u64) -> Self;
}

macro_rules! impl_shift {
    ($($t:ty => $u:ty, $i:ty;)*) => {$(
        impl Shift for $t {
            #[inline]
            fn shift_left(a: Self, b: Self) -> Self {
                let n = b as $u;
                if n >= <$u>::BITS as $u { 0 } else { ((a as $u) << n) as $t }
            }
            #[inline]
            fn shift_right_logical(a: Self, b: Self) -> Self {
                let n = b as $u;
                if n >= <$u>::BITS as $u { 0 } else { ((a as $u) >> n) as $t }
            }
            #[inline]
            fn shift_right_arithmetic(a: Self, b: Self) -> Self {
                let n = (b as $u).min(<$u>::BITS as $u - 1);
                ((a as $i) >> n) as $t
            }
        }
        impl BitPattern for $t {
            #[inline] fn to_pattern(self) -> u64 { self as $u as u64 }
            #[inline] fn from_pattern(bits: u64) -> Self { bits as $u as $t }
        }
    )*};
}
impl_shift! {
    u8 => u8, i8; u16 => u16, i16; u32 => u32, i32; u64 => u64, i64;
    i8 => u8, i8; i16 => u16, i16; i32 => u32, i32; i64 => u64, i64;
}

impl BitPattern for f32 {
    #[inline]
    fn to_pattern(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline]
    fn from_pattern(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

impl BitPattern for f64 {
    #[inline]
    fn to_pattern(self) -> u64 {
        self.to_bits()
    }
    #[inline]
    fn from_pattern(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

impl BitPattern for f16 {
    #[inline]
    fn to_pattern(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline]
    fn from_pattern(bits: u64) -> Self {
        f16::from_bits(bits as u16)
    }
}

impl BitPattern for bf16 {
    #[inline]
    fn to_pattern(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline]
    fn from_pattern(bits: u64) -> Self {
        bf16::from_bits(bits as u16)
    }
}

/// The type JAX computes integer-valued functions in (`square`, `//`, `%`,
/// `power`): `bool` becomes the default int type, as `promote_args_numeric` does.
pub trait ToNumeric: Element {
    /// `i32` for bool (`i64` with the `x64` feature), `Self` otherwise.
    type Out: Numeric;
}

/// `f32::floor` without its libm call where the target has no rounding
/// instruction (x86-64's baseline, SSE2, which a loop too small for a copy
/// per SIMD level is compiled for), in float arithmetic that vectorizes at
/// every level: `|x|` rounded to the nearest integer by adding and taking
/// away 2^23, given `x`'s sign, one less where that passed `x` (so `-0.0`
/// stays `-0.0` and `-0.5` gives `-1.0`); NaN, the infinities and every
/// value at or past 2^23, already an integer, are returned as they are.
/// The same bits as `f32::floor` for every input.
#[inline(always)]
pub fn floor_f32(x: f32) -> f32 {
    const BIG: f32 = 8_388_608.0;
    let a = x.abs();
    let r = ((a + BIG) - BIG).copysign(x);
    let t = if r > x { r - 1.0 } else { r };
    if a < BIG {
        t
    } else {
        x
    }
}

/// [`floor_f32`] for `f64` (integers from 2^52 on).
#[inline(always)]
pub fn floor_f64(x: f64) -> f64 {
    const BIG: f64 = 4_503_599_627_370_496.0;
    let a = x.abs();
    let r = ((a + BIG) - BIG).copysign(x);
    let t = if r > x { r - 1.0 } else { r };
    if a < BIG {
        t
    } else {
        x
    }
}

/// `f32::ceil` as [`floor_f32`] computes it: `-floor(-x)`, the same bits
/// for every input (signed zeros and NaNs included).
#[inline(always)]
pub fn ceil_f32(x: f32) -> f32 {
    -floor_f32(-x)
}

/// [`ceil_f32`] for `f64`.
#[inline(always)]
pub fn ceil_f64(x: f64) -> f64 {
    -floor_f64(-x)
}

/// Applies a float function to any float type: `f64` natively, the others
/// through `f32`, as XLA's CPU backend computes `f16` and `bf16`.
#[inline(always)]
pub fn float_apply<F: Float>(x: F, f: impl Fn(f32) -> f32, g: impl Fn(f64) -> f64) -> F {
    if F::DTYPE == DType::F64 {
        F::from_f64(g(x.to_f64()))
    } else {
        F::from_f32(f(x.to_f32()))
    }
}

/// A two-argument float function on any float type (see [`float_apply`]).
#[inline(always)]
pub fn float_apply2<F: Float>(
    x: F,
    y: F,
    f: impl Fn(f32, f32) -> f32,
    g: impl Fn(f64, f64) -> f64,
) -> F {
    if F::DTYPE == DType::F64 {
        F::from_f64(g(x.to_f64(), y.to_f64()))
    } else {
        F::from_f32(f(x.to_f32(), y.to_f32()))
    }
}

/// Float functions on any float type (as [`float_apply`]: f16 and bf16 through
/// f32), shared by `jnp` and `lax`.
pub mod float {
    use crate::element::Float;
    use crate::math;

    macro_rules! float_fns {
        ($($name:ident => $f:expr, $g:expr;)*) => {$(
            #[doc = concat!("`", stringify!($name), "` of one element.")]
            // Always inlined: a loop calling it vectorizes only if the
            // whole function is in its body.
            #[inline(always)]
            pub fn $name<F: Float>(x: F) -> F {
                // Written out rather than through `float_apply`'s closures:
                // with a large body (sin, cos) a closure is not inlined, and
                // the loop calling it would not vectorize.
                if F::DTYPE == crate::DType::F64 {
                    F::from_f64($g(x.to_f64()))
                } else {
                    F::from_f32($f(x.to_f32()))
                }
            }
        )*};
    }

    float_fns! {
        exp => math::exp_f32, math::exp_f64;
        exp2 => f32::exp2, f64::exp2;
        log => math::log_f32, math::log_f64;
        log1p => math::log1p_f32, math::log1p_f64;
        log2 => f32::log2, f64::log2;
        log10 => f32::log10, f64::log10;
        expm1 => math::expm1_f32, math::expm1_f64;
        sin => math::sin_f32, math::sin_f64;
        cos => math::cos_f32, math::cos_f64;
        tan => f32::tan, f64::tan;
        tanh => math::tanh_f32, math::tanh_f64;
        sinh => f32::sinh, f64::sinh;
        cosh => f32::cosh, f64::cosh;
        arcsin => f32::asin, f64::asin;
        arccos => f32::acos, f64::acos;
        arctan => f32::atan, f64::atan;
        arcsinh => libm::asinhf, libm::asinh;
        // libm's acosh does not return NaN for every x < 1 by itself.
        arccosh => |x: f32| if x < 1.0 { f32::NAN } else { libm::acoshf(x) },
                   |x: f64| if x < 1.0 { f64::NAN } else { libm::acosh(x) };
        arctanh => libm::atanhf, libm::atanh;
        sqrt => f32::sqrt, f64::sqrt;
        rsqrt => |x: f32| (1.0 / (x as f64).sqrt()) as f32, |x: f64| 1.0 / x.sqrt();
        cbrt => f32::cbrt, f64::cbrt;
        reciprocal => |x: f32| 1.0 / x, |x: f64| 1.0 / x;
        erf => math::erf_f32, math::erf_f64;
        erfc => libm::erfcf, libm::erfc;
        // XLA's polynomials (Giles), the bits `jax.lax.erf_inv` gives.
        erf_inv => crate::random::xla::erf_inv_f32, crate::random::xla::erf_inv_f64;
        floor => f32::floor, f64::floor;
        ceil => f32::ceil, f64::ceil;
        logistic => math::logistic_f32, math::logistic_f64;
    }

    /// `(sin x, cos x)` of one element with one argument reduction: the same
    /// bits as [`sin`] and [`cos`] (f16 and bf16 through f32, as they are).
    #[inline(always)]
    pub fn sincos<F: Float>(x: F) -> (F, F) {
        if F::DTYPE == crate::DType::F64 {
            let (s, c) = math::sincos_f64(x.to_f64());
            (F::from_f64(s), F::from_f64(c))
        } else {
            let (s, c) = math::sincos_f32(x.to_f32());
            (F::from_f32(s), F::from_f32(c))
        }
    }

    /// [`sincos`] for the first pass over a block: skips the reduction of
    /// huge arguments and sets `wide` instead (`math::sincos_near_f32`),
    /// after which the block is computed again with [`sincos`].
    #[inline(always)]
    pub fn sincos_near<F: Float>(x: F, wide: &mut bool) -> (F, F) {
        if F::DTYPE == crate::DType::F64 {
            let (s, c) = math::sincos_near_f64(x.to_f64(), wide);
            (F::from_f64(s), F::from_f64(c))
        } else {
            let (s, c) = math::sincos_near_f32(x.to_f32(), wide);
            (F::from_f32(s), F::from_f32(c))
        }
    }
}

macro_rules! impl_int {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline] fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline] fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            #[inline] fn max(a: Self, b: Self) -> Self { Ord::max(a, b) }
            #[inline] fn min(a: Self, b: Self) -> Self { Ord::min(a, b) }
            // `a < 0` is never true for unsigned types, so one body serves both.
            #[allow(unused_comparisons)]
            #[inline] fn abs(a: Self) -> Self { if a < 0 { a.wrapping_neg() } else { a } }
            #[inline] fn floor(a: Self) -> Self { a }
            #[inline] fn ceil(a: Self) -> Self { a }
            #[inline] fn trunc(a: Self) -> Self { a }
            #[inline] fn is_nan(_: Self) -> bool { false }
            #[inline] fn is_inf(_: Self) -> bool { false }
        }
        impl Numeric for $t {
            #[inline] fn sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            #[inline]
            fn div(a: Self, b: Self) -> Self {
                // All ones is -1 signed and MAX unsigned: XLA's result for x / 0.
                if b == 0 { (0 as $t).wrapping_sub(1) } else { a.wrapping_div(b) }
            }
            #[inline]
            fn rem(a: Self, b: Self) -> Self {
                if b == 0 { a } else { a.wrapping_rem(b) }
            }
            #[inline] fn neg(a: Self) -> Self { a.wrapping_neg() }
            #[allow(unused_comparisons)]
            #[inline]
            fn sign(a: Self) -> Self {
                if a > 0 { 1 } else if a < 0 { (0 as $t).wrapping_sub(1) } else { 0 }
            }
            #[inline] fn round_even(a: Self) -> Self { a }
            #[inline] fn round_away(a: Self) -> Self { a }
        }
        impl Bitwise for $t {
            #[inline] fn and(a: Self, b: Self) -> Self { a & b }
            #[inline] fn or(a: Self, b: Self) -> Self { a | b }
            #[inline] fn xor(a: Self, b: Self) -> Self { a ^ b }
            #[inline] fn not(a: Self) -> Self { !a }
        }
        impl ToNumeric for $t { type Out = $t; }
    )*};
}
impl_int!(u8, u16, u32, u64, i8, i16, i32, i64);

impl Arith for bool {
    #[inline]
    fn add(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline]
    fn mul(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline]
    fn max(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline]
    fn min(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline]
    fn abs(a: Self) -> Self {
        a
    }
    #[inline]
    fn floor(a: Self) -> Self {
        a
    }
    #[inline]
    fn ceil(a: Self) -> Self {
        a
    }
    #[inline]
    fn trunc(a: Self) -> Self {
        a
    }
    #[inline]
    fn is_nan(_: Self) -> bool {
        false
    }
    #[inline]
    fn is_inf(_: Self) -> bool {
        false
    }
}

impl Bitwise for bool {
    #[inline]
    fn and(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline]
    fn or(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline]
    fn xor(a: Self, b: Self) -> Self {
        a ^ b
    }
    #[inline]
    fn not(a: Self) -> Self {
        !a
    }
}

#[cfg(not(feature = "x64"))]
impl ToNumeric for bool {
    type Out = i32;
}
#[cfg(feature = "x64")]
impl ToNumeric for bool {
    type Out = i64;
}

// f16 and bf16 arithmetic goes through f32 (half's operators do the same):
// f32 has more than twice their precision, so each result is rounded once.
macro_rules! impl_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline] fn add(a: Self, b: Self) -> Self { a + b }
            #[inline] fn mul(a: Self, b: Self) -> Self { a * b }
            // Both are chains of selects whose last arm is not `a` alone: an
            // accumulator `acc = max(acc, x)` then stays in registers, where
            // "keep `acc` unless ..." would become a masked store to memory
            // and a reload (store forwarding fails), the pace of the loop.
            #[inline]
            fn max(a: Self, b: Self) -> Self {
                let m = if a > b { a } else { b };
                // Equal: +0 over -0, as XLA's maximum (the sign bits' AND).
                let m = if a == b { Self::from_bits(a.to_bits() & b.to_bits()) } else { m };
                // A NaN operand gives a NaN: `a + b` is `a`'s when `a` is one.
                if a.is_nan() || b.is_nan() { a + b } else { m }
            }
            #[inline]
            fn min(a: Self, b: Self) -> Self {
                let m = if a < b { a } else { b };
                // Equal: -0 over +0 (the sign bits' OR).
                let m = if a == b { Self::from_bits(a.to_bits() | b.to_bits()) } else { m };
                if a.is_nan() || b.is_nan() { a + b } else { m }
            }
            #[inline] fn abs(a: Self) -> Self { float_apply(a, f32::abs, f64::abs) }
            #[inline] fn floor(a: Self) -> Self { float_apply(a, floor_f32, floor_f64) }
            #[inline] fn ceil(a: Self) -> Self { float_apply(a, ceil_f32, ceil_f64) }
            #[inline] fn trunc(a: Self) -> Self { float_apply(a, f32::trunc, f64::trunc) }
            #[inline] fn is_nan(a: Self) -> bool { a.is_nan() }
            #[inline] fn is_inf(a: Self) -> bool { a.is_infinite() }
        }
        impl Numeric for $t {
            #[inline] fn sub(a: Self, b: Self) -> Self { a - b }
            #[inline] fn div(a: Self, b: Self) -> Self { a / b }
            #[inline] fn rem(a: Self, b: Self) -> Self { a % b }
            #[inline] fn neg(a: Self) -> Self { -a }
            #[inline]
            fn sign(a: Self) -> Self {
                float_apply(a, |x| if x == 0.0 || x.is_nan() { x } else { x.signum() },
                               |x| if x == 0.0 || x.is_nan() { x } else { x.signum() })
            }
            #[inline]
            fn round_even(a: Self) -> Self { float_apply(a, f32::round_ties_even, f64::round_ties_even) }
            #[inline]
            fn round_away(a: Self) -> Self { float_apply(a, f32::round, f64::round) }
        }
        impl ToNumeric for $t { type Out = $t; }
    )*};
}
impl_float!(f32, f64, f16, bf16);

/// `x ** n` for an integer exponent by repeated squaring, exactly as JAX
/// lowers `lax.integer_pow` (so float results round the same way); a negative
/// `n` takes the reciprocal at the end. Integers must not get a negative `n`.
#[inline]
pub fn integer_pow<T: crate::ops::SubDiv>(x: T, n: i32) -> T {
    if n == 0 {
        return T::ONE;
    }
    let mut y = n.unsigned_abs();
    let mut base = x;
    let mut acc: Option<T> = None;
    while y > 0 {
        if y & 1 == 1 {
            acc = Some(match acc {
                None => base,
                Some(a) => T::mul(a, base),
            });
        }
        y >>= 1;
        if y > 0 {
            base = T::mul(base, base);
        }
    }
    let acc = acc.unwrap_or(T::ONE);
    if n < 0 {
        T::div(T::ONE, acc)
    } else {
        acc
    }
}

/// `x ** y` for floats (`lax.pow`): computed in f64 and rounded once, which
/// for f32/f16/bf16 is within an ulp of the exact power.
#[inline]
pub fn pow_float<F: Element>(x: F, y: F) -> F {
    F::from_f64(x.to_f64().powf(y.to_f64()))
}

/// `jnp.power` of two integers, ported from JAX's `_pow_int_int`: binary
/// exponentiation over the low 6 bits of the exponent (shifting it as
/// unsigned), so negative exponents give what JAX gives instead of an error.
#[inline]
pub fn pow_int_int<T: Numeric>(x: T, n: T) -> T {
    let mut acc = if x == T::ZERO && n != T::ZERO {
        T::ZERO
    } else {
        T::ONE
    };
    let mut base = x;
    // The exponent's bits, as lax.shift_right_logical sees them.
    let mut bits = match n.to_value() {
        crate::element::Value::Int(i) => i as u128 & width_mask(T::DTYPE),
        _ => unreachable!("pow_int_int on a non-integer type"),
    };
    for _ in 0..6 {
        if bits & 1 == 1 {
            acc = T::mul(acc, base);
        }
        base = T::mul(base, base);
        bits >>= 1;
    }
    acc
}

fn width_mask(d: DType) -> u128 {
    (1u128 << d.bits()) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_never_panics() {
        assert_eq!(<i32 as Numeric>::div(7, 0), -1);
        assert_eq!(<u8 as Numeric>::div(7, 0), 255);
        assert_eq!(<i8 as Numeric>::div(i8::MIN, -1), i8::MIN);
        assert_eq!(<i8 as Numeric>::rem(i8::MIN, -1), 0);
        assert_eq!(<i32 as Numeric>::rem(-7, 0), -7);
    }

    #[test]
    fn integer_pow_by_squaring() {
        assert_eq!(integer_pow(3i32, 5), 243);
        assert_eq!(integer_pow(2.0f32, -2), 0.25);
        assert_eq!(integer_pow(5u8, 0), 1);
        assert_eq!(pow_int_int(2i32, 10), 1024);
        assert_eq!(pow_int_int(0i32, 0), 1);
    }

    #[test]
    fn erf_inv_inverts_erf() {
        for &y in &[-0.999999, -0.9, -0.3, 1e-8, 0.2, 0.5, 0.75, 0.99, 0.9999999] {
            let x = crate::random::xla::erf_inv_f64(y);
            assert!((libm::erf(x) - y).abs() <= 4.0 * f64::EPSILON, "{y}: {x}");
        }
        assert_eq!(crate::random::xla::erf_inv_f64(-1.0), f64::NEG_INFINITY);
        assert!(crate::random::xla::erf_inv_f64(1.5).is_nan());
    }

    #[test]
    fn nan_propagates_through_max() {
        assert!(<f32 as Arith>::max(f32::NAN, 1.0).is_nan());
        assert!(<f32 as Arith>::min(1.0, f32::NAN).is_nan());
        assert_eq!(<f32 as Arith>::max(-0.0, 0.0).to_bits(), 0);
    }

    /// The inline `floor` and `ceil` have libm's bits on a sweep of every
    /// bit pattern's neighbourhood (every 251st pattern, both signs, with
    /// NaNs, infinities, zeros, subnormals and the integers around 2^23),
    /// and on a sweep of `f64` exponents.
    #[test]
    fn inline_floor_and_ceil_are_libms() {
        for bits in (0..=u32::MAX).step_by(251).chain([
            0x8000_0000,
            0x4b00_0000,
            0xcb00_0000,
            0x4aff_ffff,
            0xcaff_ffff,
        ]) {
            let x = f32::from_bits(bits);
            let (got, want) = (super::floor_f32(x), x.floor());
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "floor({x:e}) = {got:e}, libm {want:e}"
            );
            let (got, want) = (super::ceil_f32(x), x.ceil());
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "ceil({x:e}) = {got:e}, libm {want:e}"
            );
        }
        for e in -1080i32..1100 {
            for m in [0.0, 0.25, 0.5, 0.75, 0.999_999_999, 1.0 / 3.0] {
                for sign in [1.0, -1.0] {
                    let x = sign * (1.0 + m) * 2f64.powi(e);
                    let (got, want) = (super::floor_f64(x), x.floor());
                    assert_eq!(got.to_bits(), want.to_bits(), "floor({x:e})");
                    let (got, want) = (super::ceil_f64(x), x.ceil());
                    assert_eq!(got.to_bits(), want.to_bits(), "ceil({x:e})");
                }
            }
        }
        for x in [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
        ] {
            assert_eq!(
                super::floor_f64(x).to_bits(),
                x.floor().to_bits(),
                "floor({x:e})"
            );
            assert_eq!(
                super::ceil_f64(x).to_bits(),
                x.ceil().to_bits(),
                "ceil({x:e})"
            );
        }
        assert!(super::floor_f64(f64::NAN).is_nan());
        assert!(super::ceil_f64(f64::NAN).is_nan());
    }
}
