//! `jnp::linalg::qr` / `qr_with` and the `eig` kernel against JAX 0.10.2
//! (tests/fixtures/linalg_qr.json, made by tests/fixtures/gen/linalg_qr.py):
//! values eagerly and in `#[jax::jit]` (f32 and f64; square, tall, wide;
//! reduced, complete and r; batched; an ill-conditioned Hilbert matrix),
//! the jvp and the vjp (as the gradient of `<q, cq> + <r, cr>`) of the
//! jitted qr, `check_grads!`, jaxpr text of the `qr` equation, and
//! property tests (Q orthogonal, Q·R ≈ A; A·v = λ·v for eig).
//!
//! Eigenvalues are compared order-insensitively: LAPACK's `geev` orders
//! them as its Schur form does, faer's Schur form may order them
//! differently (the kernel's doc says so).

use crate::common;

use jax::jnp::linalg::QrMode;
use jax::prelude::*;
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_f64().unwrap())
        .collect()
}

/// A complex number as `(re, im)`.
type Pair = (f64, f64);

fn pairs(v: &Value) -> Vec<Pair> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d[0].as_f64().unwrap(), d[1].as_f64().unwrap()))
        .collect()
}

fn arg<A: ArrayType>(c: &Value, key: &str) -> A {
    common::array_arg(&c[key])
}

/// `got` within `tol · (1 + |want|)` of `want`, element by element.
#[track_caller]
fn close<A: ArrayType>(got: &A, want: &Value, tol: f64) {
    let want_shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &want_shape[..], "shape");
    let want = floats(want);
    for (i, (g, w)) in got.data().iter().zip(&want).enumerate() {
        let g = g.to_f64();
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "element {i}: got {g}, JAX {w} (tolerance {tol})"
        );
    }
}

fn case(name: &str) -> Value {
    common::case("linalg_qr", name)
}

macro_rules! qr_case {
    ($name:ident, $jit:ident, $t:ty, [$($a:literal),+], [$($q:literal),+], [$($r:literal),+], $tol:expr) => {
        #[jax::jit]
        fn $jit(a: Array<$t, $($a),+>) -> (Array<$t, $($q),+>, Array<$t, $($r),+>) {
            jnp::linalg::qr(&a)
        }

        #[test]
        fn $name() {
            let c = case(stringify!($name));
            let a: Array<$t, $($a),+> = arg(&c, "a");
            let (q, r): (Array<$t, $($q),+>, Array<$t, $($r),+>) = jnp::linalg::qr(&a);
            close(&q, &c["q"], $tol);
            close(&r, &c["r"], $tol);
            let (qj, rj) = $jit(a);
            assert_eq!(qj.to_vec(), q.to_vec(), "jit and eager run the same kernel");
            assert_eq!(rj.to_vec(), r.to_vec());
        }
    };
}

qr_case!(square_f32, qr_square_f32, f32, [3, 3], [3, 3], [3, 3], 1e-5);
qr_case!(tall_f32, qr_tall_f32, f32, [4, 3], [4, 3], [3, 3], 1e-5);
qr_case!(wide_f32, qr_wide_f32, f32, [2, 3], [2, 2], [2, 3], 1e-5);
qr_case!(
    batched_f32,
    qr_batched_f32,
    f32,
    [2, 4, 3],
    [2, 4, 3],
    [2, 3, 3],
    1e-5
);
qr_case!(
    square_f64,
    qr_square_f64,
    f64,
    [3, 3],
    [3, 3],
    [3, 3],
    1e-12
);
qr_case!(tall_f64, qr_tall_f64, f64, [5, 3], [5, 3], [3, 3], 1e-12);
qr_case!(wide_f64, qr_wide_f64, f64, [3, 5], [3, 3], [3, 5], 1e-12);
qr_case!(
    batched_f64,
    qr_batched_f64,
    f64,
    [3, 3, 3],
    [3, 3, 3],
    [3, 3, 3],
    1e-12
);
// Condition number 5e5: Q and R still agree with LAPACK's to about
// cond · eps.
qr_case!(
    hilbert_f64,
    qr_hilbert_f64,
    f64,
    [5, 5],
    [5, 5],
    [5, 5],
    1e-9
);

