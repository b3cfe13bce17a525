//! Scalar operations, one function per elementwise primitive and named
//! after it, with XLA's semantics. Generated code calls these inside its
//! loops; they are `#[inline(always)]` so the loops vectorize.
//!
//! Integers wrap; division by zero gives -1 (all bits set) and remainder by
//! zero gives the dividend, as XLA; `bf16`/`f16` compute in `f32` and round
//! once per operation, as XLA's CPU backend does.

use crate::element::{bf16, f16, Element, Float};

/// Arithmetic every element type has (bool: `add` is or, `mul` is and).
pub trait Arith: Element {
    /// The smallest value: `-inf` for floats, `MIN` for ints, `false`.
    const LOWEST: Self;
    /// The largest value.
    const HIGHEST: Self;
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn div(a: Self, b: Self) -> Self;
    fn rem(a: Self, b: Self) -> Self;
    fn neg(a: Self) -> Self;
    fn abs(a: Self) -> Self;
    fn sign(a: Self) -> Self;
    /// NaN-propagating maximum.
    fn max(a: Self, b: Self) -> Self;
    /// NaN-propagating minimum.
    fn min(a: Self, b: Self) -> Self;
}

/// Bitwise operations of bool and integer types.
pub trait Logical: Element {
    fn and(a: Self, b: Self) -> Self;
    fn or(a: Self, b: Self) -> Self;
    fn xor(a: Self, b: Self) -> Self;
    fn not(a: Self) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            #[inline(always)] fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline(always)] fn sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            #[inline(always)] fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                if b == 0 { !0 } else { a.wrapping_div(b) }
            }
            #[inline(always)]
            fn rem(a: Self, b: Self) -> Self {
                if b == 0 { a } else { a.wrapping_rem(b) }
            }
            #[inline(always)] fn neg(a: Self) -> Self { (0 as $t).wrapping_sub(a) }
            #[inline(always)]
            fn abs(a: Self) -> Self {
                #[allow(unused_comparisons)]
                if a < 0 { (0 as $t).wrapping_sub(a) } else { a }
            }
            #[inline(always)]
            fn sign(a: Self) -> Self {
                #[allow(unused_comparisons)]
                if a > 0 { 1 } else if a < 0 { (0 as $t).wrapping_sub(1) } else { 0 }
            }
            #[inline(always)] fn max(a: Self, b: Self) -> Self { if a > b { a } else { b } }
            #[inline(always)] fn min(a: Self, b: Self) -> Self { if a < b { a } else { b } }
        }
        impl Logical for $t {
            #[inline(always)] fn and(a: Self, b: Self) -> Self { a & b }
            #[inline(always)] fn or(a: Self, b: Self) -> Self { a | b }
            #[inline(always)] fn xor(a: Self, b: Self) -> Self { a ^ b }
            #[inline(always)] fn not(a: Self) -> Self { !a }
        }
    )*};
}
int_arith!(u8, u16, u32, u64, i8, i16, i32, i64);

impl Arith for bool {
    const LOWEST: Self = false;
    const HIGHEST: Self = true;
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline(always)]
    fn sub(a: Self, b: Self) -> Self {
        a ^ b
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline(always)]
    fn div(a: Self, _: Self) -> Self {
        a
    }
    #[inline(always)]
    fn rem(_: Self, _: Self) -> Self {
        false
    }
    #[inline(always)]
    fn neg(a: Self) -> Self {
        a
    }
    #[inline(always)]
    fn abs(a: Self) -> Self {
        a
    }
    #[inline(always)]
    fn sign(a: Self) -> Self {
        a
    }
    #[inline(always)]
    fn max(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline(always)]
    fn min(a: Self, b: Self) -> Self {
        a & b
    }
}

impl Logical for bool {
    #[inline(always)]
    fn and(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline(always)]
    fn or(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline(always)]
    fn xor(a: Self, b: Self) -> Self {
        a ^ b
    }
    #[inline(always)]
    fn not(a: Self) -> Self {
        !a
    }
}

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            #[inline(always)] fn add(a: Self, b: Self) -> Self { a + b }
            #[inline(always)] fn sub(a: Self, b: Self) -> Self { a - b }
            #[inline(always)] fn mul(a: Self, b: Self) -> Self { a * b }
            #[inline(always)] fn div(a: Self, b: Self) -> Self { a / b }
            #[inline(always)] fn rem(a: Self, b: Self) -> Self { a % b }
            #[inline(always)] fn neg(a: Self) -> Self { -a }
            #[inline(always)] fn abs(a: Self) -> Self { a.abs() }
            #[inline(always)]
            fn sign(a: Self) -> Self {
                // Keeps ±0 and NaN, as lax.sign.
                if a > 0.0 { 1.0 } else if a < 0.0 { -1.0 } else { a }
            }
            #[inline(always)]
            fn max(a: Self, b: Self) -> Self {
                if a.is_nan() || b.is_nan() { <$t>::NAN } else if a > b { a } else { b }
            }
            #[inline(always)]
            fn min(a: Self, b: Self) -> Self {
                if a.is_nan() || b.is_nan() { <$t>::NAN } else if a < b { a } else { b }
            }
        }
    )*};
}
float_arith!(f32, f64);

