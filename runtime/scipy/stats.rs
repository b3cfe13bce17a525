//! `jax.scipy.stats`.

pub mod norm;
