//! Compile-error snapshots of `#[jax::jit]` (`ui.rs`, run by `cargo test`):
//! `fail/NAME.rs` and its `fail/NAME.stderr` per diagnostic. This crate has
//! no code of its own.
