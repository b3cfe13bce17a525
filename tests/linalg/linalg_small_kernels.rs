//! The fast paths of the linear-algebra kernels against the general ones:
//! the direct (unblocked, allocation-free) Cholesky that small matrices take
//! against faer's blocked `LLᵀ`, on random, ill-conditioned (Hilbert) and
//! failing inputs (not positive definite, NaN, inf, a zero pivot), where
//! both must give the same NaN pattern (the whole matrix NaN, as JAX); and
//! the LU solves at the sizes that switch to faer's blocked triangular
//! solves, by their residual `A·x − b`.

use jax::__rt::linalg as k;
use proptest::prelude::*;

/// Deterministic uniform values in [-1, 1).
fn uniform(len: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// `M Mᵀ / n + I`: symmetric positive definite, well conditioned; the
/// upper triangle then overwritten by garbage, which neither path reads.
fn spd(n: usize, seed: u64) -> Vec<f64> {
    let m = uniform(n * n, seed);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let d: f64 = (0..n).map(|l| m[i * n + l] * m[j * n + l]).sum();
            a[i * n + j] = if j > i {
                1e30
            } else {
                d / n as f64 + f64::from(u8::from(i == j))
            };
        }
    }
    a
}

fn hilbert(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|t| 1.0 / ((t / n + t % n + 1) as f64))
        .collect()
}

/// Both paths on the same batch; the direct one is what `cholesky_f64`
/// takes below 64×64.
fn both_f64(a: &[f64], batch: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut direct, mut faer) = (vec![0.0; a.len()], vec![0.0; a.len()]);
    k::cholesky_f64(a, &mut direct, batch, n);
    k::cholesky_faer_f64(a, &mut faer, batch, n);
    (direct, faer)
}

fn both_f32(a: &[f64], batch: usize, n: usize) -> (Vec<f32>, Vec<f32>) {
    let a: Vec<f32> = a.iter().map(|&v| v as f32).collect();
    let (mut direct, mut faer) = (vec![0.0; a.len()], vec![0.0; a.len()]);
    k::cholesky_f32(&a, &mut direct, batch, n);
    k::cholesky_faer_f32(&a, &mut faer, batch, n);
    (direct, faer)
}

/// Equal NaN patterns, and the other values within `tol` of the larger
/// magnitude of each matrix.
fn assert_close<T: Into<f64> + Copy>(x: &[T], y: &[T], n: usize, tol: f64) {
    assert_eq!(x.len(), y.len());
    for (mx, my) in x.chunks(n * n).zip(y.chunks(n * n)) {
        let scale = my
            .iter()
            .map(|&v| v.into().abs())
            .filter(|v| v.is_finite())
            .fold(1.0f64, f64::max);
        for (i, (&p, &q)) in mx.iter().zip(my).enumerate() {
            let (p, q) = (p.into(), q.into());
            assert_eq!(
                p.is_nan(),
                q.is_nan(),
                "NaN pattern differs at {i}: {p} vs {q}"
            );
            if !p.is_nan() {
                assert!(
                    (p - q).abs() <= tol * scale,
                    "element {i}: direct {p} vs faer {q}"
                );
            }
        }
    }
}

#[test]
fn direct_cholesky_matches_faer_on_random_spd() {
    for n in [1, 2, 3, 7, 8, 9, 16, 31, 32, 33, 63] {
        let a: Vec<f64> = (0..3).flat_map(|s| spd(n, 10 * n as u64 + s)).collect();
        let (d, f) = both_f64(&a, 3, n);
        assert_close(&d, &f, n, 1e-13);
        let (d, f) = both_f32(&a, 3, n);
        assert_close(&d, &f, n, 1e-5);
        // The upper triangle of the result is zero, the diagonal positive.
        for m in d.chunks(n * n) {
            for i in 0..n {
                assert!(m[i * n + i] > 0.0);
                assert!(m[i * n + i + 1..(i + 1) * n].iter().all(|&v| v == 0.0));
            }
        }
    }
}

#[test]
fn direct_cholesky_matches_faer_on_ill_conditioned() {
    // Hilbert: condition numbers about 1.6e13 (10, f64) and 4.8e5 (5, f32).
    let (d, f) = both_f64(&hilbert(10), 1, 10);
    assert!(d.iter().all(|v| v.is_finite()));
    assert_close(&d, &f, 10, 1e-9);
    let (d, f) = both_f32(&hilbert(5), 1, 5);
    assert!(d.iter().all(|v| v.is_finite()));
    assert_close(&d, &f, 5, 1e-4);
    // f32 Hilbert 12 is numerically not positive definite: both paths must
    // agree that it fails (or both succeed) on the same pivot rule.
    let (d, f) = both_f32(&hilbert(12), 1, 12);
    assert_eq!(d.iter().any(|v| v.is_nan()), f.iter().any(|v| v.is_nan()));
}

