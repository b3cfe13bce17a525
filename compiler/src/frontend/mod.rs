//! From Rust tokens to a jaxpr: the signature's types, the tracer that
//! evaluates the body abstractly, and the user's names (`jnp::`, `lax::`,
//! methods, indexing, transformations inside bodies) lowered to primitives.

pub(crate) mod compose;
pub(crate) mod index;
pub(crate) mod jnp;
pub(crate) mod lower;
pub(crate) mod module;
pub(crate) mod parse;
pub(crate) mod types;
