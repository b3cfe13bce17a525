//! The FMA-peak kernel of `benches/compare.py` (benches/support/peak.rs): its SIMD
//! chains compute what scalar FMAs compute, so the time it reports is for
//! the FLOPs it claims.

#[path = "../../benches/support/peak.rs"]
#[allow(dead_code)]
mod peak;

#[test]
fn simd_chains_equal_scalar_fmas() {
    for iters in [0, 1, 7, 1000] {
        let (width, got) = peak::fma_chains(iters);
        assert!([1, 8, 16].contains(&width));
        let want = peak::reference(width, iters);
        assert_eq!(got.len(), peak::CHAINS * width);
        assert!(
            got.iter()
                .zip(&want)
                .all(|(g, w)| g.to_bits() == w.to_bits()),
            "iters {iters}"
        );
    }
}

#[test]
fn flops_count_two_per_fma() {
    assert_eq!(peak::flops(16, 1000), 2.0 * 12.0 * 16.0 * 1000.0);
    assert_eq!(peak::flops(1, 0), 0.0);
}
