//! `jnp.linalg`: factorizations, solves, determinants, norms and spectral
//! functions of matrices, over the last two axes (leading axes are a batch,
//! as in JAX). The factorizations run on faer's kernels (`runtime/rt/linalg/`);
//! the same entry points serve the jitted calls.
mod qr;
pub use qr::*;
