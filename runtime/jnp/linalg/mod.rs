//! `jnp.linalg`: factorizations, solves, determinants, norms and spectral
//! functions of matrices, over the last two axes (leading axes are a batch,
//! as in JAX). The factorizations run on faer's kernels (`runtime/rt/linalg/`);
//! the same entry points serve the jitted calls.

mod eigh;
pub use eigh::*;

/// The element types the factorizations run on: `f32` and `f64` (complex
/// ones are not supported yet).
pub trait LinalgFloat: crate::element::Element + crate::element::Float {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}
