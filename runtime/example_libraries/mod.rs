//! The libraries JAX's own examples import, so those programs port without
//! rewriting their model code: [`optimizers`] (`jax.example_libraries.optimizers`)
//! and [`stax`] (`jax.example_libraries.stax`).
//!
//! JAX keeps them "to be used as examples" beside optax and flax; its
//! examples (`kernel_lsq.py`, `mnist_classifier.py`, `mnist_vae.py`,
//! `differentially_private_sgd.py`, `advi.py`, ...) are written with them.

pub mod optimizers;
pub mod stax;
