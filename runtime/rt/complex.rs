//! The scalar operations of generated code that complex elements share
//! with real ones: the transcendental functions JAX allows on both, the
//! parts of a complex number. Real types keep their one
//! implementation (`crate::ops::float`); complex ones use the same formulas
//! as eager code (`jnp::exp`, `log`, `sqrt`, `abs` of complex arrays), so
//! jitted and eager results agree.

use crate::element::{Complex, Element, Float};
use crate::jnp::InexactMath;
use crate::ops::float;

/// `exp`, `log`, `log1p`, `expm1`, `sin`, `cos`, `tanh`, `sqrt`: the
/// primitives JAX accepts on float and complex operands alike.
pub trait Transcendental: Element {
    /// `e^x`.
    fn exp(self) -> Self;
    /// The natural logarithm (principal branch).
    fn log(self) -> Self;
    /// `log(1 + x)`.
    fn log1p(self) -> Self;
    /// `e^x - 1`.
    fn expm1(self) -> Self;
    /// The sine.
    fn sin(self) -> Self;
    /// The cosine.
    fn cos(self) -> Self;
    /// The hyperbolic tangent.
    fn tanh(self) -> Self;
    /// The square root (principal branch).
    fn sqrt(self) -> Self;
    /// [`sin`](Self::sin) in a blocked loop's first pass: a real argument
    /// too large for the fast reduction sets `wide` (and gives a wrong value),
    /// and the block is computed again with `sin` (`ops::sincos_near`).
    #[inline(always)]
    fn sin_near(self, wide: &mut bool) -> Self {
        let _ = wide;
        self.sin()
    }
    /// [`cos`](Self::cos) in a blocked loop's first pass, as
    /// [`sin_near`](Self::sin_near).
    #[inline(always)]
    fn cos_near(self, wide: &mut bool) -> Self {
        let _ = wide;
        self.cos()
    }
}

impl<T: Float> Transcendental for T {
    #[inline(always)]
    fn exp(self) -> T {
        float::exp(self)
    }
    #[inline(always)]
    fn log(self) -> T {
        float::log(self)
    }
    #[inline(always)]
    fn log1p(self) -> T {
        float::log1p(self)
    }
    #[inline(always)]
    fn expm1(self) -> T {
        float::expm1(self)
    }
    #[inline(always)]
    fn sin(self) -> T {
        float::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> T {
        float::cos(self)
    }
    #[inline(always)]
    fn sin_near(self, wide: &mut bool) -> T {
        float::sincos_near(self, wide).0
    }
    #[inline(always)]
    fn cos_near(self, wide: &mut bool) -> T {
        float::sincos_near(self, wide).1
    }
    #[inline(always)]
    fn tanh(self) -> T {
        float::tanh(self)
    }
    #[inline(always)]
    fn sqrt(self) -> T {
        float::sqrt(self)
    }
}

/// `lax.conj`: the conjugate of a complex value; a real value becomes a
/// complex one (with a zero imaginary part).
pub trait Conj: Element {
    /// The complex result type.
    type Out: Element;
    /// The conjugate.
    fn conj_complex(self) -> Self::Out;
}

macro_rules! impl_complex {
    ($($t:ident),*) => {$(
        impl Conj for $t {
            type Out = Complex<$t>;
            #[inline(always)]
            fn conj_complex(self) -> Complex<$t> {
                Complex::new(self, 0.0)
            }
        }

        impl Conj for Complex<$t> {
            type Out = Self;
            #[inline(always)]
            fn conj_complex(self) -> Self {
                Complex::new(self.re, -self.im)
            }
        }

        impl Transcendental for Complex<$t> {
            #[inline(always)]
            fn exp(self) -> Self {
                InexactMath::exp(self)
            }
            #[inline(always)]
            fn log(self) -> Self {
                InexactMath::log(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                InexactMath::sqrt(self)
            }
            #[inline]
            fn log1p(self) -> Self {
                // log|1 + z| = log1p(a (2 + a) + b^2) / 2: no cancellation
                // near z = 0.
                let (a, b) = (self.re, self.im);
                let re = float::log1p(a * (2.0 + a) + b * b) * 0.5;
                Complex::new(re, b.atan2(1.0 + a))
            }
            #[inline]
            fn expm1(self) -> Self {
                // Re: expm1(a) cos b - 2 sin^2(b / 2) (= e^a cos b - 1).
                let (a, b) = (self.re, self.im);
                let s = (b * 0.5).sin();
                let re = float::expm1(a) * b.cos() - 2.0 * s * s;
                Complex::new(re, float::exp(a) * b.sin())
            }
            #[inline]
            fn sin(self) -> Self {
                let (a, b) = (self.re, self.im);
                Complex::new(a.sin() * b.cosh(), a.cos() * b.sinh())
            }
            #[inline]
            fn cos(self) -> Self {
                let (a, b) = (self.re, self.im);
                Complex::new(a.cos() * b.cosh(), -(a.sin() * b.sinh()))
            }
            #[inline]
            fn tanh(self) -> Self {
                // (sinh 2a + i sin 2b) / (cosh 2a + cos 2b); for large |a|
                // the quotient is ±1 and the terms would overflow.
                let (a, b) = (self.re, self.im);
                if a.abs() > 20.0 {
                    return Complex::new((1.0 as $t).copysign(a), (0.0 as $t).copysign((2.0 * b).sin()));
                }
                let d = (2.0 * a).cosh() + (2.0 * b).cos();
                Complex::new((2.0 * a).sinh() / d, (2.0 * b).sin() / d)
            }
        }
    )*};
}
impl_complex!(f32, f64);
