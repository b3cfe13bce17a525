//! The strict layer, as `jax.lax`: operands must have the same dtype (a
//! mismatch is a compile error), and parameters are explicit.

mod control;
mod dot;
mod elementwise;
mod reduce;
mod slicing;
mod sort;

pub use control::*;
pub use dot::*;
pub use elementwise::*;
pub use reduce::*;
pub use slicing::*;
pub use sort::*;
