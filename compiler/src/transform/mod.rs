//! Jaxpr to jaxpr: automatic differentiation and simplification. Each
//! transformation is machinery over the rules its primitives carry.

pub(crate) mod ad;
pub(crate) mod simplify;