#[jax::jit]
fn qr_complete_tall(a: Array<f32, 4, 3>) -> (Array<f32, 4, 4>, Array<f32, 4, 3>) {
    jnp::linalg::qr_with(&a, QrMode::Complete)
}

#[jax::jit]
fn qr_r_tall(a: Array<f32, 4, 3>) -> Array<f32, 3, 3> {
    jnp::linalg::qr_with(&a, QrMode::R)
}

#[jax::jit]
fn qr_complete_wide(a: Array<f32, 2, 3>) -> (Array<f32, 2, 2>, Array<f32, 2, 3>) {
    jnp::linalg::qr_with(&a, QrMode::Complete)
}

#[jax::jit]
fn qr_complete_f64(a: Array<f64, 5, 3>) -> (Array<f64, 5, 5>, Array<f64, 5, 3>) {
    jnp::linalg::qr_with(&a, QrMode::Complete)
}

#[test]
fn complete_and_r_modes() {
    let c = case("tall_complete_f32");
    let a: Array<f32, 4, 3> = arg(&c, "a");
    let (q, r): (Array<f32, 4, 4>, Array<f32, 4, 3>) = jnp::linalg::qr_with(&a, QrMode::Complete);
    close(&q, &c["q"], 1e-5);
    close(&r, &c["r"], 1e-5);
    let (qj, rj) = qr_complete_tall(a.clone());
    assert_eq!((qj.to_vec(), rj.to_vec()), (q.to_vec(), r.to_vec()));

    let c = case("tall_r_f32");
    let r: Array<f32, 3, 3> = jnp::linalg::qr_with(&a, QrMode::R);
    close(&r, &c["r"], 1e-5);
    assert_eq!(qr_r_tall(a).to_vec(), r.to_vec());

    let c = case("wide_complete_f32");
    let a: Array<f32, 2, 3> = arg(&c, "a");
    let (q, r) = qr_complete_wide(a);
    close(&q, &c["q"], 1e-5);
    close(&r, &c["r"], 1e-5);

    let c = case("tall_complete_f64");
    let a: Array<f64, 5, 3> = arg(&c, "a");
    let (q, r) = qr_complete_f64(a);
    close(&q, &c["q"], 1e-12);
    close(&r, &c["r"], 1e-12);
}

#[test]
#[should_panic(expected = "qr's r gives f32[3,3] but the result type is f32[4,3]")]
fn wrong_result_type_panics_naming_the_right_one() {
    let a = Array::<f32, 4, 3>::ones();
    let _: (Array<f32, 4, 3>, Array<f32, 4, 3>) = jnp::linalg::qr(&a);
}

fn jaxpr_fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/linalg_qr.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    all["jaxprs"][name].as_str().unwrap().to_string()
}

#[test]
fn qr_jaxpr_is_jaxs() {
    // `jnp.linalg.qr` wraps this equation in a named `jit`, which our
    // printer inlines (`runtime/guide/limitations.md`: "Printed jaxprs inline .. nested jit").
    assert_eq!(
        qr_tall_f32::jaxpr().to_string(),
        jaxpr_fixture("qr_reduced_f32_4x3")
    );
    assert_eq!(
        qr_complete_wide::jaxpr().to_string(),
        jaxpr_fixture("qr_full_f32_2x3")
    );
    assert_eq!(
        qr_batched_f64::jaxpr().to_string(),
        jaxpr_fixture("qr_batched_f64")
    );
}

