//! Handlers of `jnp::` names (and the methods and `lax::` names written
//! the same way) that compose primitives: creation, shapes, manipulation,
//! math, sorting, indexing by `take`, complex numbers, `einsum`.

pub(crate) mod complex;
pub(crate) mod create;
pub(crate) mod diag;
pub(crate) mod einsum;
pub(crate) mod gather;
pub(crate) mod manip;
pub(crate) mod math;
pub(crate) mod numeric;
pub(crate) mod ranges;
pub(crate) mod shape;
pub(crate) mod sort;
