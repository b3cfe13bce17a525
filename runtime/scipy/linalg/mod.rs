//! `jax.scipy.linalg`: triangular solves and the Cholesky and LU
//! factorizations with their solves, as SciPy's names and argument orders.
mod lu;
pub use lu::*;

mod qr;
pub use qr::*;
mod cholesky;
pub use cholesky::*;
