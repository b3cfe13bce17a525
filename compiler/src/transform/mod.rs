//! Jaxpr to jaxpr: automatic differentiation, batching (`vmap`) and
//! simplification. Each
//! transformation is machinery over the rules its primitives carry.

pub(crate) mod ad;
pub(crate) mod batching;
pub(crate) mod jacobian;
pub(crate) mod scan_sums;
pub(crate) mod simplify;