#[test]
fn direct_cholesky_fails_as_faer_does() {
    let n = 4;
    let good = spd(n, 7);
    let mut cases: Vec<Vec<f64>> = Vec::new();
    // Indefinite: a negative eigenvalue, found at the second pivot.
    let mut indefinite = good.clone();
    indefinite[n] = 10.0;
    cases.push(indefinite);
    // A NaN below the diagonal, and one on it.
    let mut nan_lower = good.clone();
    nan_lower[2 * n + 1] = f64::NAN;
    cases.push(nan_lower);
    let mut nan_diag = good.clone();
    nan_diag[3 * n + 3] = f64::NAN;
    cases.push(nan_diag);
    // inf on the diagonal; a zero pivot (positive semi-definite).
    let mut inf_diag = good.clone();
    inf_diag[0] = f64::INFINITY;
    cases.push(inf_diag);
    let mut singular = vec![0.0; n * n];
    singular[0] = 1.0;
    cases.push(singular);
    // Negative first entry.
    let mut negative = good.clone();
    negative[0] = -1.0;
    cases.push(negative);
    for (c, bad) in cases.iter().enumerate() {
        // In a batch between two good matrices, which stay finite.
        let batch: Vec<f64> = [&good, bad, &good].into_iter().flatten().copied().collect();
        let (d, f) = both_f64(&batch, 3, n);
        assert_close(&d, &f, n, 1e-13);
        assert!(d[n * n..2 * n * n].iter().all(|v| v.is_nan()), "case {c}");
        assert!(d[..n * n]
            .iter()
            .chain(&d[2 * n * n..])
            .all(|v| v.is_finite()));
        let (d, f) = both_f32(&batch, 3, n);
        assert_close(&d, &f, n, 1e-5);
        assert!(d[n * n..2 * n * n].iter().all(|v| v.is_nan()), "case {c}");
    }
    // A NaN in the (unread) upper triangle changes nothing.
    let mut nan_upper = good.clone();
    nan_upper[1] = f64::NAN;
    let (d, f) = both_f64(&nan_upper, 1, n);
    assert!(d.iter().all(|v| v.is_finite()));
    assert_close(&d, &f, n, 1e-13);
}

#[test]
fn batched_cholesky_runs_in_parallel_as_sequentially() {
    // 64 matrices of 32×32 (the benchmark's shape) take the rayon path;
    // each must equal the same matrix factored alone.
    let (b, n) = (64, 32);
    let a: Vec<f64> = (0..b).flat_map(|s| spd(n, 1000 + s as u64)).collect();
    let mut all = vec![0.0; a.len()];
    k::cholesky_f64(&a, &mut all, b, n);
    for (x, l) in a.chunks(n * n).zip(all.chunks(n * n)) {
        let mut one = vec![0.0; n * n];
        k::cholesky_f64(x, &mut one, 1, n);
        assert_eq!(one, l);
    }
}

/// `A·X − B` relative to `|A|·|X|`, in f64.
fn residual(a: &[f64], x: &[f64], b: &[f64], n: usize, r: usize, trans: bool) -> f64 {
    let mut worst = 0.0f64;
    for i in 0..n {
        for c in 0..r {
            let (mut s, mut mag) = (0.0, 0.0);
            for l in 0..n {
                let aij = if trans { a[l * n + i] } else { a[i * n + l] };
                s += aij * x[l * r + c];
                mag += (aij * x[l * r + c]).abs();
            }
            worst = worst.max((s - b[i * r + c]).abs() / mag.max(1e-300));
        }
    }
    worst
}

#[test]
fn lu_solve_on_the_blocked_path_solves() {
    // 100×100 with 1 and 100 right-hand sides, both orientations: above the
    // size where `lu_solve` switches to faer's triangular solves.
    let n = 100;
    let a = uniform(n * n, 5);
    let (mut lu, mut piv, mut perm) = (vec![0.0; n * n], vec![0; n], vec![0; n]);
    k::lu_f64(&a, &mut lu, &mut piv, &mut perm, 1, n, n);
    for r in [1, 3, 100] {
        for trans in [false, true] {
            let b = uniform(n * r, 6 + r as u64);
            let mut x = b.clone();
            k::lu_solve_f64(&lu, &perm, &mut x, 1, n, r, trans);
            assert!(
                residual(&a, &x, &b, n, r, trans) < 1e-12,
                "r {r} trans {trans}"
            );
            // f32 the same way.
            let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
            let (mut lu32, mut piv32, mut perm32) = (vec![0.0f32; n * n], vec![0; n], vec![0; n]);
            k::lu_f32(&a32, &mut lu32, &mut piv32, &mut perm32, 1, n, n);
            let mut x32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
            k::lu_solve_f32(&lu32, &perm32, &mut x32, 1, n, r, trans);
            let x: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
            let a: Vec<f64> = a32.iter().map(|&v| v as f64).collect();
            let b: Vec<f64> = b.iter().map(|&v| v as f32 as f64).collect();
            assert!(
                residual(&a, &x, &b, n, r, trans) < 1e-4,
                "f32 r {r} trans {trans}"
            );
        }
    }
}

#[test]
fn lu_solve_of_a_singular_matrix_gives_inf_or_nan() {
    // A zero column stays exactly zero through elimination, so U has an
    // exact zero on its diagonal: no panic, non-finite x (as LAPACK).
    let n = 80;
    let mut a = uniform(n * n, 9);
    for i in 0..n {
        a[i * n + 7] = 0.0;
    }
    let (mut lu, mut piv, mut perm) = (vec![0.0; n * n], vec![0; n], vec![0; n]);
    k::lu_f64(&a, &mut lu, &mut piv, &mut perm, 1, n, n);
    let mut x = vec![1.0; n * n];
    k::lu_solve_f64(&lu, &perm, &mut x, 1, n, n, false);
    assert!(x.iter().any(|v| !v.is_finite()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any size up to the switch to faer, any SPD matrix: the direct kernel
    /// equals faer's within rounding.
    #[test]
    fn direct_cholesky_equals_faer(n in 1usize..64, seed in 0u64..1_000_000) {
        let a = spd(n, seed);
        let (d, f) = both_f64(&a, 1, n);
        assert_close(&d, &f, n, 1e-12);
    }
}
