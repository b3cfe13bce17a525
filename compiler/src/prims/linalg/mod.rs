//! The linear-algebra primitives (JAX's `lax/linalg.py`), one file per
//! family, each `PrimDef` with all its rules; their kernels are the runtime's
//! `__rt::linalg` entry points over faer.

use crate::ir::primitive::Prim;

pub(crate) mod cholesky;
mod eig_jvp;
pub(crate) mod eigh;
pub(crate) mod matrix;
pub(crate) mod qr;
pub(crate) mod svd;
pub(crate) mod triangular;

pub(crate) use cholesky::CHOLESKY;
#[allow(unused_imports)]
pub(crate) use triangular::{triangular_solve, TRIANGULAR_SOLVE};

mod lu;
pub(crate) use lu::*;

/// Every linear-algebra primitive.
pub(crate) static LINALG: &[Prim] = &[
    &TRIANGULAR_SOLVE,
    &CHOLESKY,
    &LU,
    &eigh::EIGH,
    &svd::SVD,
    &qr::QR,
    &qr::EIG,
];
