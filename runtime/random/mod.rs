//! JAX's default pseudo-random generator, threefry2x32, bit for bit.
//!
//! The counter-based block cipher is here; keys, `split`, `fold_in`, `bits`
//! and the samplers are built on it.

mod threefry;

pub use threefry::{threefry2x32, threefry_2x32};
