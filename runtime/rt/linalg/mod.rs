//! The kernels of the linear-algebra primitives over faer: non-generic entry
//! points (one per element type) that jitted code and the eager
//! `jnp::linalg`/`scipy::linalg` functions both call, each over a batch of
//! row-major matrices laid out one after another.
pub mod qr;
pub use qr::*;
pub mod triangular;
pub use triangular::*;
pub mod lu;
pub use lu::*;
pub mod eigh;
pub use eigh::*;
pub mod cholesky;
pub use cholesky::*;
pub mod complex_kernels;
pub use complex_kernels::*;
