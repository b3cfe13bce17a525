//! `prims::linalg::cholesky`'s tests that trace Rust source.

/// The flops `cost_analysis` counts for a program's kernels.
fn flops(src: &str) -> f64 {
    let j = super::simplified_source(src);
    crate::backend::cost::analyze(&j).unwrap().flops
}

#[test]
fn factorization_and_solve_cost_lapacks_counts() {
    // scipy's cholesky(lower=True): the factorization (8 · 6³/3) and the
    // mask's select (one per element).
    let chol = flops(
        "fn f(a: Array<f32, 8, 6, 6>) -> Array<f32, 8, 6, 6> { jax::scipy::linalg::cholesky(&a, true) }",
    );
    assert!(
        (8.0 * 72.0..8.0 * 72.0 + 8.0 * 36.0 * 4.0).contains(&chol),
        "{chol}"
    );
    // trsm: m² k.
    let solve = flops(
        "fn f(a: Array<f64, 5, 5>, b: Array<f64, 5, 3>) -> Array<f64, 5, 3> { jax::scipy::linalg::solve_triangular(&a, &b, true) }",
    );
    assert_eq!(solve, 75.0);
}
