//! Complex-aware elementwise functions: `jnp.real`, `imag`, `conj`,
//! `angle`, and `abs`, `exp`, `log`, `sqrt`, which take real and complex
//! arrays alike, with JAX's result types (`abs` of complex64 is float32).
//!
//! The complex kernels follow XLA's CPU formulas (scaled `abs`, `exp` as
//! `e^re (cos im, sin im)`, `log` as `log|z| + i arg z`) built on the same
//! real kernels the float functions use.

use crate::array::AsArray;
use crate::element::{Complex, Element, Float, ToInexact};
use crate::ops::{float, map, Arith};

use super::{ElemOf, WithElem};
pub use crate::ops::{Parts, ToComplex};

/// `|x|` with JAX's result type: the type itself for real types, the part
/// type for complex ones.
pub trait Abs: Element {
    /// The result element type.
    type Out: Element;
    /// `|x|`.
    fn abs(self) -> Self::Out;
}

/// `exp`, `log` and `sqrt`, in the inexact type JAX computes them in
/// (f32 for small integers, the type itself for floats and complex).
pub trait InexactMath: Element {
    /// The result element type.
    type Out: Element;
    /// `e^x`.
    fn exp(self) -> Self::Out;
    /// The natural logarithm (principal branch for complex).
    fn log(self) -> Self::Out;
    /// The square root (principal branch for complex).
    fn sqrt(self) -> Self::Out;
}

impl<T: Arith> Abs for T {
    type Out = T;
    #[inline]
    fn abs(self) -> T {
        Arith::abs(self)
    }
}

impl<T: ToInexact> InexactMath for T {
    type Out = <T as ToInexact>::Out;
    #[inline]
    fn exp(self) -> Self::Out {
        float::exp(self.cast::<Self::Out>())
    }
    #[inline]
    fn log(self) -> Self::Out {
        float::log(self.cast::<Self::Out>())
    }
    #[inline]
    fn sqrt(self) -> Self::Out {
        float::sqrt(self.cast::<Self::Out>())
    }
}

/// `|re + i im|` as XLA computes it: the larger part times
/// `sqrt(1 + (smaller / larger)^2)`, so the squares cannot overflow.
fn complex_abs<F: Float + crate::ops::Numeric>(re: F, im: F) -> F {
    let (a, b) = (Arith::abs(re), Arith::abs(im));
    let (max, min) = if a >= b { (a, b) } else { (b, a) };
    if Float::is_nan(a) || Float::is_nan(b) {
        // An infinite part wins over NaN, as C's hypot.
        return if a == F::INFINITY || b == F::INFINITY {
            F::INFINITY
        } else {
            F::NAN
        };
    }
    if max == F::ZERO || max == F::INFINITY || min == F::ZERO {
        return max;
    }
    let r = crate::ops::SubDiv::div(min, max);
    Arith::mul(max, float::sqrt(Arith::add(F::ONE, Arith::mul(r, r))))
}

/// `log|re + i im|` as XLA computes it: `log(max) + log1p((min / max)^2) / 2`,
/// accurate near `|z| = 1`.
fn log_abs<F: Float + crate::ops::Numeric>(re: F, im: F) -> F {
    let (a, b) = (Arith::abs(re), Arith::abs(im));
    let (max, min) = if a >= b { (a, b) } else { (b, a) };
    if Float::is_nan(a) || Float::is_nan(b) || max == F::ZERO || max == F::INFINITY {
        return float::log(complex_abs(re, im));
    }
    let r = crate::ops::SubDiv::div(min, max);
    let half: F = F::from_f64(0.5);
    Arith::add(
        float::log(max),
        Arith::mul(half, float::log1p(Arith::mul(r, r))),
    )
}

macro_rules! impl_complex {
    ($($t:ty),*) => {$(
        impl Abs for Complex<$t> {
            type Out = $t;
            #[inline]
            fn abs(self) -> $t {
                complex_abs(self.re, self.im)
            }
        }

        impl InexactMath for Complex<$t> {
            type Out = Self;
            #[inline]
            fn exp(self) -> Self {
                let e = float::exp(self.re);
                if self.im == 0.0 {
                    // Keeps exp(inf + 0i) = inf + 0i (not inf * sin 0 = nan).
                    return Complex::new(e, self.im);
                }
                Complex::new(e * float::cos(self.im), e * float::sin(self.im))
            }
            #[inline]
            fn log(self) -> Self {
                Complex::new(log_abs(self.re, self.im), crate::__rt::ops::atan2(self.im, self.re))
            }
            #[inline]
            fn sqrt(self) -> Self {
                // Principal root through |z|: t = sqrt((|re| + |z|) / 2), the
                // other part im / (2 t), on the side of re's sign.
                let (re, im) = (self.re, self.im);
                if re == 0.0 && im == 0.0 {
                    return Complex::new(0.0, im);
                }
                let t = float::sqrt((re.abs() + complex_abs(re, im)) * 0.5);
                if re >= 0.0 {
                    Complex::new(t, im / (2.0 * t))
                } else {
                    Complex::new(im.abs() / (2.0 * t), t.copysign(im))
                }
            }
        }
    )*};
}
impl_complex!(f32, f64);

