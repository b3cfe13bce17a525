//! LU and everything built on it, eagerly and in jit, against JAX 0.10.2
//! (tests/fixtures/linalg_lu.json, made by tests/fixtures/gen/linalg_lu.py):
//! `scipy::linalg::lu`, `lu_factor`, `lu_solve`, `jnp::linalg::solve`,
//! `inv`, `det`, `slogdet`, `matrix_power`; jvps and grads (`f::jvp`,
//! `f::grad`) as JAX's; `check_grads!`; property tests.
//!
//! Tolerances: LU differs from LAPACK in the last bits, amplified by the
//! condition number, so values are compared with a relative tolerance per
//! case (`tol`); singular matrices must give the same non-finite values
//! where JAX's are (inf or nan, exactly where).

use jax::prelude::*;
use serde_json::Value;

use crate::common;
use common::linalg::{arr, close, data};

fn case(name: &str, dtype: &str) -> Value {
    common::cases("linalg_lu")
        .into_iter()
        .find(|c| c["name"] == name && c["dtype"] == dtype)
        .unwrap_or_else(|| panic!("no case {name} {dtype}"))
}

/// Integers exactly.
#[track_caller]
fn same_ints<A: ArrayType>(what: &str, got: &A, want: &Value) {
    let g: Vec<f64> = got.data().iter().map(|x| x.to_f64()).collect();
    assert_eq!(g, data(want), "{what}");
}

