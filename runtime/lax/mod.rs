//! The strict layer, as `jax.lax`: operands must have the same dtype (a
//! mismatch is a compile error), and parameters are explicit.

mod complex;
mod control;
mod conv;
mod dot;
mod dynamic;
mod elementwise;
mod reduce;
mod slicing;
mod sort;
mod window;

pub use complex::*;
pub use control::*;
pub use conv::*;
pub use dot::*;
pub use dynamic::*;
pub use elementwise::*;
pub use reduce::*;
pub use slicing::*;
pub use sort::*;
pub use window::*;
