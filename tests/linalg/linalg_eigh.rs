//! `jnp::linalg::eigh`, `eigvalsh`, `svd`, `svdvals` and `norm`, eagerly
//! and in jit, against JAX (tests/fixtures/linalg_eigh.json, made by
//! tests/fixtures/gen/linalg_eigh.py): values (eigenvectors and singular
//! vectors compared sign-invariantly), jvp and grad of the spectral
//! rules, `check_grads!`, and properties (A·v = λ·v, U·S·Vᵀ = A).

use crate::common;

use jax::prelude::*;
use jax::{ArrayType, Element};
use proptest::prelude::*;
use serde_json::Value;

fn nums(v: &Value) -> Vec<f64> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// A fixture array as `A` (shape checked).
fn arr<A: ArrayType>(v: &Value) -> A {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "fixture shape");
    A::from_data(nums(v).into_iter().map(A::Elem::from_f64).collect())
}

/// Every element within `tol` of the fixture's, relative to its scale.
#[track_caller]
fn close<A: ArrayType>(what: &str, got: &A, want: &[f64], tol: f64) {
    let got: Vec<f64> = got.data().iter().map(|x| x.to_f64()).collect();
    assert_eq!(got.len(), want.len(), "{what}: size");
    let scale = want.iter().fold(1e-300f64, |m, x| m.max(x.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * scale,
            "{what}[{i}]: got {g}, JAX {w} (tolerance {tol} × {scale})"
        );
    }
}

fn case(name: &str) -> Value {
    common::case("linalg_eigh", name)
}

fn abs<A: ArrayType>(x: &A) -> Vec<f64> {
    x.data().iter().map(|v| v.to_f64().abs()).collect()
}

/// A·v − v·diag(w) over a batch of row-major n×n matrices, relative to |A|.
fn eig_residual(a: &[f64], v: &[f64], w: &[f64], n: usize) -> f64 {
    let mut worst = 0.0f64;
    for b in 0..a.len() / (n * n) {
        let (a, v, w) = (&a[b * n * n..], &v[b * n * n..], &w[b * n..]);
        let scale = a[..n * n].iter().fold(1e-300f64, |m, x| m.max(x.abs()));
        for i in 0..n {
            for k in 0..n {
                let av: f64 = (0..n).map(|j| a[i * n + j] * v[j * n + k]).sum();
                worst = worst.max((av - v[i * n + k] * w[k]).abs() / scale);
            }
        }
    }
    worst
}

/// max |u·diag(s)·vt − a| / max |a| for one m×n matrix (full u, vt).
fn svd_residual(a: &[f64], u: &[f64], s: &[f64], vt: &[f64], m: usize, n: usize) -> f64 {
    let (ku, k) = (u.len() / m, s.len());
    let scale = a.iter().fold(1e-300f64, |x, y| x.max(y.abs()));
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let r: f64 = (0..k).map(|l| u[i * ku + l] * s[l] * vt[l * n + j]).sum();
            worst = worst.max((r - a[i * n + j]).abs() / scale);
        }
    }
    worst
}

fn f64s<A: ArrayType>(x: &A) -> Vec<f64> {
    x.data().iter().map(|v| v.to_f64()).collect()
}

#[jax::jit]
fn eigh_f32_3(a: &Array<f32, 3, 3>) -> (Array<f32, 3>, Array<f32, 3, 3>) {
    jnp::linalg::eigh(a)
}

#[jax::jit]
fn eigh_f64_4(a: &Array<f64, 4, 4>) -> (Array<f64, 4>, Array<f64, 4, 4>) {
    jnp::linalg::eigh(a)
}

#[jax::jit]
fn eigh_f32_batched(a: &Array<f32, 2, 3, 3>) -> (Array<f32, 2, 3>, Array<f32, 2, 3, 3>) {
    jnp::linalg::eigh(a)
}

#[jax::jit]
fn eigvalsh_f64_3(a: &Array<f64, 3, 3>) -> Array<f64, 3> {
    jnp::linalg::eigvalsh(a)
}

