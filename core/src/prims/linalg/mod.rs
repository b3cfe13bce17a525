//! The linear-algebra primitives (JAX's `lax/linalg.py`), one file per
//! family, each `PrimDef` with all its rules; their kernels are the runtime's
//! `__rt::linalg` entry points over faer.

use crate::ir::primitive::Prim;

pub mod cholesky;
mod eig_jvp;
pub mod eigh;
pub mod matrix;
pub mod qr;
pub mod svd;
pub mod triangular;

pub use cholesky::CHOLESKY;
#[allow(unused_imports)]
pub use triangular::{triangular_solve, TRIANGULAR_SOLVE};

mod lu;
pub use lu::*;

/// Every linear-algebra primitive.
pub static LINALG: &[Prim] = &[
    &TRIANGULAR_SOLVE,
    &CHOLESKY,
    &LU,
    &eigh::EIGH,
    &svd::SVD,
    &qr::QR,
    &qr::EIG,
];
