//! The library's names lowered to primitives, in folders that mirror
//! `runtime/`'s: one table of the operations by name ([`lower`]), what
//! its handlers work with ([`call`]: the call, where it was written, the
//! readers of static arguments; [`param_names`]: the runtime's parameter
//! names for arity errors), and the handlers: [`jnp`], [`lax`],
//! [`linalg`] (`jnp::linalg::`, `scipy::linalg::`), [`nn`] (`jax::nn::`,
//! `scipy::special::`), [`stats`] (`scipy::stats::norm::`), [`random`],
//! [`optim`], [`tree`].
//!
//! This folder imports `trace/` and `bodies/` (a library function that
//! takes a function, as `lax::reduce_window`, `tree::map` or a custom
//! derivative rule, traces it with `bodies/callables.rs`), and never the
//! entry (`frontend/calls.rs`, `parse.rs`, `import.rs`), as checked by
//! `frontend::layering`.

pub(crate) mod call;
pub(crate) mod jnp;
pub(crate) mod lax;
pub(crate) mod linalg;
pub(crate) mod lower;
pub(crate) mod nn;
pub(crate) mod optim;
pub(crate) mod param_names;
pub(crate) mod random;
pub(crate) mod stats;
pub(crate) mod tree;