/// The jvp of the jitted qr against JAX's, and its vjp (the gradient of
/// `<q, cq> + <r, cr>`, which is the pullback of `(cq, cr)`).
macro_rules! grad_case {
    ($name:ident, $test:ident, $jit:ident, $loss:ident, $t:ty, [$($a:literal),+], [$($q:literal),+], [$($r:literal),+], $tol:expr) => {
        #[jax::jit]
        fn $jit(a: Array<$t, $($a),+>, t: Array<$t, $($a),+>) -> (Array<$t, $($q),+>, Array<$t, $($r),+>) {
            let (_, dq) = jax::jvp(|a| { let (q, _r) = jnp::linalg::qr(&a); q }, (a,), (t,));
            let (_, dr) = jax::jvp(|a| { let (_q, r) = jnp::linalg::qr(&a); r }, (a,), (t,));
            (dq, dr)
        }

        #[jax::jit]
        fn $loss(a: Array<$t, $($a),+>, cq: Array<$t, $($q),+>, cr: Array<$t, $($r),+>) -> Array<$t> {
            let (q, r) = jnp::linalg::qr(&a);
            jnp::sum(q * cq) + jnp::sum(r * cr)
        }

        #[test]
        fn $test() {
            let c = case(stringify!($name));
            let a: Array<$t, $($a),+> = arg(&c, "a");
            let t: Array<$t, $($a),+> = arg(&c, "tangent");
            let (dq, dr) = $jit(a.clone(), t);
            close(&dq, &c["dq"], $tol);
            close(&dr, &c["dr"], $tol);
            let value = $loss(a.clone(), arg(&c, "cq"), arg(&c, "cr"));
            assert!(value.item().is_finite());
            let g = $loss::grad(a, arg(&c, "cq"), arg(&c, "cr"));
            close(&g, &c["vjp"], $tol);
        }
    };
}

grad_case!(
    square_f32,
    square_f32_grads,
    jvp_square_f32,
    loss_square_f32,
    f32,
    [3, 3],
    [3, 3],
    [3, 3],
    1e-4
);
grad_case!(
    tall_f32,
    tall_f32_grads,
    jvp_tall_f32,
    loss_tall_f32,
    f32,
    [4, 3],
    [4, 3],
    [3, 3],
    1e-4
);
grad_case!(
    wide_f32,
    wide_f32_grads,
    jvp_wide_f32,
    loss_wide_f32,
    f32,
    [2, 3],
    [2, 2],
    [2, 3],
    1e-4
);
grad_case!(
    batched_f32,
    batched_f32_grads,
    jvp_batched_f32,
    loss_batched_f32,
    f32,
    [2, 4, 3],
    [2, 4, 3],
    [2, 3, 3],
    1e-4
);
grad_case!(
    square_f64,
    square_f64_grads,
    jvp_square_f64,
    loss_square_f64,
    f64,
    [3, 3],
    [3, 3],
    [3, 3],
    1e-10
);
grad_case!(
    tall_f64,
    tall_f64_grads,
    jvp_tall_f64,
    loss_tall_f64,
    f64,
    [5, 3],
    [5, 3],
    [3, 3],
    1e-10
);
grad_case!(
    wide_f64,
    wide_f64_grads,
    jvp_wide_f64,
    loss_wide_f64,
    f64,
    [3, 5],
    [3, 3],
    [3, 5],
    1e-10
);

#[jax::jit]
fn r_diag_energy(a: Array<f64, 4, 3>) -> Array<f64> {
    let (q, r) = jnp::linalg::qr(&a);
    jnp::sum(jnp::sin(q)) + jnp::sum(r * r * 0.5)
}

#[test]
fn check_grads_of_qr() {
    let c = case("tall_f64");
    let a5: Array<f64, 5, 3> = arg(&c, "a");
    let a: Array<f64, 4, 3> = Array::from_vec(a5.to_vec()[..12].to_vec()).unwrap();
    jax::test_util::check_grads!(r_diag_energy, (a));
}

#[jax::jit]
fn vmapped_qr_r(a: Array<f32, 2, 4, 3>) -> Array<f32, 2, 3, 3> {
    jax::vmap(
        |m: Array<f32, 4, 3>| jnp::linalg::qr_with(&m, QrMode::R),
        0,
        0,
    )(a)
}

