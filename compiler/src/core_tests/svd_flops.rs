//! `prims::linalg::svd`'s tests that trace Rust source.

/// The flops `cost_analysis` counts for a program's kernels.
fn flops(src: &str) -> f64 {
    let j = super::simplified_source(src);
    crate::backend::cost::analyze(&j).unwrap().flops
}

#[test]
fn svd_and_eigh_cost_textbook_counts() {
    // svdvals of 2 × (6×4): 2 · (4·6·16 − 4·64/3).
    let s = flops("fn f(a: Array<f32, 2, 6, 4>) -> Array<f32, 2, 4> { jnp::linalg::svdvals(&a) }");
    let want = 2.0 * (4.0 * 6.0 * 16.0 - 4.0 * 64.0 / 3.0);
    assert!((s - want).abs() < 1e-6, "{s} vs {want}");
    // Full svd of 5×3: 4·25·3 + 8·5·9 + 9·27, and nothing else is
    // counted beyond one per element of the results.
    let s = flops("fn f(a: Array<f64, 5, 3>) -> (Array<f64, 5, 5>, Array<f64, 3>, Array<f64, 3, 3>) { jnp::linalg::svd(&a) }");
    assert!((903.0..903.0 + 40.0).contains(&s), "{s}");
    // eigh of 4×4 (9·64), plus the symmetrize's elementwise ops.
    let e = flops("fn f(a: Array<f32, 4, 4>) -> Array<f32, 4> { jnp::linalg::eigvalsh(&a) }");
    assert!((576.0..576.0 + 4.0 * 16.0).contains(&e), "{e}");
}
