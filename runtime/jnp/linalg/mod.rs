//! `jnp.linalg`: factorizations, solves, determinants, norms and spectral
//! functions of matrices, over the last two axes (leading axes are a batch,
//! as in JAX). The factorizations run on faer's kernels (`runtime/rt/linalg/`);
//! the same entry points serve the jitted calls.
mod qr;
pub use qr::*;

pub(crate) mod cholesky;
pub use cholesky::*;

/// The element types the factorizations take: `f32` and `f64` (faer's real
/// types). Sealed: each family's kernels are its supertraits.
pub trait LinalgFloat: crate::element::Float + cholesky::sealed::CholeskyKernels {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}