#[test]
fn vmap_of_qr_is_the_batched_qr() {
    let c = case("batched_f32");
    let a: Array<f32, 2, 4, 3> = arg(&c, "a");
    close(&vmapped_qr_r(a), &c["r"], 1e-5);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn matrix() -> impl Strategy<Value = Vec<f64>> {
        proptest::collection::vec(-2.0f64..2.0, 20)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Q has orthonormal columns, R is upper triangular, Q·R = A.
        #[test]
        fn q_orthogonal_and_qr_is_a(data in matrix()) {
            let a: Array<f64, 5, 4> = Array::from_vec(data).unwrap();
            let (q, r): (Array<f64, 5, 4>, Array<f64, 4, 4>) = jnp::linalg::qr(&a);
            let qtq = q.t().matmul(&q).to_vec();
            for i in 0..4 {
                for j in 0..4 {
                    let want = if i == j { 1.0 } else { 0.0 };
                    prop_assert!((qtq[i * 4 + j] - want).abs() < 1e-12);
                    if i > j {
                        prop_assert_eq!(r.to_vec()[i * 4 + j], 0.0);
                    }
                }
            }
            let back = q.matmul(&r).to_vec();
            for (x, y) in back.iter().zip(a.to_vec()) {
                prop_assert!((x - y).abs() < 1e-12 * 10.0);
            }
            let (qf, rf): (Array<f64, 5, 5>, Array<f64, 5, 4>) = jnp::linalg::qr_with(&a, QrMode::Complete);
            let qtq = qf.t().matmul(&qf).to_vec();
            for i in 0..5 {
                prop_assert!((qtq[i * 5 + i] - 1.0).abs() < 1e-12);
            }
            let back = qf.matmul(&rf).to_vec();
            for (x, y) in back.iter().zip(a.to_vec()) {
                prop_assert!((x - y).abs() < 1e-11);
            }
        }

        /// A·v = λ·v for each eigenpair of the eig kernel.
        #[test]
        fn eig_av_is_lambda_v(data in proptest::collection::vec(-2.0f64..2.0, 16)) {
            let n = 4;
            let mut w = vec![Default::default(); n];
            let mut v = vec![Default::default(); n * n];
            jax::__rt::linalg::eig_f64(&data, &mut w, Some(&mut v), 1, n);
            for j in 0..n {
                for i in 0..n {
                    let (mut re, mut im) = (0.0, 0.0);
                    for l in 0..n {
                        re += data[i * n + l] * v[l * n + j].re;
                        im += data[i * n + l] * v[l * n + j].im;
                    }
                    let (lr, li) = (w[j].re, w[j].im);
                    let (vr, vi) = (v[i * n + j].re, v[i * n + j].im);
                    prop_assert!((re - (lr * vr - li * vi)).abs() < 1e-9);
                    prop_assert!((im - (lr * vi + li * vr)).abs() < 1e-9);
                }
            }
        }
    }
}

/// Eigenvalues of the eig kernel against JAX's (order-insensitively), and
/// eigenvectors up to a sign for real ones (geev's normalization: unit
/// norm, largest component real).
#[test]
fn eig_kernel_matches_jax() {
    for name in [
        "eig_pair_f64",
        "eig_random_f64",
        "eig_pair_f32",
        "eig_real_f32",
        "eig_batched_f32",
    ] {
        let c = case(name);
        let a = floats(&c["a"]);
        let shape = c["a"]["shape"].as_array().unwrap().clone();
        let n = shape[shape.len() - 1].as_u64().unwrap() as usize;
        let batch = a.len() / (n * n);
        let f32_case = c["a"]["dtype"] == "float32";
        let (w, v): (Vec<Pair>, Vec<Pair>) = if f32_case {
            let a: Vec<f32> = a.iter().map(|&x| x as f32).collect();
            let mut w = vec![Default::default(); batch * n];
            let mut v = vec![Default::default(); batch * n * n];
            jax::__rt::linalg::eig_f32(&a, &mut w, Some(&mut v), batch, n);
            let f = |z: &jax::__rt::linalg::EigC32| (z.re as f64, z.im as f64);
            (w.iter().map(f).collect(), v.iter().map(f).collect())
        } else {
            let mut w = vec![Default::default(); batch * n];
            let mut v = vec![Default::default(); batch * n * n];
            jax::__rt::linalg::eig_f64(&a, &mut w, Some(&mut v), batch, n);
            let f = |z: &jax::__rt::linalg::EigC64| (z.re, z.im);
            (w.iter().map(f).collect(), v.iter().map(f).collect())
        };
        let tol = if f32_case { 1e-4 } else { 1e-10 };
        let want_w = pairs(&c["w"]);
        let want_v = pairs(&c["v"]);
        for b in 0..batch {
            for j in 0..n {
                let (re, im) = w[b * n + j];
                // The same eigenvalue in JAX's list, and its eigenvector.
                let k = (0..n)
                    .find(|&k| {
                        let (wr, wi) = want_w[b * n + k];
                        (wr - re).abs() < tol * 10.0 && (wi - im).abs() < tol * 10.0
                    })
                    .unwrap_or_else(|| panic!("{name}: eigenvalue {re}+{im}i is not JAX's"));
                for i in 0..n {
                    let (gr, gi) = v[b * n * n + i * n + j];
                    let (jr, ji) = want_v[b * n * n + i * n + k];
                    let same = (gr - jr).abs() < tol * 10.0 && (gi - ji).abs() < tol * 10.0;
                    let flipped = (gr + jr).abs() < tol * 10.0 && (gi + ji).abs() < tol * 10.0;
                    let mag = ((gr * gr + gi * gi).sqrt() - (jr * jr + ji * ji).sqrt()).abs()
                        < tol * 10.0;
                    assert!(
                        mag && (same || flipped || im == 0.0),
                        "{name}: eigenvector {j} element {i}: ({gr}, {gi}) vs JAX ({jr}, {ji})"
                    );
                }
            }
        }
    }
}

