//! `jax.scipy.linalg.qr` with SciPy's default mode "full": `q [.., m, m]`,
//! `r [.., m, n]` (the `jnp::linalg::qr_with(a, QrMode::Complete)` factors).

use crate::array::{ArrayType, AsArray};
use crate::jnp::linalg::{LinalgElement, QrMode};

/// `jax.scipy.linalg.qr(a)`: the complete QR decomposition `a = q · r`,
/// `q` square orthogonal, `r` upper trapezoidal, as SciPy's default
/// `mode="full"` (`jnp::linalg::qr` defaults to the reduced one); LAPACK's
/// signs. The result types are the caller's annotation, checked when the
/// call runs.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 3, 2>::from([[3.0, 1.0], [4.0, 2.0], [0.0, 2.0]]);
/// let (q, r): (Array<f32, 3, 3>, Array<f32, 3, 2>) = jax::scipy::linalg::qr(&a);
/// assert_eq!(r.to_vec()[4..], [0.0, 0.0]);
/// assert!((q.matmul(&r).to_vec()[2] - 4.0).abs() < 1e-5);
/// ```
#[track_caller]
pub fn qr<A, Q, R>(a: A) -> (Q, R)
where
    A: AsArray,
    <A::Array as ArrayType>::Elem: LinalgElement,
    Q: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    R: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
{
    crate::jnp::linalg::qr_with(a, QrMode::Complete)
}
