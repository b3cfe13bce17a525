//! Integration tests of linear algebra (jnp.linalg, scipy.linalg) and the matrix-product kernels, against JAX's values.
//!
//! One binary, the tests of each area its modules (one build and one link);
//! the helpers in `tests/support/` are shared by every binary. A test that
//! changes process-wide state has a binary of its own (`tests/memory/`,
//! `tests/debug/`, `tests/devices/`).

#[macro_use]
#[path = "../support/common/mod.rs"]
mod common;
#[path = "../support/reduce_common/mod.rs"]
mod reduce_common;

mod eig_jit;
mod gemm_epilogue;
mod gemm_kernels;
mod linalg_cholesky;
mod linalg_complex;
mod linalg_eigh;
mod linalg_gaps;
mod linalg_lu;
mod linalg_more;
mod linalg_properties;
mod linalg_qr;
mod linalg_small_kernels;
