//! `lax.complex`: a complex array from real and imaginary parts.

use crate::array::AsArray;
use crate::jnp::{ElemOf, ToComplex, WithElem};
use crate::ops::zip_with;

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
