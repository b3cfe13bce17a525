//! Compile-error snapshots (trybuild): one `.rs` and its `.stderr` per
//! diagnostic in `ui-tests/fail/`. Regenerate with
//! `TRYBUILD=overwrite cargo test -p jax-ui-tests --test ui`.

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
    let t = trybuild::TestCases::new();
    // A passing case makes trybuild run `cargo build` rather than `cargo check`,
    // which is needed for the post-monomorphization shape checks.
    t.pass("pass/*.rs");
    t.compile_fail("fail/*.rs");
}