/// Checks one eigh case: eigenvalues, |v| (when `vectors`), A·v = λ·v.
#[track_caller]
fn check_eigh<A: ArrayType, W: ArrayType>(name: &str, got: &(W, A), tol: f64, vectors: bool) {
    let c = case(name);
    let (w, v) = got;
    close(&format!("{name} w"), w, &nums(&c["w"]), tol);
    close(&format!("{name} eigvalsh"), w, &nums(&c["w_vals"]), tol);
    if vectors {
        let want = nums(&c["v_abs"]);
        let got_abs = abs(v);
        let scale = 1.0;
        for (i, (g, w)) in got_abs.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= tol * 10.0 * scale,
                "{name} |v|[{i}]: {g} vs {w}"
            );
        }
    }
    // Against the symmetrized input, which is what eigh decomposes.
    let a = nums(&c["a"]);
    let n = *A::SHAPE.last().unwrap();
    let mut sym = a.clone();
    for b in 0..a.len() / (n * n) {
        for i in 0..n {
            for j in 0..n {
                sym[b * n * n + i * n + j] =
                    (a[b * n * n + i * n + j] + a[b * n * n + j * n + i]) / 2.0;
            }
        }
    }
    let r = eig_residual(&sym, &f64s(v), &f64s(w), n);
    assert!(r <= tol * 10.0, "{name}: |A v - v w| / |A| = {r}");
}

#[test]
fn eigh_values_eager_and_jit() {
    let a: Array<f32, 3, 3> = arr(&case("eigh_f32_3")["a"]);
    check_eigh(
        "eigh_f32_3",
        &jnp::linalg::eigh::<Array<f32, 3>, _>(&a),
        1e-5,
        true,
    );
    check_eigh("eigh_f32_3", &eigh_f32_3(&a), 1e-5, true);
    let a: Array<f64, 4, 4> = arr(&case("eigh_f64_4")["a"]);
    check_eigh(
        "eigh_f64_4",
        &jnp::linalg::eigh::<Array<f64, 4>, _>(&a),
        1e-12,
        true,
    );
    check_eigh("eigh_f64_4", &eigh_f64_4(&a), 1e-12, true);
    let a: Array<f32, 2, 3, 3> = arr(&case("eigh_f32_batched")["a"]);
    check_eigh(
        "eigh_f32_batched",
        &jnp::linalg::eigh::<Array<f32, 2, 3>, _>(&a),
        1e-5,
        true,
    );
    check_eigh("eigh_f32_batched", &eigh_f32_batched(&a), 1e-5, true);
    // Not symmetric: JAX decomposes (a + aᵀ)/2.
    let a: Array<f32, 3, 3> = arr(&case("eigh_f32_nonsym")["a"]);
    check_eigh(
        "eigh_f32_nonsym",
        &jnp::linalg::eigh::<Array<f32, 3>, _>(&a),
        1e-5,
        true,
    );
    check_eigh("eigh_f32_nonsym", &eigh_f32_3(&a), 1e-5, true);
}

#[test]
fn eigh_ill_conditioned_and_degenerate() {
    // Eigenvalues 1e-9 .. 1e3: relative to the largest, as LAPACK's are.
    let a: Array<f64, 4, 4> = arr(&case("eigh_f64_ill")["a"]);
    check_eigh("eigh_f64_ill", &eigh_f64_4(&a), 1e-12, true);
    // A repeated eigenvalue: its eigenvectors are any basis of the
    // eigenspace, so only the values and A·v = λ·v are compared.
    let a: Array<f64, 3, 3> = arr(&case("eigh_f64_degenerate")["a"]);
    check_eigh(
        "eigh_f64_degenerate",
        &jnp::linalg::eigh::<Array<f64, 3>, _>(&a),
        1e-12,
        false,
    );
    let w = eigvalsh_f64_3(&a);
    close(
        "degenerate eigvalsh jit",
        &w,
        &nums(&case("eigh_f64_degenerate")["w"]),
        1e-12,
    );
}

#[test]
fn eigh_of_nan_is_nan_not_a_panic() {
    let a = Array::<f32, 2, 2>::from([[f32::NAN, 1.0], [1.0, 2.0]]);
    let (w, v): (Array<f32, 2>, _) = jnp::linalg::eigh(&a);
    assert!(w.to_vec().iter().all(|x| x.is_nan()));
    assert!(v.to_vec().iter().all(|x| x.is_nan()));
}

