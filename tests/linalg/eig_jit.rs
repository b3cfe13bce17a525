//! `jnp::linalg::eig` and `eigvals` inside `#[jax::jit]`: complex results
//! leave the jitted function. Eigenvalues against JAX's (sorted, as their
//! order is LAPACK's), eigenvectors up to a phase (each column scaled so
//! its largest component is real and positive), `A·v = λ·v`, and jit
//! equal to eager (`tests/fixtures/linalg_qr.json`, made by
//! `tests/fixtures/gen/linalg_qr.py`).

use crate::common;

use jax::prelude::*;
use serde_json::Value;

fn pairs(v: &Value) -> Vec<(f64, f64)> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d[0].as_f64().unwrap(), d[1].as_f64().unwrap()))
        .collect()
}

fn sorted(mut v: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    v.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
    v
}

#[track_caller]
fn assert_same_eigenvalues(got: Vec<(f64, f64)>, want: Vec<(f64, f64)>, tol: f64) {
    let (got, want) = (sorted(got), sorted(want));
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g.0 - w.0).abs() < tol && (g.1 - w.1).abs() < tol,
            "eigenvalues {got:?} vs JAX {want:?}"
        );
    }
}

#[jax::jit]
mod f {
    use super::*;

    pub fn eig3(a: Array<f32, 3, 3>) -> (Array<Complex<f32>, 3>, Array<Complex<f32>, 3, 3>) {
        jnp::linalg::eig(&a)
    }
    pub fn eigvals5(a: Array<f64, 5, 5>) -> Array<Complex<f64>, 5> {
        jnp::linalg::eigvals(&a)
    }
    pub fn eigvals_batched(a: Array<f32, 2, 3, 3>) -> Array<Complex<f32>, 2, 3> {
        jnp::linalg::eigvals(&a)
    }
    /// The sum of the eigenvalues' real parts: the trace, whose gradient
    /// is the identity (reverse mode through the eigenvalue jvp).
    pub fn real_sum(a: Array<f64, 5, 5>) -> f64 {
        jnp::sum(jnp::real(jnp::linalg::eigvals(&a)))
    }
    /// Complex results used inside the body: the spectral abscissa.
    pub fn max_real_part(a: Array<f64, 5, 5>) -> f64 {
        jnp::max(jnp::real(jnp::linalg::eigvals(&a)))
    }
}

#[test]
fn eig_in_jit_matches_jax_and_eager() {
    let c = common::case("linalg_qr", "eig_pair_f32");
    let a: Array<f32, 3, 3> = common::array_arg(&c["a"]);
    let (w, v) = f::eig3(a.clone());
    let (we, ve): (Array<Complex<f32>, 3>, Array<Complex<f32>, 3, 3>) = jnp::linalg::eig(&a);
    assert_eq!(w.to_vec(), we.to_vec());
    assert_eq!(v.to_vec(), ve.to_vec());
    let got = w
        .to_vec()
        .iter()
        .map(|z| (z.re as f64, z.im as f64))
        .collect();
    assert_same_eigenvalues(got, pairs(&c["w"]), 1e-5);
    // A·v = λ·v, and each eigenvector has unit norm as LAPACK's.
    let (a, v, w) = (a.to_vec(), v.to_vec(), w.to_vec());
    for j in 0..3 {
        let norm: f32 = (0..3).map(|i| v[i * 3 + j].norm_sqr()).sum();
        assert!((norm - 1.0).abs() < 1e-5);
        for i in 0..3 {
            let av: Complex<f32> = (0..3).map(|l| v[l * 3 + j] * a[i * 3 + l]).sum();
            assert!((av - w[j] * v[i * 3 + j]).norm() < 1e-5);
        }
    }
}

#[test]
fn eigenvectors_in_jit_match_jax_up_to_phase() {
    let c = common::case("linalg_qr", "eig_pair_f32");
    let a: Array<f32, 3, 3> = common::array_arg(&c["a"]);
    let (w, v) = f::eig3(a);
    let (want_w, want_v) = (pairs(&c["w"]), pairs(&c["v"]));
    let (w, v) = (w.to_vec(), v.to_vec());
    // Column j scaled by the phase that makes its largest entry real positive.
    let normalized = |col: Vec<Complex<f64>>| {
        let big = *col
            .iter()
            .max_by(|x, y| x.norm().total_cmp(&y.norm()))
            .unwrap();
        let phase = big.conj() / big.norm();
        col.into_iter().map(|z| z * phase).collect::<Vec<_>>()
    };
    for j in 0..3 {
        let k = (0..3)
            .find(|&k| {
                (want_w[k].0 - w[j].re as f64).abs() < 1e-4
                    && (want_w[k].1 - w[j].im as f64).abs() < 1e-4
            })
            .expect("eigenvalue among JAX's");
        let ours = normalized(
            (0..3)
                .map(|i| Complex::new(v[i * 3 + j].re as f64, v[i * 3 + j].im as f64))
                .collect(),
        );
        let jax = normalized(
            (0..3)
                .map(|i| Complex::new(want_v[i * 3 + k].0, want_v[i * 3 + k].1))
                .collect(),
        );
        for (x, y) in ours.iter().zip(&jax) {
            assert!(
                (x - y).norm() < 1e-4,
                "eigenvector {j}: {ours:?} vs JAX {jax:?}"
            );
        }
    }
}

