//! Element types as real and imaginary parts: [`Parts`] (every element
//! type; real ones have a zero imaginary part) and [`ToComplex`] (the
//! complex type two floats make), below `lax` and `jnp`, which both take
//! them.

use crate::element::{Complex, Element, Float};
use crate::ops::Arith;

/// Element types with a real and an imaginary part: every element type
/// (real ones have a zero imaginary part and are their own conjugate).
pub trait Parts: Element {
    /// The type of each part: itself for real types, `f32`/`f64` for complex.
    type Real: Element;
    /// The real part.
    fn real(self) -> Self::Real;
    /// The imaginary part (zero for real types).
    fn imag(self) -> Self::Real;
    /// The complex conjugate (the value itself for real types).
    fn conj(self) -> Self;
}

impl<T: Arith> Parts for T {
    type Real = T;
    #[inline]
    fn real(self) -> T {
        self
    }
    #[inline]
    fn imag(self) -> T {
        T::ZERO
    }
    #[inline]
    fn conj(self) -> T {
        self
    }
}

macro_rules! impl_complex_parts {
    ($($t:ty),*) => {$(
        impl Parts for Complex<$t> {
            type Real = $t;
            #[inline]
            fn real(self) -> $t {
                self.re
            }
            #[inline]
            fn imag(self) -> $t {
                self.im
            }
            #[inline]
            fn conj(self) -> Self {
                Complex::new(self.re, -self.im)
            }
        }
    )*};
}
impl_complex_parts!(f32, f64);

/// Elements with a complex type made of two of them (`lax.complex`).
pub trait ToComplex: Float {
    /// `Complex<Self>`.
    type Out: Element;
    /// `re + i im`.
    fn complex(re: Self, im: Self) -> Self::Out;
}

impl ToComplex for f32 {
    type Out = Complex<f32>;
    fn complex(re: f32, im: f32) -> Complex<f32> {
        Complex::new(re, im)
    }
}

impl ToComplex for f64 {
    type Out = Complex<f64>;
    fn complex(re: f64, im: f64) -> Complex<f64> {
        Complex::new(re, im)
    }
}