#[test]
#[should_panic(
    expected = "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape (2, 3)"
)]
fn eigh_of_a_non_square_matrix_panics_eagerly() {
    let a = Array::<f32, 2, 3>::zeros();
    let _: (Array<f32, 2>, _) = jnp::linalg::eigh(&a);
}

// Derivatives of eigh.

#[jax::jit]
fn eigvals_of(a: &Array<f64, 3, 3>) -> Array<f64, 3> {
    jnp::linalg::eigvalsh(a)
}

#[jax::jit]
fn vecs_sq(a: &Array<f64, 3, 3>) -> Array<f64, 3, 3> {
    let (_w, v): (Array<f64, 3>, Array<f64, 3, 3>) = jnp::linalg::eigh(a);
    &v * &v
}

#[jax::jit]
fn eigvals_weighted(a: &Array<f64, 3, 3>, c: &Array<f64, 3>) -> Array<f64> {
    let w: Array<f64, 3> = jnp::linalg::eigvalsh(a);
    jnp::sum(&w * c)
}

#[jax::jit]
fn vecs_sq_weighted(a: &Array<f64, 3, 3>, cm: &Array<f64, 3, 3>) -> Array<f64> {
    let (_w, v): (Array<f64, 3>, Array<f64, 3, 3>) = jnp::linalg::eigh(a);
    jnp::sum(&v * &v * cm)
}

#[test]
fn eigh_jvp_and_grad_match_jax() {
    let c = case("eigh_grads");
    let a: Array<f64, 3, 3> = arr(&c["a"]);
    let t: Array<f64, 3, 3> = arr(&c["t"]);
    let (_, w_dot) = eigvals_of::jvp((&a,), (&t,));
    close("eigh w jvp", &w_dot, &nums(&c["w_dot"]), 1e-10);
    let (_, vsq_dot) = vecs_sq::jvp((&a,), (&t,));
    close("eigh v² jvp", &vsq_dot, &nums(&c["vsq_dot"]), 1e-10);
    let cw: Array<f64, 3> = arr(&c["c"]);
    close(
        "grad of Σ c·w",
        &eigvals_weighted::grad(&a, &cw),
        &nums(&c["grad_w"]),
        1e-10,
    );
    let cm: Array<f64, 3, 3> = arr(&c["cm"]);
    close(
        "grad of Σ cm·v²",
        &vecs_sq_weighted::grad(&a, &cm),
        &nums(&c["grad_vsq"]),
        1e-10,
    );
}

#[jax::jit]
fn eigh_sum_for_check(a: &Array<f64, 3, 3>) -> Array<f64> {
    let (w, v): (Array<f64, 3>, Array<f64, 3, 3>) = jnp::linalg::eigh(a);
    jnp::sum(&w * &w) + jnp::sum(&v * &v * &v * &v)
}

#[test]
fn eigh_check_grads() {
    let c = case("eigh_grads");
    let a: Array<f64, 3, 3> = arr(&c["a"]);
    jax::test_util::check_grads!(eigh_sum_for_check, (&a));
}

// SVD.

#[jax::jit]
fn svd_f32_3x2(a: &Array<f32, 3, 2>) -> (Array<f32, 3, 3>, Array<f32, 2>, Array<f32, 2, 2>) {
    jnp::linalg::svd(a)
}

#[jax::jit]
fn svd_f64_2x4(a: &Array<f64, 2, 4>) -> (Array<f64, 2, 2>, Array<f64, 2>, Array<f64, 4, 4>) {
    jnp::linalg::svd(a)
}

#[jax::jit]
fn svd_f64_3x3(a: &Array<f64, 3, 3>) -> (Array<f64, 3, 3>, Array<f64, 3>, Array<f64, 3, 3>) {
    jnp::linalg::svd(a)
}

#[jax::jit]
fn svdvals_batched(a: &Array<f32, 2, 3, 3>) -> Array<f32, 2, 3> {
    jnp::linalg::svdvals(a)
}

#[jax::jit]
fn svd_batched(
    a: &Array<f32, 2, 3, 3>,
) -> (Array<f32, 2, 3, 3>, Array<f32, 2, 3>, Array<f32, 2, 3, 3>) {
    jnp::linalg::svd(a)
}

