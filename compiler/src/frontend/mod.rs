//! From Rust tokens to a jaxpr: the signature's types, the tracer that
//! evaluates the body abstractly, and the user's names (`jnp::`, `lax::`,
//! methods, indexing, transformations inside bodies) lowered to primitives.
//!
//! The files, from the bottom up: `types` (written types), `value` (what
//! the tracer computes with), `tracer` (its state: builder, scopes), `jnp`
//! (JAX's NumPy layer over primitives); `lower_call` and the `lower*`
//! files (operations by name, through one table); then one file per kind
//! of syntax, each an `impl Tracer`: `expressions`, `statements`,
//! `operators`, `calls`, `macros`, `static_control`, `index`, `module`
//! (items of a `#[jax::jit] mod`), `callables` (function values),
//! `compose` (transformations inside bodies), `vmap` (batching inside
//! bodies), `lax_control` (traced control flow); and `parse`, the entry
//! points.

pub(crate) mod callables;
pub(crate) mod calls;
pub(crate) mod checkpoint;
pub(crate) mod compose;
pub(crate) mod einsum;
pub(crate) mod expressions;
pub(crate) mod import;
pub(crate) mod index;
pub(crate) mod index_gather;
pub(crate) mod jnp;
pub(crate) mod lax_control;
pub(crate) mod linalg_chol;
pub(crate) mod linalg_eigh;
pub(crate) mod linalg_lu;
pub(crate) mod linalg_more;
pub(crate) mod linalg_qr;
pub(crate) mod lower;
pub(crate) mod lower_call;
pub(crate) mod lower_choice;
pub(crate) mod lower_collectives;
pub(crate) mod lower_complex;
pub(crate) mod lower_conv;
pub(crate) mod lower_create;
pub(crate) mod lower_diag;
pub(crate) mod lower_dynamic;
pub(crate) mod lower_gather;
pub(crate) mod lower_lax;
pub(crate) mod lower_linalg;
pub(crate) mod lower_manip;
pub(crate) mod lower_math;
pub(crate) mod lower_nn;
pub(crate) mod lower_numeric;
pub(crate) mod lower_optim;
pub(crate) mod lower_optim_rules;
pub(crate) mod lower_random;
pub(crate) mod lower_ranges;
pub(crate) mod lower_shape;
pub(crate) mod lower_sort;
pub(crate) mod lower_stats;
pub(crate) mod lower_tree;
pub(crate) mod lower_window;
pub(crate) mod macros;
pub(crate) mod module;
pub(crate) mod operators;
pub(crate) mod parse;
pub(crate) mod pmap;
pub(crate) mod pytree;
pub(crate) mod signatures;
pub(crate) mod statements;
pub(crate) mod static_control;
pub(crate) mod tracer;
pub(crate) mod types;
pub(crate) mod value;
pub(crate) mod vmap;