// Half types: one f32 operation, rounded once.
macro_rules! half_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            #[inline(always)] fn add(a: Self, b: Self) -> Self { via2(a, b, |x, y| x + y) }
            #[inline(always)] fn sub(a: Self, b: Self) -> Self { via2(a, b, |x, y| x - y) }
            #[inline(always)] fn mul(a: Self, b: Self) -> Self { via2(a, b, |x, y| x * y) }
            #[inline(always)] fn div(a: Self, b: Self) -> Self { via2(a, b, |x, y| x / y) }
            #[inline(always)] fn rem(a: Self, b: Self) -> Self { via2(a, b, |x, y| x % y) }
            #[inline(always)] fn neg(a: Self) -> Self { -a }
            #[inline(always)] fn abs(a: Self) -> Self { via1(a, f32::abs) }
            #[inline(always)] fn sign(a: Self) -> Self { via1(a, <f32 as Arith>::sign) }
            #[inline(always)] fn max(a: Self, b: Self) -> Self { via2(a, b, <f32 as Arith>::max) }
            #[inline(always)] fn min(a: Self, b: Self) -> Self { via2(a, b, <f32 as Arith>::min) }
        }
    )*};
}
half_arith!(f16, bf16);

#[inline(always)]
fn via1<T: Float>(a: T, f: impl Fn(f32) -> f32) -> T {
    T::from_f32(f(a.to_f32()))
}

#[inline(always)]
fn via2<T: Float>(a: T, b: T, f: impl Fn(f32, f32) -> f32) -> T {
    T::from_f32(f(a.to_f32(), b.to_f32()))
}

/// Transcendental and rounding functions of floating types.
pub trait FloatMath: Float + Arith {
    fn exp(x: Self) -> Self;
    fn exp2(x: Self) -> Self;
    fn log(x: Self) -> Self;
    fn log1p(x: Self) -> Self;
    fn expm1(x: Self) -> Self;
    fn sin(x: Self) -> Self;
    fn cos(x: Self) -> Self;
    fn tan(x: Self) -> Self;
    fn tanh(x: Self) -> Self;
    fn sinh(x: Self) -> Self;
    fn cosh(x: Self) -> Self;
    fn asin(x: Self) -> Self;
    fn acos(x: Self) -> Self;
    fn atan(x: Self) -> Self;
    fn asinh(x: Self) -> Self;
    fn acosh(x: Self) -> Self;
    fn atanh(x: Self) -> Self;
    fn sqrt(x: Self) -> Self;
    fn cbrt(x: Self) -> Self;
    fn floor(x: Self) -> Self;
    fn ceil(x: Self) -> Self;
    /// Half away from zero (lax.round's default).
    fn round(x: Self) -> Self;
    /// Half to even (jnp.round).
    fn round_even(x: Self) -> Self;
    fn erf(x: Self) -> Self;
    fn erfc(x: Self) -> Self;
    fn pow(x: Self, y: Self) -> Self;
    fn atan2(y: Self, x: Self) -> Self;
    fn nextafter(x: Self, y: Self) -> Self;
    fn is_finite(x: Self) -> bool;
}