/// Checks one svd case: s, |u| and |vh| on the singular vectors (when
/// `vectors`), and u·diag(s)·vh = a, per matrix of the batch.
#[track_caller]
fn check_svd<U: ArrayType, S: ArrayType, V: ArrayType>(
    name: &str,
    got: &(U, S, V),
    tol: f64,
    vectors: bool,
) {
    let c = case(name);
    let (u, s, vt) = got;
    close(&format!("{name} s"), s, &nums(&c["s"]), tol);
    let r = U::SHAPE.len();
    let (m, n) = (U::SHAPE[r - 2], V::SHAPE[r - 1]);
    let k = m.min(n);
    let batch = S::SIZE / k;
    let (a, uu, ss, vv) = (nums(&c["a"]), f64s(u), f64s(s), f64s(vt));
    for b in 0..batch {
        let res = svd_residual(
            &a[b * m * n..(b + 1) * m * n],
            &uu[b * m * m..(b + 1) * m * m],
            &ss[b * k..(b + 1) * k],
            &vv[b * n * n..(b + 1) * n * n],
            m,
            n,
        );
        assert!(res <= tol * 10.0, "{name}: |u s vh - a| / |a| = {res}");
    }
    if vectors {
        // The first k columns of u and rows of vh, up to sign.
        let want_u = nums(&c["u_abs"]);
        let want_v = nums(&c["vh_abs"]);
        for b in 0..batch {
            for i in 0..m {
                for l in 0..k {
                    let g = uu[b * m * m + i * m + l].abs();
                    let w = want_u[b * m * k + i * k + l];
                    assert!(
                        (g - w).abs() <= tol * 10.0,
                        "{name} |u|[{b},{i},{l}]: {g} vs {w}"
                    );
                }
            }
            for l in 0..k {
                for j in 0..n {
                    let g = vv[b * n * n + l * n + j].abs();
                    let w = want_v[b * k * n + l * n + j];
                    assert!(
                        (g - w).abs() <= tol * 10.0,
                        "{name} |vh|[{b},{l},{j}]: {g} vs {w}"
                    );
                }
            }
        }
    }
}

#[test]
fn svd_values_eager_and_jit() {
    let a: Array<f32, 3, 2> = arr(&case("svd_f32_3x2")["a"]);
    let eager: (Array<f32, 3, 3>, Array<f32, 2>, Array<f32, 2, 2>) = jnp::linalg::svd(&a);
    check_svd("svd_f32_3x2", &eager, 1e-5, true);
    check_svd("svd_f32_3x2", &svd_f32_3x2(&a), 1e-5, true);
    let a: Array<f64, 2, 4> = arr(&case("svd_f64_2x4")["a"]);
    let eager: (Array<f64, 2, 2>, Array<f64, 2>, Array<f64, 4, 4>) = jnp::linalg::svd(&a);
    check_svd("svd_f64_2x4", &eager, 1e-12, true);
    check_svd("svd_f64_2x4", &svd_f64_2x4(&a), 1e-12, true);
    let a: Array<f64, 3, 3> = arr(&case("svd_f64_3x3")["a"]);
    check_svd("svd_f64_3x3", &svd_f64_3x3(&a), 1e-12, true);
    let a: Array<f32, 2, 3, 3> = arr(&case("svd_f32_batched")["a"]);
    check_svd("svd_f32_batched", &svd_batched(&a), 1e-5, true);
    let eager: (Array<f32, 2, 3, 3>, Array<f32, 2, 3>, Array<f32, 2, 3, 3>) = jnp::linalg::svd(&a);
    check_svd("svd_f32_batched", &eager, 1e-5, true);
    close(
        "svdvals batched jit",
        &svdvals_batched(&a),
        &nums(&case("svd_f32_batched")["svdvals"]),
        1e-5,
    );
    let s: Array<f32, 2, 3> = jnp::linalg::svdvals(&a);
    close(
        "svdvals batched eager",
        &s,
        &nums(&case("svd_f32_batched")["svdvals"]),
        1e-5,
    );
    // Singular values 1e-8 .. 1e4: relative to the largest.
    let a: Array<f64, 3, 3> = arr(&case("svd_f64_ill")["a"]);
    check_svd("svd_f64_ill", &svd_f64_3x3(&a), 1e-12, false);
}

