//! The core of `jax`, below both its compiler and its runtime: the jaxpr,
//! what a primitive is, every primitive with its rules, and the
//! transformations from jaxpr to jaxpr.
//!
//! Folders, each using only those listed before it (`ARCHITECTURE.md` at
//! the repository's root walks through them):
//! - `ir`: the jaxpr, what a primitive is and what its rules are given, the
//!   builder that runs each primitive's abstract evaluation at bind time
//!   (dtype and shape inference at every equation, as in JAX), printing as
//!   `jax.make_jaxpr` prints, and parsing what it prints;
//! - `prims`: every primitive with all its rules;
//! - `transform`: automatic differentiation, batching and simplification;
//! - `lax`: the primitives as composites bind them (one typed method
//!   each), and `Trace`, which records the binds as a jaxpr;
//! - `jnp`: JAX's NumPy layer written once over `lax`, and the other
//!   composites beside it (`nn`, `numeric`, `stats`, `linalg`, `indexing`, `manip`, `optim`,
//!   `optimizers`, `initializers`, `stax`).
//!
//! The crate needs no Rust parser: the compiler (`jax-compiler`) enables
//! the `syn` feature, which makes [`Error`] a `crate::Error` at the user's
//! tokens; without it, as the runtime will link it, an error is a span and
//! a message.

pub mod einsum;
mod error;
pub mod indexing;
pub mod initializers;
pub mod ir;
pub mod jnp;
pub mod lax;
pub mod linalg;
pub mod manip;
pub mod nn;
pub mod numeric;
pub mod optim;
pub mod optimizers;
pub mod prims;
pub mod random;
pub mod sorting;
pub mod stats;
pub mod stax;
pub mod transform;

pub use error::{Error, Result};
/// Where an equation came from: the user's tokens when traced by the
/// compiler, `Span::call_site()` when the runtime builds one.
pub use proc_macro2::Span;