macro_rules! std_math {
    ($t:ty, $erf:path, $erfc:path, $nextafter:path) => {
        impl FloatMath for $t {
            #[inline(always)] fn exp(x: Self) -> Self { x.exp() }
            #[inline(always)] fn exp2(x: Self) -> Self { x.exp2() }
            #[inline(always)] fn log(x: Self) -> Self { x.ln() }
            #[inline(always)] fn log1p(x: Self) -> Self { x.ln_1p() }
            #[inline(always)] fn expm1(x: Self) -> Self { x.exp_m1() }
            #[inline(always)] fn sin(x: Self) -> Self { x.sin() }
            #[inline(always)] fn cos(x: Self) -> Self { x.cos() }
            #[inline(always)] fn tan(x: Self) -> Self { x.tan() }
            #[inline(always)] fn tanh(x: Self) -> Self { x.tanh() }
            #[inline(always)] fn sinh(x: Self) -> Self { x.sinh() }
            #[inline(always)] fn cosh(x: Self) -> Self { x.cosh() }
            #[inline(always)] fn asin(x: Self) -> Self { x.asin() }
            #[inline(always)] fn acos(x: Self) -> Self { x.acos() }
            #[inline(always)] fn atan(x: Self) -> Self { x.atan() }
            #[inline(always)] fn asinh(x: Self) -> Self { x.asinh() }
            #[inline(always)] fn acosh(x: Self) -> Self { x.acosh() }
            #[inline(always)] fn atanh(x: Self) -> Self { x.atanh() }
            #[inline(always)] fn sqrt(x: Self) -> Self { x.sqrt() }
            #[inline(always)] fn cbrt(x: Self) -> Self { x.cbrt() }
            #[inline(always)] fn floor(x: Self) -> Self { x.floor() }
            #[inline(always)] fn ceil(x: Self) -> Self { x.ceil() }
            #[inline(always)] fn round(x: Self) -> Self { x.round() }
            #[inline(always)] fn round_even(x: Self) -> Self { x.round_ties_even() }
            #[inline(always)] fn erf(x: Self) -> Self { $erf(x) }
            #[inline(always)] fn erfc(x: Self) -> Self { $erfc(x) }
            #[inline(always)] fn pow(x: Self, y: Self) -> Self { x.powf(y) }
            #[inline(always)] fn atan2(y: Self, x: Self) -> Self { y.atan2(x) }
            #[inline(always)] fn nextafter(x: Self, y: Self) -> Self { $nextafter(x, y) }
            #[inline(always)] fn is_finite(x: Self) -> bool { x.is_finite() }
        }
    };
}
std_math!(f32, libm::erff, libm::erfcf, libm::nextafterf);
std_math!(f64, libm::erf, libm::erfc, libm::nextafter);

macro_rules! half_math {
    ($t:ty) => {
        impl FloatMath for $t {
            #[inline(always)] fn exp(x: Self) -> Self { via1(x, f32::exp) }
            #[inline(always)] fn exp2(x: Self) -> Self { via1(x, f32::exp2) }
            #[inline(always)] fn log(x: Self) -> Self { via1(x, f32::ln) }
            #[inline(always)] fn log1p(x: Self) -> Self { via1(x, f32::ln_1p) }
            #[inline(always)] fn expm1(x: Self) -> Self { via1(x, f32::exp_m1) }
            #[inline(always)] fn sin(x: Self) -> Self { via1(x, f32::sin) }
            #[inline(always)] fn cos(x: Self) -> Self { via1(x, f32::cos) }
            #[inline(always)] fn tan(x: Self) -> Self { via1(x, f32::tan) }
            #[inline(always)] fn tanh(x: Self) -> Self { via1(x, f32::tanh) }
            #[inline(always)] fn sinh(x: Self) -> Self { via1(x, f32::sinh) }
            #[inline(always)] fn cosh(x: Self) -> Self { via1(x, f32::cosh) }
            #[inline(always)] fn asin(x: Self) -> Self { via1(x, f32::asin) }
            #[inline(always)] fn acos(x: Self) -> Self { via1(x, f32::acos) }
            #[inline(always)] fn atan(x: Self) -> Self { via1(x, f32::atan) }
            #[inline(always)] fn asinh(x: Self) -> Self { via1(x, f32::asinh) }
            #[inline(always)] fn acosh(x: Self) -> Self { via1(x, f32::acosh) }
            #[inline(always)] fn atanh(x: Self) -> Self { via1(x, f32::atanh) }
            #[inline(always)] fn sqrt(x: Self) -> Self { via1(x, f32::sqrt) }
            #[inline(always)] fn cbrt(x: Self) -> Self { via1(x, f32::cbrt) }
            #[inline(always)] fn floor(x: Self) -> Self { via1(x, f32::floor) }
            #[inline(always)] fn ceil(x: Self) -> Self { via1(x, f32::ceil) }
            #[inline(always)] fn round(x: Self) -> Self { via1(x, f32::round) }
            #[inline(always)] fn round_even(x: Self) -> Self { via1(x, f32::round_ties_even) }
            #[inline(always)] fn erf(x: Self) -> Self { via1(x, libm::erff) }
            #[inline(always)] fn erfc(x: Self) -> Self { via1(x, libm::erfcf) }
            #[inline(always)] fn pow(x: Self, y: Self) -> Self { via2(x, y, f32::powf) }
            #[inline(always)] fn atan2(y: Self, x: Self) -> Self { via2(y, x, f32::atan2) }
            #[inline(always)]
            fn nextafter(x: Self, y: Self) -> Self {
                // One step in the half type's own spacing.
                if x.is_nan() || y.is_nan() {
                    return <$t>::NAN;
                }
                if x == y {
                    return y;
                }
                if x.to_f32() == 0.0 {
                    let tiny = <$t>::from_bits(1);
                    return if y > x { tiny } else { -tiny };
                }
                let up = (y > x) == (x.to_f32() > 0.0);
                let bits = x.to_bits();
                <$t>::from_bits(if up { bits + 1 } else { bits - 1 })
            }
            #[inline(always)] fn is_finite(x: Self) -> bool { x.is_finite() }
        }
    };
}
half_math!(f16);
half_math!(bf16);

