//! `jax.scipy`: special functions (`special`) and the normal distribution
//! (`stats::norm`), with JAX's formulas, eagerly and inside `#[jax::jit]`.

pub(crate) mod gamma;
pub mod linalg;
pub mod special;
pub mod stats;