#[test]
fn eigvals_in_jit_match_jax() {
    let c = common::case("linalg_qr", "eig_random_f64");
    let a: Array<f64, 5, 5> = common::array_arg(&c["a"]);
    let w = f::eigvals5(a.clone());
    let eager: Array<Complex<f64>, 5> = jnp::linalg::eigvals(&a);
    assert_eq!(w.to_vec(), eager.to_vec());
    let got = w.to_vec().iter().map(|z| (z.re, z.im)).collect();
    assert_same_eigenvalues(got, pairs(&c["w"]), 1e-10);
    let abscissa = pairs(&c["w"]).iter().map(|p| p.0).fold(f64::MIN, f64::max);
    assert!((f::max_real_part(a) - abscissa).abs() < 1e-10);

    let c = common::case("linalg_qr", "eig_batched_f32");
    let a: Array<f32, 2, 3, 3> = common::array_arg(&c["a"]);
    let w = f::eigvals_batched(a).to_vec();
    let want = pairs(&c["w"]);
    for b in 0..2 {
        let got = w[b * 3..b * 3 + 3]
            .iter()
            .map(|z| (z.re as f64, z.im as f64))
            .collect();
        assert_same_eigenvalues(got, want[b * 3..b * 3 + 3].to_vec(), 1e-4);
    }
}

/// The jvp of `eigvals` as JAX's `eig_jvp_rule`, paired with the
/// eigenvalues (both sorted by eigenvalue).
#[track_caller]
fn assert_jvp(w: Vec<(f64, f64)>, dw: Vec<(f64, f64)>, c: &Value, tol: f64) {
    let pair = |w: Vec<(f64, f64)>, dw: Vec<(f64, f64)>| {
        let mut v: Vec<_> = w.into_iter().zip(dw).collect();
        v.sort_by(|x, y| x.0 .0.total_cmp(&y.0 .0).then(x.0 .1.total_cmp(&y.0 .1)));
        v
    };
    let got = pair(w, dw);
    let want = pair(pairs(&c["w"]), pairs(&c["dw"]));
    for ((gw, gd), (ww, wd)) in got.iter().zip(&want) {
        assert!((gw.0 - ww.0).abs() < tol && (gw.1 - ww.1).abs() < tol);
        assert!(
            (gd.0 - wd.0).abs() < tol * (1.0 + wd.0.abs())
                && (gd.1 - wd.1).abs() < tol * (1.0 + wd.1.abs()),
            "dw {got:?} vs JAX {want:?}"
        );
    }
}

#[test]
fn eigvals_jvp_matches_jax() {
    let c = common::case("linalg_qr", "eig_random_f64");
    let a: Array<f64, 5, 5> = common::array_arg(&c["a"]);
    let t: Array<f64, 5, 5> = common::array_arg(&c["tangent"]);
    let (w, dw) = f::eigvals5::jvp((a,), (t,));
    let w = w.to_vec().iter().map(|z| (z.re, z.im)).collect();
    let dw = dw.to_vec().iter().map(|z| (z.re, z.im)).collect();
    assert_jvp(w, dw, &c, 1e-9);

    let c = common::case("linalg_qr", "eig_batched_f32");
    let a: Array<f32, 2, 3, 3> = common::array_arg(&c["a"]);
    let t: Array<f32, 2, 3, 3> = common::array_arg(&c["tangent"]);
    let (w, dw) = f::eigvals_batched::jvp((a,), (t,));
    let f = |v: Vec<Complex<f32>>| {
        v.iter()
            .map(|z| (z.re as f64, z.im as f64))
            .collect::<Vec<_>>()
    };
    let (w, dw) = (f(w.to_vec()), f(dw.to_vec()));
    let (cw, cdw) = (pairs(&c["w"]), pairs(&c["dw"]));
    for b in 0..2 {
        let one = serde_json::json!({
            "w": {"data": cw[b * 3..b * 3 + 3].iter().map(|p| [p.0, p.1]).collect::<Vec<_>>()},
            "dw": {"data": cdw[b * 3..b * 3 + 3].iter().map(|p| [p.0, p.1]).collect::<Vec<_>>()},
        });
        assert_jvp(
            w[b * 3..b * 3 + 3].to_vec(),
            dw[b * 3..b * 3 + 3].to_vec(),
            &one,
            2e-4,
        );
    }
}

#[test]
fn grad_through_eigvals_is_the_trace_gradient() {
    let c = common::case("linalg_qr", "eig_random_f64");
    let a: Array<f64, 5, 5> = common::array_arg(&c["a"]);
    let g = f::real_sum::grad(a).to_vec();
    for i in 0..5 {
        for j in 0..5 {
            let want = if i == j { 1.0 } else { 0.0 };
            assert!((g[i * 5 + j] - want).abs() < 1e-9, "grad {g:?}");
        }
    }
}