macro_rules! unary {
    ($($name:ident),*) => {$(
        #[inline(always)]
        pub fn $name<T: FloatMath>(x: T) -> T {
            T::$name(x)
        }
    )*};
}
unary!(exp, exp2, log, log1p, expm1, sin, cos, tan, tanh, sinh, cosh, asin, acos, atan, asinh, acosh, atanh, sqrt, cbrt, floor, ceil, round, erf, erfc);

#[inline(always)]
pub fn rsqrt<T: FloatMath>(x: T) -> T {
    T::div(T::ONE, T::sqrt(x))
}

/// `1 / (1 + exp(-x))`.
#[inline(always)]
pub fn logistic<T: FloatMath>(x: T) -> T {
    T::div(T::ONE, T::add(T::ONE, T::exp(T::neg(x))))
}

/// The inverse error function: Giles' single-precision approximation
/// ("Approximating the erfinv function", 2010), refined by Newton steps on
/// `erf` in f64 so every width gets its full precision.
#[inline]
pub fn erf_inv<T: FloatMath>(x: T) -> T {
    T::from_f64(erf_inv_f64(x.to_f64()))
}

fn erf_inv_f64(y: f64) -> f64 {
    if y.is_nan() || !(-1.0..=1.0).contains(&y) {
        return f64::NAN;
    }
    if y == 1.0 {
        return f64::INFINITY;
    }
    if y == -1.0 {
        return f64::NEG_INFINITY;
    }
    let w = -((1.0 - y) * (1.0 + y)).ln();
    let mut p;
    if w < 5.0 {
        let w = w - 2.5;
        p = 2.810_226_36e-08;
        for c in [
            3.432_739_39e-07,
            -3.523_387_7e-06,
            -4.391_506_54e-06,
            0.000_218_580_87,
            -0.001_253_725_03,
            -0.004_177_681_64,
            0.246_640_727,
            1.501_409_41,
        ] {
            p = c + p * w;
        }
    } else {
        let w = w.sqrt() - 3.0;
        p = -0.000_200_214_257;
        for c in [
            0.000_100_950_558,
            0.001_349_343_22,
            -0.003_673_428_44,
            0.005_739_507_73,
            -0.007_622_461_3,
            0.009_438_870_47,
            1.001_674_06,
            2.832_976_82,
        ] {
            p = c + p * w;
        }
    }
    let mut x = p * y;
    // Newton on erf(x) = y; the derivative is 2/sqrt(pi) exp(-x^2).
    for _ in 0..3 {
        let d = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
        if d == 0.0 {
            break;
        }
        x -= (libm::erf(x) - y) / d;
    }
    x
}

#[inline(always)]
pub fn pow<T: FloatMath>(x: T, y: T) -> T {
    T::pow(x, y)
}

#[inline(always)]
pub fn atan2<T: FloatMath>(y: T, x: T) -> T {
    T::atan2(y, x)
}

#[inline(always)]
pub fn nextafter<T: FloatMath>(x: T, y: T) -> T {
    T::nextafter(x, y)
}

#[inline(always)]
pub fn is_finite<T: FloatMath>(x: T) -> bool {
    T::is_finite(x)
}

macro_rules! arith_binary {
    ($($name:ident),*) => {$(
        #[inline(always)]
        pub fn $name<T: Arith>(a: T, b: T) -> T {
            T::$name(a, b)
        }
    )*};
}
arith_binary!(add, sub, mul, div, rem, max, min);

/// `add_any`: the sum of two cotangents (the same as `add`).
#[inline(always)]
pub fn add_any<T: Arith>(a: T, b: T) -> T {
    T::add(a, b)
}

