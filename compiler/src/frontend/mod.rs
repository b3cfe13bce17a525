//! From Rust tokens to a jaxpr: the signature's types, the tracer that
//! evaluates the body abstractly, and the user's names (`jnp::`, `lax::`,
//! methods, indexing, transformations inside bodies) lowered to primitives.
//!
//! Three folders, each importing only the ones before it:
//!
//! - `trace/`: the tracer (its state, values, written types, the NumPy
//!   layer it calls) and one file per kind of syntax. Imports neither
//!   `bodies/` nor `lib/`.
//! - `bodies/`: function values, the transformations inside bodies
//!   (`jax::grad`, `vmap`, `pmap`, `checkpoint`, custom rules) and traced
//!   control flow (`lax::cond`, `scan`, ..). Imports `trace/`, never `lib/`.
//! - `lib/`: the library's names lowered to primitives through one table
//!   (`lib/lower.rs`), in folders mirroring `runtime/`'s (`jnp/`, `lax/`,
//!   `linalg/`, `optim/`, `random/`, `nn.rs`, ..). Imports `trace/` and
//!   `bodies/` (a library function may take a function).
//!
//! Beside them, the entry, which no folder imports: `parse.rs` (a
//! function's body traced; it gives each `Tracer` the table of functions,
//! `trace::layers::Above`, through which the tracer reaches a call's
//! dispatch, the library and the transformations), `calls.rs` (a call
//! expression: every layer's names tried in order), `import.rs` (a jaxpr
//! file, `#[jax::jit(import = ..)]`, in place of a traced body, checked
//! against the signature). `layering.rs` checks these rules on the source.

pub(crate) mod bodies;
pub(crate) mod calls;
pub(crate) mod import;
#[cfg(test)]
mod layering;
pub(crate) mod lib;
pub(crate) mod parse;
pub(crate) mod trace;
