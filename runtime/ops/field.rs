//! The kernels of `+`, `-`, `*`, `/` and negation, shared by the real
//! element types (through [`Arith`] and [`Numeric`]) and the complex ones.
//!
//! The operators use these traits as bounds, so complex arrays add and
//! multiply while `%`, `max` or `<` on them stay compile errors.

use crate::element::{Complex, Element};
use crate::ops::{Arith, Numeric};

/// Element types with `+` and `*`: every element type.
pub trait AddMul: Element {
    /// `a + b` (see [`Arith::add`]).
    fn add(a: Self, b: Self) -> Self;
    /// `a * b` (see [`Arith::mul`]).
    fn mul(a: Self, b: Self) -> Self;
}

/// Element types with `-`, `/` and negation: every type but `bool`.
pub trait SubDiv: AddMul {
    /// `a - b` (see [`Numeric::sub`]).
    fn sub(a: Self, b: Self) -> Self;
    /// `a / b` (see [`Numeric::div`]).
    fn div(a: Self, b: Self) -> Self;
    /// `-a`.
    fn neg(a: Self) -> Self;
}

impl<T: Arith> AddMul for T {
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        Arith::add(a, b)
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        Arith::mul(a, b)
    }
}

impl<T: Numeric> SubDiv for T {
    #[inline(always)]
    fn sub(a: Self, b: Self) -> Self {
        Numeric::sub(a, b)
    }
    #[inline(always)]
    fn div(a: Self, b: Self) -> Self {
        Numeric::div(a, b)
    }
    #[inline(always)]
    fn neg(a: Self) -> Self {
        Numeric::neg(a)
    }
}

macro_rules! impl_complex {
    ($($t:ty),*) => {$(
        impl AddMul for Complex<$t> {
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                Complex::new(a.re + b.re, a.im + b.im)
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                // XLA's CPU code contracts each part into one fused multiply-add.
                Complex::new(
                    a.re.mul_add(b.re, -(a.im * b.im)),
                    a.im.mul_add(b.re, a.re * b.im),
                )
            }
        }
        impl SubDiv for Complex<$t> {
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self {
                Complex::new(a.re - b.re, a.im - b.im)
            }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                complex_div(a, b)
            }
            #[inline(always)]
            fn neg(a: Self) -> Self {
                Complex::new(-a.re, -a.im)
            }
        }
    )*};
}
impl_complex!(f32, f64);

/// Complex division as XLA computes it: Smith's algorithm, which scales by
/// the larger part of the divisor so that `|b|^2` cannot overflow.
#[inline(always)]
fn complex_div<T: num_traits_float::Real>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if b.re.abs() >= b.im.abs() {
        let ratio = b.im / b.re;
        let denom = b.re + b.im * ratio;
        Complex::new((a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom)
    } else {
        let ratio = b.re / b.im;
        let denom = b.im + b.re * ratio;
        Complex::new((a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom)
    }
}

/// The float operations [`complex_div`] needs, for `f32` and `f64`.
mod num_traits_float {
    use std::ops::{Add, Div, Mul, Sub};
    pub trait Real:
        Copy
        + PartialOrd
        + Add<Output = Self>
        + Sub<Output = Self>
        + Mul<Output = Self>
        + Div<Output = Self>
    {
        fn abs(self) -> Self;
    }
    impl Real for f32 {
        fn abs(self) -> Self {
            f32::abs(self)
        }
    }
    impl Real for f64 {
        fn abs(self) -> Self {
            f64::abs(self)
        }
    }
}