macro_rules! arith_unary {
    ($($name:ident),*) => {$(
        #[inline(always)]
        pub fn $name<T: Arith>(a: T) -> T {
            T::$name(a)
        }
    )*};
}
arith_unary!(neg, abs, sign);

#[inline(always)]
pub fn square<T: Arith>(x: T) -> T {
    T::mul(x, x)
}

macro_rules! logical {
    ($($name:ident),*) => {$(
        #[inline(always)]
        pub fn $name<T: Logical>(a: T, b: T) -> T {
            T::$name(a, b)
        }
    )*};
}
logical!(and, or, xor);

#[inline(always)]
pub fn not<T: Logical>(a: T) -> T {
    T::not(a)
}

macro_rules! compare {
    ($($name:ident => $op:tt),*) => {$(
        #[inline(always)]
        pub fn $name<T: Element>(a: T, b: T) -> bool {
            a $op b
        }
    )*};
}
compare!(eq => ==, ne => !=, lt => <, le => <=, gt => >, ge => >=);

/// The identity on values; it only matters to differentiation.
#[inline(always)]
pub fn stop_gradient<T: Element>(x: T) -> T {
    x
}

/// `clamp(lo, x, hi)`.
#[inline(always)]
pub fn clamp<T: Arith>(lo: T, x: T, hi: T) -> T {
    T::min(T::max(x, lo), hi)
}

/// `select_n(which, on_false, on_true)` for a bool predicate.
#[inline(always)]
pub fn select<T: Element>(which: bool, on_false: T, on_true: T) -> T {
    if which {
        on_true
    } else {
        on_false
    }
}

/// `select_n(which, cases..)` for an int32 index (clamped).
#[inline(always)]
pub fn select_n<T: Element, const N: usize>(which: i32, cases: [T; N]) -> T {
    cases[(which.max(0) as usize).min(N - 1)]
}

/// XLA's conversion (saturating float to int, NaN to 0, wrapping ints).
#[inline(always)]
pub fn convert<F: Element, T: Element>(x: F) -> T {
    x.cast::<T>()
}

/// `x ** y` by binary exponentiation, the multiplications JAX emits.
#[inline(always)]
pub fn integer_pow<T: Arith>(x: T, y: i32) -> T {
    let mut n = y.unsigned_abs();
    let mut base = x;
    let mut acc: Option<T> = None;
    while n > 0 {
        if n & 1 == 1 {
            acc = Some(match acc {
                None => base,
                Some(a) => T::mul(a, base),
            });
        }
        n >>= 1;
        if n > 0 {
            base = T::mul(base, base);
        }
    }
    let r = acc.unwrap_or(T::ONE);
    if y < 0 {
        T::div(T::ONE, r)
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_semantics_are_xla() {
        assert_eq!(div(1i32, 0), -1);
        assert_eq!(div(7u8, 0), 255);
        assert_eq!(div(i32::MIN, -1), i32::MIN);
        assert_eq!(rem(5i32, 0), 5);
        assert_eq!(rem(i32::MIN, -1), 0);
        assert_eq!(add(i32::MAX, 1), i32::MIN);
        assert_eq!(abs(i8::MIN), i8::MIN);
    }

    #[test]
    fn nan_propagates_through_max_and_min() {
        assert!(max(1.0f32, f32::NAN).is_nan());
        assert!(min(f32::NAN, 1.0f32).is_nan());
        assert_eq!(max(1.0f32, 2.0), 2.0);
    }

    #[test]
    fn erf_inv_inverts_erf() {
        for &y in &[-0.999, -0.5, -1e-6, 0.0, 0.3, 0.9, 0.999_999] {
            let x = erf_inv(y as f64);
            assert!((libm::erf(x) - y).abs() < 1e-15, "{y}");
        }
        assert_eq!(erf_inv(1.0f32), f32::INFINITY);
        assert!(erf_inv(1.5f32).is_nan());
    }

    #[test]
    fn integer_pow_matches_repeated_products() {
        assert_eq!(integer_pow(3i32, 5), 243);
        assert_eq!(integer_pow(2.0f32, -2), 0.25);
        assert_eq!(integer_pow(1.5f32, 0), 1.0);
        assert_eq!(integer_pow(2i8, 8), 0);
    }

    #[test]
    fn half_types_round_once() {
        let a = f16::from_f32(1.0);
        let b = f16::from_f32(0.000_1);
        assert_eq!(add(a, b), f16::from_f32(1.0001));
        assert_eq!(nextafter(f16::from_f32(1.0), f16::from_f32(2.0)).to_bits(), 0x3c01);
    }
}
