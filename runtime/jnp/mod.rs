//! NumPy-like operations with JAX's semantics and implicit type promotion.
//!
//! Every function takes arrays by value or by reference (see
//! [`AsArray`](crate::AsArray)) and works the same eagerly and inside
//! `#[jax::jit]`.

mod close;
mod complex;
mod einsum;
mod elementwise;
pub mod linalg;
mod logaddexp;
mod manip;
mod matmul;
mod polynomial;
mod reduce;
mod sort;
mod stacking;
mod take;
mod triangle;

pub use close::*;
pub use complex::*;
pub use einsum::*;
pub use elementwise::*;
pub use logaddexp::*;
pub use manip::*;
pub use matmul::*;
pub use polynomial::*;
pub use reduce::*;
pub use sort::*;
pub use stacking::*;
pub use take::*;
pub use triangle::*;
