//! Functions inside bodies: function values and calling them
//! ([`callables`]: closures, functions of the mod, library functions,
//! transformed functions; a function traced apart into a program of its
//! own), the transformations ([`compose`]: `jax::grad`, `jvp`, `vjp`,
//! the Jacobians, custom rules; [`pytree`]: their pytree arguments and
//! options; [`checkpoint`]; [`vmap`]; [`pmap`]) and traced control flow
//! ([`lax_control`]: `cond`, `switch`, `fori_loop`, `while_loop`, `scan`).
//!
//! This folder imports `trace/` and nothing of `lib/` (checked by
//! `frontend::layering`): a library function used as a value
//! (`jax::grad(jnp::sin)`) is lowered through the tracer's
//! `layers::Above` table.

pub(crate) mod callables;
pub(crate) mod checkpoint;
pub(crate) mod compose;
pub(crate) mod lax_control;
pub(crate) mod pmap;
pub(crate) mod pytree;
pub(crate) mod vmap;