/// One suite of jitted functions for matrices `[$($d),*]` of `$t`, with
/// right-hand sides `[$($bm),*]` and determinants `[$($s),*]`.
macro_rules! suite {
    ($m:ident, $t:ident, [$($d:literal),*], [$($bm:literal),*], [$($s:literal),*], [$($piv:literal),*]) => {
        mod $m {
            #![allow(dead_code)]
            use jax::prelude::*;
            pub type A = Array<$t, $($d),*>;
            pub type B = Array<$t, $($bm),*>;
            pub type S = Array<$t, $($s),*>;
            pub type P = Array<i32, $($piv),*>;

            #[jax::jit]
            pub fn lu_factor(a: &Array<$t, $($d),*>) -> (Array<$t, $($d),*>, Array<i32, $($piv),*>) {
                jax::scipy::linalg::lu_factor(a)
            }
            #[jax::jit]
            pub fn lu(a: &Array<$t, $($d),*>) -> (Array<$t, $($d),*>, Array<$t, $($d),*>, Array<$t, $($d),*>) {
                jax::scipy::linalg::lu(a)
            }
            #[jax::jit]
            pub fn lu_solve(lu: &Array<$t, $($d),*>, piv: &Array<i32, $($piv),*>, b: &Array<$t, $($bm),*>) -> Array<$t, $($bm),*> {
                jax::scipy::linalg::lu_solve((lu, piv), b)
            }
            #[jax::jit]
            pub fn solve(a: &Array<$t, $($d),*>, b: &Array<$t, $($bm),*>) -> Array<$t, $($bm),*> {
                jnp::linalg::solve(a, b)
            }
            #[jax::jit]
            pub fn inv(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> {
                jnp::linalg::inv(a)
            }
            #[jax::jit]
            pub fn det(a: &Array<$t, $($d),*>) -> Array<$t, $($s),*> {
                jnp::linalg::det(a)
            }
            #[jax::jit]
            pub fn slogdet(a: &Array<$t, $($d),*>) -> (Array<$t, $($s),*>, Array<$t, $($s),*>) {
                jnp::linalg::slogdet(a)
            }
            #[jax::jit]
            pub fn power_0(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> { jnp::linalg::matrix_power(a, 0) }
            #[jax::jit]
            pub fn power_1(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> { jnp::linalg::matrix_power(a, 1) }
            #[jax::jit]
            pub fn power_2(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> { jnp::linalg::matrix_power(a, 2) }
            #[jax::jit]
            pub fn power_3(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> { jnp::linalg::matrix_power(a, 3) }
            #[jax::jit]
            pub fn power_5(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> { jnp::linalg::matrix_power(a, 5) }
            #[jax::jit]
            pub fn power_m1(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> { jnp::linalg::matrix_power(a, -1) }
            #[jax::jit]
            pub fn power_m3(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> { jnp::linalg::matrix_power(a, -3) }

            // Derivatives.
            #[jax::jit]
            pub fn lu_w(a: &Array<$t, $($d),*>, w: &Array<$t, $($d),*>) -> Array<$t> {
                let (lu, _piv) = jax::scipy::linalg::lu_factor(a);
                jnp::sum(lu * w)
            }
            #[jax::jit(argnums = (0, 1))]
            pub fn solve_w(a: &Array<$t, $($d),*>, b: &Array<$t, $($bm),*>, w: &Array<$t, $($bm),*>) -> Array<$t> {
                jnp::sum(jnp::linalg::solve(a, b) * w)
            }
            #[jax::jit]
            pub fn inv_w(a: &Array<$t, $($d),*>, w: &Array<$t, $($d),*>) -> Array<$t> {
                jnp::sum(jnp::linalg::inv(a) * w)
            }
            #[jax::jit]
            pub fn det_sum(a: &Array<$t, $($d),*>) -> Array<$t> {
                let d: Array<$t, $($s),*> = jnp::linalg::det(a);
                jnp::sum(d)
            }
            #[jax::jit]
            pub fn logdet_sum(a: &Array<$t, $($d),*>) -> Array<$t> {
                let (_sign, l): (Array<$t, $($s),*>, Array<$t, $($s),*>) = jnp::linalg::slogdet(a);
                jnp::sum(l)
            }
            #[jax::jit]
            pub fn power_m2_w(a: &Array<$t, $($d),*>, w: &Array<$t, $($d),*>) -> Array<$t> {
                jnp::sum(jnp::linalg::matrix_power(a, -2) * w)
            }
            #[jax::jit]
            pub fn lu_solve_w(b: &Array<$t, $($bm),*>, lu: &Array<$t, $($d),*>, piv: &Array<i32, $($piv),*>, w: &Array<$t, $($bm),*>) -> Array<$t> {
                jnp::sum(jax::scipy::linalg::lu_solve((lu, piv), b) * w)
            }
        }
    };
}

suite!(well3_f32, f32, [3, 3], [3, 2], [], [3]);
suite!(well3_f64, f64, [3, 3], [3, 2], [], [3]);
suite!(rand4_f32, f32, [4, 4], [4, 2], [], [4]);
suite!(rand4_f64, f64, [4, 4], [4, 2], [], [4]);
suite!(hilbert5_f32, f32, [5, 5], [5, 2], [], [5]);
suite!(hilbert5_f64, f64, [5, 5], [5, 2], [], [5]);
suite!(batch_f32, f32, [2, 3, 3], [2, 3, 2], [2], [2, 3]);
suite!(batch_f64, f64, [2, 3, 3], [2, 3, 2], [2], [2, 3]);
suite!(two2_f32, f32, [2, 2], [2, 2], [], [2]);
suite!(two2_f64, f64, [2, 2], [2, 2], [], [2]);

/// Values, eager and jitted, of every function on the case.
macro_rules! check_values {
    ($m:ident, $name:literal, $dtype:literal, $tol:expr, $singular:expr) => {{
        use $m as s;
        let c = case($name, $dtype);
        let v = &c["values"];
        let tol: f64 = $tol;
        let a: s::A = arr(&c["a"]);
        let b: s::B = arr(&c["b_mat"]);
        // lu_factor: pivots exactly (the singular ones included), factors closely.
        let (lu_e, piv_e): (s::A, s::P) = jax::scipy::linalg::lu_factor(&a);
        let (lu_j, piv_j) = s::lu_factor(&a);
        same_ints("lu_factor piv", &piv_e, &v["lu_factor"][1]);
        same_ints("lu_factor piv jit", &piv_j, &v["lu_factor"][1]);
        close("lu_factor lu", &lu_e, &v["lu_factor"][0], tol);
        close("lu_factor lu jit", &lu_j, &v["lu_factor"][0], tol);
        close("lu_factor lu (the lu primitive)", &lu_e, &v["lu"][0], tol);
        let (p, l, u) = jax::scipy::linalg::lu(&a);
        let (pj, lj, uj) = s::lu(&a);
        for (k, (e, j)) in [(&p, &pj), (&l, &lj), (&u, &uj)].into_iter().enumerate() {
            close("scipy lu", e, &v["scipy_lu"][k], tol);
            close("scipy lu jit", j, &v["scipy_lu"][k], tol);
        }
        let dets: s::S = jnp::linalg::det(&a);
        close("det", &dets, &v["det"], tol);
        close("det jit", &s::det(&a), &v["det"], tol);
        let (sign, logdet): (s::S, s::S) = jnp::linalg::slogdet(&a);
        let (sign_j, logdet_j) = s::slogdet(&a);
        close("slogdet sign", &sign, &v["slogdet"][0], 0.0);
        close("slogdet sign jit", &sign_j, &v["slogdet"][0], 0.0);
        close("slogdet logdet", &logdet, &v["slogdet"][1], tol);
        close("slogdet logdet jit", &logdet_j, &v["slogdet"][1], tol);
        close(
            "power 0",
            &jnp::linalg::matrix_power(&a, 0),
            &v["matrix_power_0"],
            0.0,
        );
        close("power 0 jit", &s::power_0(&a), &v["matrix_power_0"], 0.0);
        close("power 1", &s::power_1(&a), &v["matrix_power_1"], 1e-12);
        close(
            "power 2",
            &jnp::linalg::matrix_power(&a, 2),
            &v["matrix_power_2"],
            tol,
        );
        close("power 2 jit", &s::power_2(&a), &v["matrix_power_2"], tol);
        close("power 3 jit", &s::power_3(&a), &v["matrix_power_3"], tol);
        close(
            "power 5",
            &jnp::linalg::matrix_power(&a, 5),
            &v["matrix_power_5"],
            tol,
        );
        close("power 5 jit", &s::power_5(&a), &v["matrix_power_5"], tol);
        if !$singular {
            close("inv", &jnp::linalg::inv(&a), &v["inv"], tol);
            close("inv jit", &s::inv(&a), &v["inv"], tol);
            close("solve", &jnp::linalg::solve(&a, &b), &v["solve_mat"], tol);
            close("solve jit", &s::solve(&a, &b), &v["solve_mat"], tol);
            close(
                "lu_solve",
                &jax::scipy::linalg::lu_solve((&lu_e, &piv_e), &b),
                &v["lu_solve_mat"],
                tol,
            );
            close(
                "lu_solve jit",
                &s::lu_solve(&lu_j, &piv_j, &b),
                &v["lu_solve_mat"],
                tol,
            );
            close(
                "power -1",
                &jnp::linalg::matrix_power(&a, -1),
                &v["matrix_power_-1"],
                tol,
            );
            close("power -1 jit", &s::power_m1(&a), &v["matrix_power_-1"], tol);
            close(
                "power -3",
                &jnp::linalg::matrix_power(&a, -3),
                &v["matrix_power_-3"],
                tol,
            );
            close("power -3 jit", &s::power_m3(&a), &v["matrix_power_-3"], tol);
        }
    }};
}

/// jvps and grads against JAX's.
macro_rules! check_derivatives {
    ($m:ident, $name:literal, $dtype:literal, $tol:expr) => {{
        use $m as s;
        let c = case($name, $dtype);
        let d = &c["derivatives"];
        let tol: f64 = $tol;
        let a: s::A = arr(&c["a"]);
        let b: s::B = arr(&c["b_mat"]);
        let da: s::A = arr(&d["da"]);
        let db: s::B = arr(&d["dbm"]);
        let w: s::A = arr(&d["w_mat"]);
        let wb: s::B = arr(&d["w_bm"]);
        let (_, t) = s::solve::jvp((&a, &b), (&da, &db));
        close("solve jvp", &t, &d["solve_jvp"], tol);
        let (_, t) = s::inv::jvp((&a,), (&da,));
        close("inv jvp", &t, &d["inv_jvp"], tol);
        let (_, t) = s::det::jvp((&a,), (&da,));
        close("det jvp", &t, &d["det_jvp"], tol);
        let (_, t) = s::power_3::jvp((&a,), (&da,));
        close("matrix_power 3 jvp", &t, &d["matrix_power3_jvp"], tol);
        let (ga, gb) = s::solve_w::grad(&a, &b, &wb);
        close("solve grad a", &ga, &d["solve_grad"][0], tol);
        close("solve grad b", &gb, &d["solve_grad"][1], tol);
        close("inv grad", &s::inv_w::grad(&a, &w), &d["inv_grad"], tol);
        close("det grad", &s::det_sum::grad(&a), &d["det_grad"], tol);
        close(
            "slogdet grad",
            &s::logdet_sum::grad(&a),
            &d["slogdet_grad"],
            tol,
        );
        close(
            "matrix_power -2 grad",
            &s::power_m2_w::grad(&a, &w),
            &d["matrix_power_m2_grad"],
            tol,
        );
        close("lu grad", &s::lu_w::grad(&a, &w), &d["lu_grad"], tol);
        let (lu, piv) = s::lu_factor(&a);
        close(
            "lu_solve grad b",
            &s::lu_solve_w::grad(&b, &lu, &piv, &wb),
            &d["lu_solve_grad_b"],
            tol,
        );
    }};
}

#[test]
fn values_match_jax_f32() {
    check_values!(well3_f32, "well3", "float32", 1e-5, false);
    check_values!(rand4_f32, "rand4", "float32", 1e-5, false);
    check_values!(batch_f32, "batch2x3", "float32", 1e-5, false);
    check_values!(two2_f32, "two2", "float32", 1e-5, false);
    // cond(hilbert5) ≈ 5e5.
    check_values!(hilbert5_f32, "hilbert5", "float32", 1e-1, false);
}

#[test]
fn values_match_jax_f64() {
    check_values!(well3_f64, "well3", "float64", 1e-12, false);
    check_values!(rand4_f64, "rand4", "float64", 1e-12, false);
    check_values!(batch_f64, "batch2x3", "float64", 1e-12, false);
    check_values!(two2_f64, "two2", "float64", 1e-12, false);
    check_values!(hilbert5_f64, "hilbert5", "float64", 1e-9, false);
}

#[test]
fn pivoting_and_singular_matrices_match_jax() {
    check_values!(well3_f32, "pivot3", "float32", 1e-5, false);
    check_values!(well3_f64, "pivot3", "float64", 1e-12, false);
    check_values!(well3_f32, "singular3", "float32", 1e-6, true);
    check_values!(well3_f64, "singular3", "float64", 1e-12, true);
    check_values!(well3_f32, "zero3", "float32", 0.0, true);
    check_values!(well3_f64, "zero3", "float64", 0.0, true);
}

/// inf/nan where JAX (LAPACK) has them, never a panic.
#[test]
fn singular_solves_give_jax_inf_and_nan() {
    for name in ["singular3", "zero3"] {
        let c = case(name, "float32");
        let v = &c["values"];
        let a: well3_f32::A = arr(&c["a"]);
        let b: well3_f32::B = arr(&c["b_mat"]);
        close("inv", &jnp::linalg::inv(&a), &v["inv"], 1e-5);
        close("inv jit", &well3_f32::inv(&a), &v["inv"], 1e-5);
        close("solve", &jnp::linalg::solve(&a, &b), &v["solve_mat"], 1e-5);
        close(
            "solve jit",
            &well3_f32::solve(&a, &b),
            &v["solve_mat"],
            1e-5,
        );
    }
}

#[test]
fn derivatives_match_jax() {
    check_derivatives!(well3_f32, "well3", "float32", 1e-4);
    check_derivatives!(well3_f64, "well3", "float64", 1e-10);
    check_derivatives!(well3_f32, "pivot3", "float32", 1e-4);
    check_derivatives!(rand4_f64, "rand4", "float64", 1e-10);
    check_derivatives!(rand4_f32, "rand4", "float32", 1e-4);
    check_derivatives!(batch_f32, "batch2x3", "float32", 1e-4);
    check_derivatives!(batch_f64, "batch2x3", "float64", 1e-10);
    check_derivatives!(two2_f64, "two2", "float64", 1e-10);
}

#[test]
fn check_grads_of_each_function() {
    let c = case("well3", "float64");
    let a: well3_f64::A = arr(&c["a"]);
    let b: well3_f64::B = arr(&c["b_mat"]);
    let w: well3_f64::A = arr(&c["derivatives"]["da"]);
    let wb: well3_f64::B = arr(&c["derivatives"]["w_bm"]);
    jax::test_util::check_grads!(well3_f64::solve_w, (&a, &b, &wb), order = 1);
    jax::test_util::check_grads!(well3_f64::inv_w, (&a, &w), order = 1);
    jax::test_util::check_grads!(well3_f64::det_sum, (&a), order = 1);
    jax::test_util::check_grads!(well3_f64::logdet_sum, (&a), order = 1);
    jax::test_util::check_grads!(well3_f64::power_m2_w, (&a, &w), order = 1);
    jax::test_util::check_grads!(well3_f64::lu_w, (&a, &w), order = 1);
    let c = case("rand4", "float64");
    let a: rand4_f64::A = arr(&c["a"]);
    jax::test_util::check_grads!(rand4_f64::det_sum, (&a), order = 1);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    #[jax::jit]
    fn inv4(a: &Array<f64, 4, 4>) -> Array<f64, 4, 4> {
        jnp::linalg::inv(a)
    }

    #[jax::jit]
    fn solve4(a: &Array<f64, 4, 4>, b: &Array<f64, 4>) -> Array<f64, 4> {
        jnp::linalg::solve(a, b)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// A·inv(A) ≈ I and A·solve(A, b) ≈ b for diagonally dominant A
        /// (well conditioned), eagerly and in jit.
        #[test]
        fn inverse_and_residual(m in proptest::collection::vec(-1.0f64..1.0, 16), b in proptest::collection::vec(-1.0f64..1.0, 4)) {
            let mut m = m;
            for i in 0..4 { m[i * 4 + i] += 5.0; }
            let a = Array::<f64, 4, 4>::from_vec(m.clone()).unwrap();
            let bv = Array::<f64, 4>::from_vec(b.clone()).unwrap();
            for inv in [jnp::linalg::inv(&a), inv4(&a)] {
                let iv = inv.to_vec();
                for i in 0..4 {
                    for j in 0..4 {
                        let s: f64 = (0..4).map(|k| m[i * 4 + k] * iv[k * 4 + j]).sum();
                        let want = if i == j { 1.0 } else { 0.0 };
                        prop_assert!((s - want).abs() < 1e-12, "A·inv(A)[{i},{j}] = {s}");
                    }
                }
            }
            for x in [jnp::linalg::solve(&a, &bv), solve4(&a, &bv)] {
                let xv = x.to_vec();
                for i in 0..4 {
                    let s: f64 = (0..4).map(|k| m[i * 4 + k] * xv[k]).sum();
                    prop_assert!((s - b[i]).abs() < 1e-12, "residual {i}: {s} vs {}", b[i]);
                }
            }
        }
    }
}

#[test]
fn vector_right_hand_sides_match_jax() {
    #[jax::jit]
    fn solve_vec(a: &Array<f32, 3, 3>, b: &Array<f32, 3>) -> Array<f32, 3> {
        jnp::linalg::solve(a, b)
    }
    #[jax::jit]
    fn lu_solve_vec(
        lu: &Array<f32, 3, 3>,
        piv: &Array<i32, 3>,
        b: &Array<f32, 3>,
    ) -> Array<f32, 3> {
        jax::scipy::linalg::lu_solve((lu, piv), b)
    }
    let c = case("pivot3", "float32");
    let a: Array<f32, 3, 3> = arr(&c["a"]);
    let b: Array<f32, 3> = arr(&c["b_vec"]);
    close(
        "solve vec",
        &jnp::linalg::solve(&a, &b),
        &c["values"]["solve_vec"],
        1e-5,
    );
    close(
        "solve vec jit",
        &solve_vec(&a, &b),
        &c["values"]["solve_vec"],
        1e-5,
    );
    let (lu, piv): (_, Array<i32, 3>) = jax::scipy::linalg::lu_factor(&a);
    close(
        "lu_solve vec",
        &jax::scipy::linalg::lu_solve((&lu, &piv), &b),
        &c["values"]["lu_solve_vec"],
        1e-5,
    );
    close(
        "lu_solve vec jit",
        &lu_solve_vec(&lu, &piv, &b),
        &c["values"]["lu_solve_vec"],
        1e-5,
    );
}

#[test]
fn large_matrices_take_the_blocked_path() {
    // 96×96 runs on faer's blocked LU; its determinant sign and the
    // residual of a solve must agree with the unblocked loop's.
    const N: usize = 96;
    let m: Vec<f64> = (0..N * N)
        .map(|k| {
            ((k * 7919 % 1000) as f64) / 1000.0 - 0.5 + if k % (N + 1) == 0 { 3.0 } else { 0.0 }
        })
        .collect();
    let a = Array::<f64, N, N>::from_vec(m.clone()).unwrap();
    let b = Array::<f64, N>::from_vec((0..N).map(|i| i as f64).collect()).unwrap();
    let x = jnp::linalg::solve(&a, &b).to_vec();
    for i in 0..N {
        let s: f64 = (0..N).map(|k| m[i * N + k] * x[k]).sum();
        assert!((s - i as f64).abs() < 1e-9, "row {i}: {s}");
    }
    let (lu, piv): (_, Array<i32, N>) = jax::scipy::linalg::lu_factor(&a);
    let (lu, piv) = (lu.to_vec(), piv.to_vec());
    // |L| entries are at most 1 (partial pivoting), pivots in range.
    assert!((0..N).all(|i| (0..i).all(|j| lu[i * N + j].abs() <= 1.0)));
    assert!(piv
        .iter()
        .enumerate()
        .all(|(i, &p)| p as usize >= i && (p as usize) < N));
}
