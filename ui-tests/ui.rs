//! Compile-error snapshots (trybuild): one `.rs` and its `.stderr` per
//! diagnostic in `ui-tests/fail/`. Regenerate with
//! `TRYBUILD=overwrite cargo test -p jax-ui-tests --test ui`.
//!
//! Every case here is an error `cargo check` reports. With compile-fail
//! cases alone, trybuild checks them all in one cargo run (`--keep-going`,
//! the cases compiled in parallel, no code generated) instead of building
//! them one by one. An error found only when code is generated (a constant
//! evaluated at instantiation, as `Array::item` on a vector) is a
//! `compile_fail` doctest beside the function instead, and a case that must
//! compile is an ordinary test.

#[test]
fn ui() {
    // trybuild's cargo inherits this process's environment. When the tests
    // were built by clippy's driver (CI lints on its test build), the driver
    // must not compile the snapshot crates: its lints would join the
    // diagnostics being compared.
    for var in ["RUSTC_WORKSPACE_WRAPPER", "CLIPPY_ARGS"] {
        if std::env::var_os(var).is_some() {
            // SAFETY: this binary's only test, and it starts no thread before
            // trybuild runs; nothing else reads the environment concurrently.
            unsafe { std::env::remove_var(var) };
        }
    }
    trybuild::TestCases::new().compile_fail("fail/*.rs");
}
