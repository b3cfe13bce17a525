//! Compile-error snapshots (trybuild): one `.rs` and its `.stderr` per
//! diagnostic in `ui-tests/`. Regenerate with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    // A passing case makes trybuild run `cargo build` rather than `cargo check`,
    // which is needed for the post-monomorphization shape checks.
    t.pass("ui-tests/pass/*.rs");
    t.compile_fail("ui-tests/fail/*.rs");
}
