//! Jaxpr to jaxpr: automatic differentiation, batching (`vmap`) and
//! simplification. Each
//! transformation is machinery over the rules its primitives carry.

pub mod ad;
pub mod batching;
pub mod jacobian;
pub mod scan_sums;
pub mod simplify;
