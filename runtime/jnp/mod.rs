//! NumPy-like operations with JAX's semantics and implicit type promotion.
//!
//! Every function takes arrays by value or by reference (see
//! [`AsArray`](crate::AsArray)) and works the same eagerly and inside
//! `#[jax::jit]`.

mod elementwise;
mod linalg;
mod manip;
mod reduce;
mod sort;

pub use elementwise::*;
pub use linalg::*;
pub use manip::*;
pub use reduce::*;
pub use sort::*;
