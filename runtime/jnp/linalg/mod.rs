//! `jnp.linalg`: factorizations, solves, determinants, norms and spectral
//! functions of matrices, over the last two axes (leading axes are a batch,
//! as in JAX). The factorizations run on faer's kernels (`runtime/rt/linalg/`);
//! the same entry points serve the jitted calls.

use crate::element::Float;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element types of the linear-algebra functions: `f32` and `f64`.
pub trait LinalgFloat: Float + sealed::Sealed + cholesky::sealed::CholeskyKernels {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}

pub(crate) mod lu;
pub use lu::*;

mod eigh;
pub use eigh::*;
mod qr;
pub use qr::*;

pub(crate) mod cholesky;
pub use cholesky::*;

mod lstsq;
pub use lstsq::*;
mod norm;
pub use norm::*;
mod pinv;
pub use pinv::*;