/// The eager `jnp::linalg::eig` and `eigvals` give the kernel's values:
/// JAX's eigenvalues as a set, `A·v = λ·v`.
#[test]
fn eig_and_eigvals_eagerly() {
    let c = case("eig_pair_f32");
    let a: Array<f32, 3, 3> = arg(&c, "a");
    let (w, v): (Array<Complex<f32>, 3>, Array<Complex<f32>, 3, 3>) = jnp::linalg::eig(&a);
    let want = pairs(&c["w"]);
    for z in w.to_vec() {
        assert!(
            want.iter().any(|&(re, im)| (z.re as f64 - re).abs() < 1e-5 && (z.im as f64 - im).abs() < 1e-5),
            "eigenvalue {z} is not among JAX's {want:?}"
        );
    }
    let (a, v, w) = (a.to_vec(), v.to_vec(), w.to_vec());
    for j in 0..3 {
        for i in 0..3 {
            let av: Complex<f32> = (0..3).map(|l| v[l * 3 + j] * a[i * 3 + l]).sum();
            assert!((av - w[j] * v[i * 3 + j]).norm() < 1e-5);
        }
    }
    let c = case("eig_random_f64");
    let a: Array<f64, 5, 5> = arg(&c, "a");
    let w: Array<Complex<f64>, 5> = jnp::linalg::eigvals(&a);
    let mut got: Vec<(f64, f64)> = w.to_vec().iter().map(|z| (z.re, z.im)).collect();
    let mut want = pairs(&c["w"]);
    let order = |x: &(f64, f64), y: &(f64, f64)| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1));
    got.sort_by(order);
    want.sort_by(order);
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g.0 - w.0).abs() < 1e-10 && (g.1 - w.1).abs() < 1e-10,
            "{g:?} vs JAX {w:?}"
        );
    }
}

#[test]
#[should_panic(expected = "The input to eig must be a square matrix. Got shape (2, 3).")]
fn eig_of_a_non_square_matrix_panics_with_jaxs_message() {
    let _: Array<Complex<f32>, 2> = jnp::linalg::eigvals(Array::<f32, 2, 3>::ones());
}

/// `Array::<T, N, N>::eye()` inside jit: `qᵀq - I` of a reduced qr is zero.
#[jax::jit]
fn qtq_minus_eye(a: Array<f32, 4, 3>) -> Array<f32, 3, 3> {
    let (q, _r) = jnp::linalg::qr(&a);
    q.t().matmul(&q) - Array::<f32, 3, 3>::eye()
}

#[test]
fn eye_inside_jit() {
    let c = case("tall_f32");
    let a: Array<f32, 4, 3> = arg(&c, "a");
    let d = qtq_minus_eye(a);
    assert!(d.to_vec().iter().all(|x| x.abs() < 1e-6), "{d}");
    assert!(
        qtq_minus_eye::jaxpr().to_string().contains("eq"),
        "eye is built from iotas"
    );
}
