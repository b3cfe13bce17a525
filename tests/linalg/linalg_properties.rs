//! Algebraic properties of the linear-algebra family on random matrices
//! (proptest): each factorization reconstructs its input and its factors
//! have their structure (triangular, orthogonal, sorted), each solve solves.
//! The residuals are computed here in plain f64 loops, not with the crate's
//! own matmul. Tolerances: f64 1e-10 and f32 1e-4, relative to the size of
//! the quantities, for matrices made well conditioned (a random matrix plus
//! `N·I`, or `M Mᵀ + I`), where a backward-stable factorization's residual
//! is a small multiple of machine epsilon.

use jax::prelude::*;
use jax::scipy::linalg as sla;
use proptest::prelude::*;

const N: usize = 5;

/// `a` (m×k) times `b` (k×n), row-major.
fn mm(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
        }
    }
    c
}

fn tr(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..n * m).map(|t| a[(t % m) * n + t / m]).collect()
}

fn eye(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|t| if t / n == t % n { 1.0 } else { 0.0 })
        .collect()
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn to64<T: Copy + Into<f64>>(v: Vec<T>) -> Vec<f64> {
    v.into_iter().map(Into::into).collect()
}

/// A random matrix plus `n·I`: diagonally dominant, condition number below ~3.
fn dominant(v: &[f64], n: usize) -> Vec<f64> {
    v.iter()
        .enumerate()
        .map(|(t, x)| if t / n == t % n { x + n as f64 } else { *x })
        .collect()
}

/// `m mᵀ + I`: symmetric positive definite.
fn spd(v: &[f64], n: usize) -> Vec<f64> {
    let p = mm(v, &tr(v, n, n), n, n, n);
    p.iter().zip(eye(n)).map(|(x, e)| x + e).collect()
}

