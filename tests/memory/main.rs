//! Memory: what jitted code allocates, counted by this binary's global
//! allocator (`counting.rs`), and the buffer pool's process-wide limit. One
//! binary of its own, since a global allocator and the pool's limit are
//! process-wide; its tests run one at a time (`counting::serial`).

#[path = "../support/common/mod.rs"]
#[allow(unused_macros)]
mod common;
mod counting;

mod alloc;
mod checkpoint;
mod donation;
mod pool_eviction;
