//! From a jaxpr to Rust tokens: the function body, row programs, fusion,
//! loop nests and kernel calls, and the cost analysis of what is emitted.

pub(crate) mod body;
pub(crate) mod cost;
pub(crate) mod emit;
pub(crate) mod fuse;
pub(crate) mod rows;