/// The real part (`jnp.real`); real arrays are returned as they are.
///
/// ```
/// use jax::prelude::*;
/// let z = Array::<Complex<f32>, 2>::from([Complex::new(1.0, 2.0), Complex::new(-3.0, 0.5)]);
/// assert_eq!(jnp::real(&z).to_vec(), [1.0, -3.0]);
/// assert_eq!(jnp::real(Array::<i32, 1>::from([4])).to_vec(), [4]);
/// ```
pub fn real<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as Parts>::Real>
where
    ElemOf<A>: Parts,
{
    map(x.as_array(), Parts::real)
}

/// The imaginary part (`jnp.imag`); zeros of the same type for real arrays.
///
/// ```
/// use jax::prelude::*;
/// let z = Array::<Complex<f64>, 2>::from([Complex::new(1.0, 2.0), Complex::new(-3.0, 0.5)]);
/// assert_eq!(jnp::imag(&z).to_vec(), [2.0, 0.5]);
/// ```
pub fn imag<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as Parts>::Real>
where
    ElemOf<A>: Parts,
{
    map(x.as_array(), Parts::imag)
}

/// The complex conjugate (`jnp.conj`); real arrays are returned as they are.
///
/// ```
/// use jax::prelude::*;
/// let z = Array::<Complex<f32>, 1>::from([Complex::new(1.0, 2.0)]);
/// assert_eq!(jnp::conj(&z).to_vec(), [Complex::new(1.0, -2.0)]);
/// ```
pub fn conj<A: AsArray>(x: A) -> A::Array
where
    ElemOf<A>: Parts,
{
    crate::ops::map_same(x.as_array(), Parts::conj)
}

/// The complex conjugate (`jnp.conjugate`, the same as [`conj`]).
///
/// ```
/// use jax::prelude::*;
/// let z = Array::<Complex<f32>, 1>::from([Complex::new(1.0, -2.0)]);
/// assert_eq!(jnp::conjugate(&z).to_vec(), [Complex::new(1.0, 2.0)]);
/// ```
pub fn conjugate<A: AsArray>(x: A) -> A::Array
where
    ElemOf<A>: Parts,
{
    conj(x)
}

/// The argument of each element in radians, in `(-pi, pi]` (`jnp.angle`),
/// for complex and float arrays.
///
/// ```
/// use jax::prelude::*;
/// let z = Array::<Complex<f32>, 2>::from([Complex::new(0.0, 1.0), Complex::new(-1.0, 0.0)]);
/// assert_eq!(jnp::angle(&z).to_vec(), [std::f32::consts::FRAC_PI_2, std::f32::consts::PI]);
/// ```
pub fn angle<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as Parts>::Real>
where
    ElemOf<A>: Parts,
    <ElemOf<A> as Parts>::Real: Float,
{
    map(x.as_array(), |z| {
        crate::__rt::ops::atan2(z.imag(), z.real())
    })
}

/// `|x|` (`jnp.abs`): the magnitude, real-valued for complex input
/// (`abs` of complex64 is float32); for integers the most negative value
/// stays negative (it wraps), as in JAX.
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::abs(Array::<i8, 2>::from([-3, -128])).to_vec(), [3, -128]);
/// let z = Array::<Complex<f32>, 1>::from([Complex::new(3.0, -4.0)]);
/// assert_eq!(jnp::abs(&z).to_vec(), [5.0]);
/// ```
pub fn abs<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as Abs>::Out>
where
    ElemOf<A>: Abs,
{
    map(x.as_array(), Abs::abs)
}

macro_rules! inexact_math {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// Integer and bool input computes in the type [`ToInexact`] gives (f32 for
        /// types up to 32 bits); complex input stays complex.
        pub fn $name<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as InexactMath>::Out>
        where
            ElemOf<A>: InexactMath,
        {
            map(x.as_array(), InexactMath::$name)
        }
    )*};
}

inexact_math! {
    /// `e^x`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jnp::exp(Array::<f32, 2>::from([0.0, 1.0]));
    /// assert_eq!(y.to_vec(), [1.0, std::f32::consts::E]);
    /// let z = jnp::exp(Array::<Complex<f64>, 1>::from([Complex::new(0.0, std::f64::consts::PI)]));
    /// assert!((z.item().re + 1.0).abs() < 1e-15);
    /// ```
    exp;
    /// The natural logarithm.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jnp::log(Array::<f32, 2>::from([1.0, std::f32::consts::E]));
    /// assert_eq!(y.to_vec(), [0.0, 1.0]);
    /// let z = jnp::log(Array::<Complex<f32>, 1>::from([Complex::new(-1.0, 0.0)]));
    /// assert_eq!(z.to_vec(), [Complex::new(0.0, std::f32::consts::PI)]);
    /// ```
    log;
    /// The square root (principal branch).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jnp::sqrt(Array::<i32, 2>::from([4, 9])); // int input gives f32
    /// assert_eq!(y.to_vec(), [2.0f32, 3.0]);
    /// let z = jnp::sqrt(Array::<Complex<f32>, 1>::from([Complex::new(-4.0, 0.0)]));
    /// assert_eq!(z.to_vec(), [Complex::new(0.0, 2.0)]);
    /// ```
    sqrt;
}