#[jax::jit]
fn svdvals_3x2(a: &Array<f64, 3, 2>) -> Array<f64, 2> {
    jnp::linalg::svdvals(a)
}

#[jax::jit]
fn svals_weighted(a: &Array<f64, 3, 2>, cs: &Array<f64, 2>) -> Array<f64> {
    let s: Array<f64, 2> = jnp::linalg::svdvals(a);
    jnp::sum(&s * cs)
}

#[jax::jit]
fn uv_weighted(a: &Array<f64, 3, 3>, cu: &Array<f64, 3, 3>) -> Array<f64> {
    let (u, s, vh): (Array<f64, 3, 3>, Array<f64, 3>, Array<f64, 3, 3>) = jnp::linalg::svd(a);
    jnp::sum(&u * &u * cu) + jnp::sum(&vh * &vh * cu.t()) + jnp::sum(&s)
}

#[test]
fn svd_jvp_and_grad_match_jax() {
    let c = case("svd_grads");
    let a: Array<f64, 3, 2> = arr(&c["a"]);
    let t: Array<f64, 3, 2> = arr(&c["t"]);
    let (_, s_dot) = svdvals_3x2::jvp((&a,), (&t,));
    close("svdvals jvp", &s_dot, &nums(&c["s_dot"]), 1e-10);
    let cs: Array<f64, 2> = arr(&c["cs"]);
    close(
        "grad of Σ cs·s",
        &svals_weighted::grad(&a, &cs),
        &nums(&c["grad_s"]),
        1e-10,
    );
    let sq: Array<f64, 3, 3> = arr(&c["sq"]);
    let tsq: Array<f64, 3, 3> = arr(&c["tsq"]);
    let cu: Array<f64, 3, 3> = arr(&c["cu"]);
    let (_, d) = uv_weighted::jvp((&sq, &cu), (&tsq, &Array::zeros()));
    close(
        "jvp of a function of u, s, vh",
        &d,
        &nums(&c["uv_dot"]),
        1e-9,
    );
    close(
        "grad of a function of u, s, vh",
        &uv_weighted::grad(&sq, &cu),
        &nums(&c["grad_uv"]),
        1e-9,
    );
}

#[test]
fn svd_check_grads() {
    let c = case("svd_grads");
    let a: Array<f64, 3, 2> = arr(&c["a"]);
    let cs: Array<f64, 2> = arr(&c["cs"]);
    jax::test_util::check_grads!(svals_weighted, (&a, &cs));
    let sq: Array<f64, 3, 3> = arr(&c["sq"]);
    let cu: Array<f64, 3, 3> = arr(&c["cu"]);
    jax::test_util::check_grads!(uv_weighted, (&sq, &cu));
}

// Norm.

#[jax::jit]
fn norm_2x3(x: &Array<f32, 2, 3>) -> Array<f32> {
    jnp::linalg::norm(x)
}

#[jax::jit]
fn norm_vec(v: &Array<f64, 5>) -> Array<f64> {
    jnp::linalg::norm(v)
}

#[test]
fn norm_eager_jit_and_grad() {
    let c = case("norm");
    let x: Array<f32, 2, 3> = arr(&c["x"]);
    close(
        "norm eager",
        &jnp::linalg::norm(&x),
        &nums(&c["norm_x"]),
        1e-6,
    );
    close("norm jit", &norm_2x3(&x), &nums(&c["norm_x"]), 1e-6);
    close("norm grad", &norm_2x3::grad(&x), &nums(&c["grad_x"]), 1e-6);
    let v: Array<f64, 5> = arr(&c["v"]);
    close(
        "vector norm eager",
        &jnp::linalg::norm(&v),
        &nums(&c["norm_v"]),
        1e-14,
    );
    close("vector norm jit", &norm_vec(&v), &nums(&c["norm_v"]), 1e-14);
    for name in ["svd_f64_3x3", "svd_f64_ill"] {
        let a: Array<f64, 3, 3> = arr(&case(name)["a"]);
        close(
            name,
            &jnp::linalg::norm(&a),
            &nums(&case(name)["norm"]),
            1e-14,
        );
    }
}

// Properties.