fn entries(n: usize) -> impl Strategy<Value = Vec<f64>> {
    proptest::collection::vec(-1.0f64..1.0, n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `A · inv(A) ≈ I` and `A · solve(A, b) ≈ b`, f64 and f32.
    #[test]
    fn inv_and_solve_invert(v in entries(N * N), b in entries(N)) {
        let a = dominant(&v, N);
        let a64 = Array::<f64, N, N>::from_vec(a.clone()).unwrap();
        let ai = jnp::linalg::inv(&a64).to_vec();
        prop_assert!(max_diff(&mm(&a, &ai, N, N, N), &eye(N)) < 1e-10);
        let x = jnp::linalg::solve(&a64, Array::<f64, N>::from_vec(b.clone()).unwrap()).to_vec();
        prop_assert!(max_diff(&mm(&a, &x, N, N, 1), &b) < 1e-10 * N as f64);

        let a32 = Array::<f32, N, N>::from_vec(a.iter().map(|&x| x as f32).collect()).unwrap();
        let a32_64 = to64(a32.to_vec());
        let ai32 = to64(jnp::linalg::inv(&a32).to_vec());
        prop_assert!(max_diff(&mm(&a32_64, &ai32, N, N, N), &eye(N)) < 1e-4);
    }

    /// `det(A) · det(inv(A)) ≈ 1` and `sign · exp(logabsdet) = det`.
    #[test]
    fn det_and_slogdet_agree(v in entries(N * N)) {
        let a = Array::<f64, N, N>::from_vec(dominant(&v, N)).unwrap();
        let d: Array<f64> = jnp::linalg::det(&a);
        let di: Array<f64> = jnp::linalg::det(jnp::linalg::inv(&a));
        prop_assert!((d.item() * di.item() - 1.0).abs() < 1e-10);
        let (sign, logdet): (Array<f64>, Array<f64>) = jnp::linalg::slogdet(&a);
        prop_assert!((sign.item() * logdet.item().exp() - d.item()).abs() < 1e-10 * d.item().abs());
    }

    /// Cholesky: `L` lower triangular with a positive diagonal, `L Lᵀ ≈ A`;
    /// SciPy's upper form is `Lᵀ`; `cho_solve` and `solve_triangular` solve.
    #[test]
    fn cholesky_reconstructs(v in entries(N * N), b in entries(N)) {
        let a = spd(&v, N);
        let scale = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let a64 = Array::<f64, N, N>::from_vec(a.clone()).unwrap();
        let l = jnp::linalg::cholesky(&a64).to_vec();
        for i in 0..N {
            prop_assert!(l[i * N + i] > 0.0);
            for j in i + 1..N {
                prop_assert_eq!(l[i * N + j], 0.0);
            }
        }
        prop_assert!(max_diff(&mm(&l, &tr(&l, N, N), N, N, N), &a) < 1e-10 * scale);
        let u = sla::cholesky(&a64, false).to_vec();
        prop_assert!(max_diff(&u, &tr(&l, N, N)) < 1e-12 * scale);

        let bv = Array::<f64, N>::from_vec(b.clone()).unwrap();
        let x = sla::cho_solve(sla::cho_factor(&a64, true), &bv).to_vec();
        prop_assert!(max_diff(&mm(&a, &x, N, N, 1), &b) < 1e-10 * scale);
        let lt = Array::<f64, N, N>::from_vec(l.clone()).unwrap();
        let z = sla::solve_triangular(&lt, &bv, true).to_vec();
        prop_assert!(max_diff(&mm(&l, &z, N, N, 1), &b) < 1e-10 * scale);

        let a32 = Array::<f32, N, N>::from_vec(a.iter().map(|&x| x as f32).collect()).unwrap();
        let l32 = to64(jnp::linalg::cholesky(&a32).to_vec());
        prop_assert!(max_diff(&mm(&l32, &tr(&l32, N, N), N, N, N), &to64(a32.to_vec())) < 1e-4 * scale);
    }

    /// A batch is each matrix on its own: the batched kernel gives the same
    /// bits as one call per matrix.
    #[test]
    fn batched_cholesky_and_inv_are_per_matrix(v in entries(3 * N * N)) {
        let blocks: Vec<Vec<f64>> = v.chunks(N * N).map(|c| spd(c, N)).collect();
        let batch = Array::<f64, 3, N, N>::from_vec(blocks.concat()).unwrap();
        let l = jnp::linalg::cholesky(&batch).to_vec();
        let ai = jnp::linalg::inv(&batch).to_vec();
        for (k, blk) in blocks.iter().enumerate() {
            let one = Array::<f64, N, N>::from_vec(blk.clone()).unwrap();
            prop_assert_eq!(&l[k * N * N..(k + 1) * N * N], &jnp::linalg::cholesky(&one).to_vec()[..]);
            prop_assert_eq!(&ai[k * N * N..(k + 1) * N * N], &jnp::linalg::inv(&one).to_vec()[..]);
        }
    }

    /// QR of a tall matrix: `Q` has orthonormal columns, `R` is upper
    /// triangular, `Q R ≈ A`.
    #[test]
    fn qr_is_orthogonal_times_triangular(v in entries(7 * N)) {
        let a = Array::<f64, 7, N>::from_vec(v.clone()).unwrap();
        let (q, r): (Array<f64, 7, N>, Array<f64, N, N>) = jnp::linalg::qr(&a);
        let (q, r) = (q.to_vec(), r.to_vec());
        prop_assert!(max_diff(&mm(&tr(&q, 7, N), &q, N, 7, N), &eye(N)) < 1e-12);
        for i in 0..N {
            for j in 0..i {
                prop_assert_eq!(r[i * N + j], 0.0);
            }
        }
        prop_assert!(max_diff(&mm(&q, &r, 7, N, N), &v) < 1e-12);
    }

    /// SVD: `U`, `V` orthogonal, `s` descending and non-negative,
    /// `U diag(s) Vᵀ ≈ A`; f64 and f32.
    #[test]
    fn svd_reconstructs(v in entries(N * N)) {
        let a = Array::<f64, N, N>::from_vec(v.clone()).unwrap();
        let (u, s, vh): (Array<f64, N, N>, Array<f64, N>, Array<f64, N, N>) = jnp::linalg::svd(&a);
        let (u, s, vh) = (u.to_vec(), s.to_vec(), vh.to_vec());
        prop_assert!(s.windows(2).all(|w| w[0] >= w[1]) && s[N - 1] >= 0.0);
        prop_assert!(max_diff(&mm(&tr(&u, N, N), &u, N, N, N), &eye(N)) < 1e-12);
        prop_assert!(max_diff(&mm(&vh, &tr(&vh, N, N), N, N, N), &eye(N)) < 1e-12);
        let us: Vec<f64> = u.iter().enumerate().map(|(t, x)| x * s[t % N]).collect();
        prop_assert!(max_diff(&mm(&us, &vh, N, N, N), &v) < 1e-12 * (1.0 + s[0]));

        let a32 = Array::<f32, N, N>::from_vec(v.iter().map(|&x| x as f32).collect()).unwrap();
        let (u, s, vh): (Array<f32, N, N>, Array<f32, N>, Array<f32, N, N>) = jnp::linalg::svd(&a32);
        let (u, s, vh) = (to64(u.to_vec()), to64(s.to_vec()), to64(vh.to_vec()));
        let us: Vec<f64> = u.iter().enumerate().map(|(t, x)| x * s[t % N]).collect();
        prop_assert!(max_diff(&mm(&us, &vh, N, N, N), &to64(a32.to_vec())) < 1e-4 * (1.0 + s[0]));
    }

    /// eigh: `A vᵢ = λᵢ vᵢ` for each column, `V` orthogonal, `λ` ascending.
    #[test]
    fn eigh_diagonalizes(v in entries(N * N)) {
        let sym: Vec<f64> = (0..N * N).map(|t| (v[t] + v[(t % N) * N + t / N]) / 2.0).collect();
        let a = Array::<f64, N, N>::from_vec(sym.clone()).unwrap();
        let (w, vecs): (Array<f64, N>, Array<f64, N, N>) = jnp::linalg::eigh(&a);
        let (w, vecs) = (w.to_vec(), vecs.to_vec());
        prop_assert!(w.windows(2).all(|p| p[0] <= p[1]));
        prop_assert!(max_diff(&mm(&tr(&vecs, N, N), &vecs, N, N, N), &eye(N)) < 1e-12);
        let av = mm(&sym, &vecs, N, N, N);
        let vl: Vec<f64> = vecs.iter().enumerate().map(|(t, x)| x * w[t % N]).collect();
        let scale = w.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        prop_assert!(max_diff(&av, &vl) < 1e-12 * scale);
    }
}
