//! `lax.complex`: a complex array from real and imaginary parts, and
//! `lax.real`, `lax.imag`, `lax.conj`, which take complex arrays.

use crate::__rt::ops::Conj;
use crate::array::AsArray;
use crate::array::{ElemOf, WithElem};
use crate::element::Complex;
use crate::ops::{map, zip_with, Parts, ToComplex};

/// `re + i im` elementwise (`lax.complex`): float32 parts give complex64,
/// float64 parts complex128; both arrays have the same shape.
///
/// ```
/// use jax::prelude::*;
/// let re = Array::<f32, 2>::from([1.0, -2.0]);
/// let im = Array::<f32, 2>::from([0.5, 3.0]);
/// let z = lax::complex(&re, &im);
/// assert_eq!(z.to_vec(), [Complex::new(1.0, 0.5), Complex::new(-2.0, 3.0)]);
/// ```
#[track_caller]
pub fn complex<A: AsArray>(
    re: A,
    im: impl AsArray<Array = A::Array>,
) -> WithElem<A, <ElemOf<A> as ToComplex>::Out>
where
    ElemOf<A>: ToComplex,
{
    let (re, im) = (re.as_array(), im.as_array());
    zip_with(
        "complex",
        crate::ops::View::of(re),
        crate::ops::View::of(im),
        |a: ElemOf<A>, b: ElemOf<A>| ToComplex::complex(a, b),
    )
}

/// The complex element types (`Complex<f32>`, `Complex<f64>`): what
/// `lax::real` and `lax::imag` take (JAX's `lax.real` rejects real arrays).
pub trait ComplexElement: Parts {}
impl ComplexElement for Complex<f32> {}
impl ComplexElement for Complex<f64> {}

/// The real part of each element of a complex array (`lax.real`).
///
/// ```
/// use jax::prelude::*;
/// let z = Array::<Complex<f32>, 2>::from([Complex::new(1.0, 2.0), Complex::new(-3.0, 0.5)]);
/// assert_eq!(lax::real(&z).to_vec(), [1.0, -3.0]);
/// ```
pub fn real<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as Parts>::Real>
where
    ElemOf<A>: ComplexElement,
{
    map(x.as_array(), Parts::real)
}

/// The imaginary part of each element of a complex array (`lax.imag`).
///
/// ```
/// use jax::prelude::*;
/// let z = Array::<Complex<f32>, 2>::from([Complex::new(1.0, 2.0), Complex::new(-3.0, 0.5)]);
/// assert_eq!(lax::imag(&z).to_vec(), [2.0, 0.5]);
/// ```
pub fn imag<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as Parts>::Real>
where
    ElemOf<A>: ComplexElement,
{
    map(x.as_array(), Parts::imag)
}

/// The complex conjugate (`lax.conj`): a float32 or float64 array becomes
/// complex64 or complex128, as in JAX.
///
/// ```
/// use jax::prelude::*;
/// let z = Array::<Complex<f32>, 1>::from([Complex::new(1.0, 2.0)]);
/// assert_eq!(lax::conj(&z).to_vec(), [Complex::new(1.0, -2.0)]);
/// let x = Array::<f32, 1>::from([3.0]);
/// assert_eq!(lax::conj(&x).to_vec(), [Complex::new(3.0, 0.0)]);
/// ```
pub fn conj<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as Conj>::Out>
where
    ElemOf<A>: Conj,
{
    crate::ops::map(x.as_array(), Conj::conj_complex)
}
