//! The tracer and the syntax it walks: its state ([`tracer`]), what it
//! computes with ([`value`]), written types ([`types`], [`signature`],
//! [`optim`]: the optimizer values and state types), JAX's NumPy layer as
//! it calls it ([`jnp`]), and one file per kind of syntax, each an
//! `impl Tracer`: [`expressions`], [`statements`], [`operators`],
//! [`macros`], [`static_control`], [`index`] and [`index_gather`]
//! (indexing), [`module`] (items of a `#[jax::jit] mod`).
//!
//! This folder imports nothing of `bodies/` nor `lib/` (checked by
//! `frontend::layering`). Where the syntax needs them (a call expression,
//! a method call, a function of the mod with a custom rule, a library
//! function as a value) it goes through [`layers::Above`], the table of
//! functions the entry (`frontend/parse.rs`) gives each `Tracer`.

pub(crate) mod expressions;
pub(crate) mod index;
pub(crate) mod index_gather;
pub(crate) mod jnp;
pub(crate) mod layers;
pub(crate) mod macros;
pub(crate) mod module;
pub(crate) mod operators;
pub(crate) mod optim;
pub(crate) mod signature;
pub(crate) mod statements;
pub(crate) mod static_control;
pub(crate) mod tracer;
pub(crate) mod types;
pub(crate) mod value;