#[jax::jit]
fn eigh_4(a: &Array<f64, 4, 4>) -> (Array<f64, 4>, Array<f64, 4, 4>) {
    jnp::linalg::eigh(a)
}

#[jax::jit]
fn svd_3x4(a: &Array<f64, 3, 4>) -> (Array<f64, 3, 3>, Array<f64, 3>, Array<f64, 4, 4>) {
    jnp::linalg::svd(a)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn eigh_satisfies_a_v_equals_lambda_v(data in prop::collection::vec(-10.0f64..10.0, 16)) {
        let mut sym = data.clone();
        for i in 0..4 { for j in 0..4 { sym[i * 4 + j] = data[i * 4 + j] + data[j * 4 + i]; } }
        let a = <Array<f64, 4, 4> as ArrayType>::from_data(sym.clone());
        let (w, v) = eigh_4(&a);
        prop_assert!(eig_residual(&sym, &f64s(&v), &f64s(&w), 4) < 1e-12);
        let w = f64s(&w);
        prop_assert!(w.windows(2).all(|p| p[0] <= p[1]), "ascending: {:?}", w);
        // vᵀv = I
        let v = f64s(&v);
        for i in 0..4 { for j in 0..4 {
            let d: f64 = (0..4).map(|k| v[k * 4 + i] * v[k * 4 + j]).sum();
            prop_assert!((d - f64::from(u8::from(i == j))).abs() < 1e-12);
        } }
    }

    #[test]
    fn svd_reconstructs_its_matrix(data in prop::collection::vec(-10.0f64..10.0, 12)) {
        let a = <Array<f64, 3, 4> as ArrayType>::from_data(data.clone());
        let (u, s, vh) = svd_3x4(&a);
        prop_assert!(svd_residual(&data, &f64s(&u), &f64s(&s), &f64s(&vh), 3, 4) < 1e-12);
        let s = f64s(&s);
        prop_assert!(s.windows(2).all(|p| p[0] >= p[1]) && s.iter().all(|x| *x >= 0.0));
        // Full Vᵀ is orthogonal.
        let vh = f64s(&vh);
        for i in 0..4 { for j in 0..4 {
            let d: f64 = (0..4).map(|k| vh[i * 4 + k] * vh[j * 4 + k]).sum();
            prop_assert!((d - f64::from(u8::from(i == j))).abs() < 1e-12);
        } }
    }
}

// vmap: the batching rules move the mapped axis first.

#[jax::jit]
fn eigvalsh_mapped(a: &Array<f64, 3, 3, 2>) -> Array<f64, 3, 2> {
    jax::vmap(|m| jnp::linalg::eigvalsh(m), 2, 1)(a)
}

#[jax::jit]
fn svdvals_mapped(a: &Array<f64, 3, 2, 3>) -> Array<f64, 2, 3> {
    jax::vmap(|m| jnp::linalg::svdvals(m), 1, 0)(a)
}

#[test]
fn vmap_of_eigh_and_svd_equals_the_batched_call() {
    let a: Array<f64, 3, 3, 2> = Array::from_fn(|i| ((i * 5) % 7) as f64 - 3.0);
    let got = f64s(&eigvalsh_mapped(&a));
    let d = f64s(&a);
    for k in 0..2 {
        let m: Array<f64, 3, 3> = Array::from_fn(|i| d[i * 2 + k]);
        let w: Array<f64, 3> = jnp::linalg::eigvalsh(&m);
        for (i, x) in f64s(&w).iter().enumerate() {
            assert!((got[i * 2 + k] - x).abs() < 1e-12, "eigvalsh lane {k}");
        }
    }
    let a: Array<f64, 3, 2, 3> = Array::from_fn(|i| ((i * 5) % 7) as f64 - 3.0);
    let got = f64s(&svdvals_mapped(&a));
    let d = f64s(&a);
    for k in 0..2 {
        let m: Array<f64, 3, 3> = Array::from_fn(|i| d[(i / 3) * 6 + k * 3 + i % 3]);
        let s: Array<f64, 3> = jnp::linalg::svdvals(&m);
        for (i, x) in f64s(&s).iter().enumerate() {
            assert!((got[k * 3 + i] - x).abs() < 1e-12, "svdvals lane {k}");
        }
    }
}
