//! The linear-algebra cases the first round left out, against JAX 0.10.2
//! (tests/fixtures/linalg_gaps.json, made by tests/fixtures/gen/linalg_gaps.py):
//! `lu`'s jvp and grad of non-square matrices and `scipy::linalg::lu` of
//! them; `qr`'s complete mode differentiated at tall matrices; `solve` with
//! batch axes broadcast; `det` and its gradient at singular matrices; and
//! `check_grads!` on the differentiable functions that lacked one.
//!
//! Tolerances: relative to the largest magnitude of JAX's array (at least
//! 1), 1e-4 for f32 and 1e-9 for f64 (well-conditioned cases); factors
//! differ from LAPACK's in the last bits.

// Jitted functions used only through their `grad`/`jvp` companions.
#![allow(dead_code)]

use jax::prelude::*;
use serde_json::Value;

use crate::common;
use common::linalg::{arr, close};

fn case(kind: &str, name: &str, dtype: &str) -> Value {
    common::cases("linalg_gaps")
        .into_iter()
        .find(|c| c["kind"] == kind && c["name"] == name && c["dtype"] == dtype)
        .unwrap_or_else(|| panic!("no case {kind} {name} {dtype}"))
}

fn tol(dtype: &str) -> f64 {
    if dtype == "float32" {
        1e-4
    } else {
        1e-9
    }
}

// ---------------------------------------------------------------------------
// lu of non-square matrices.

macro_rules! lu_suite {
    ($m:ident, $t:ident, [$($d:literal),*], [$($piv:literal),*]) => {
        mod $m {
            use jax::prelude::*;
            pub type A = Array<$t, $($d),*>;
            pub type P = Array<i32, $($piv),*>;

            #[jax::jit]
            pub fn lu_factor(a: &Array<$t, $($d),*>) -> (Array<$t, $($d),*>, Array<i32, $($piv),*>) {
                jax::scipy::linalg::lu_factor(a)
            }
            #[jax::jit]
            pub fn lu_packed(a: &Array<$t, $($d),*>) -> Array<$t, $($d),*> {
                let (lu, _piv) = jax::scipy::linalg::lu_factor(a);
                lu
            }
            #[jax::jit]
            pub fn lu_w(a: &Array<$t, $($d),*>, w: &Array<$t, $($d),*>) -> Array<$t> {
                let (lu, _piv) = jax::scipy::linalg::lu_factor(a);
                jnp::sum(lu * w)
            }
        }
    };
}

lu_suite!(lu3x2_f32, f32, [3, 2], [2]);
lu_suite!(lu3x2_f64, f64, [3, 2], [2]);
lu_suite!(lu2x4_f32, f32, [2, 4], [2]);
lu_suite!(lu2x4_f64, f64, [2, 4], [2]);
lu_suite!(lu2x3x2_f32, f32, [2, 3, 2], [2, 2]);
lu_suite!(lu2x3x2_f64, f64, [2, 3, 2], [2, 2]);
lu_suite!(lu4x4_f64, f64, [4, 4], [4]);

macro_rules! check_lu {
    ($m:ident, $name:literal, $dtype:literal) => {{
        use $m as s;
        let c = case("lu", $name, $dtype);
        let tol = tol($dtype);
        let a: s::A = arr(&c["a"]);
        let da: s::A = arr(&c["da"]);
        let w: s::A = arr(&c["w"]);
        let (lu_e, piv_e): (s::A, s::P) = jax::scipy::linalg::lu_factor(&a);
        let (lu_j, piv_j) = s::lu_factor(&a);
        close("lu eager", &lu_e, &c["lu"], tol);
        close("lu jit", &lu_j, &c["lu"], tol);
        close("pivots eager", &piv_e, &c["piv"], 0.0);
        close("pivots jit", &piv_j, &c["piv"], 0.0);
        let (_, t) = s::lu_packed::jvp((&a,), (&da,));
        close("lu jvp", &t, &c["lu_jvp"], tol);
        close("lu grad", &s::lu_w::grad(&a, &w), &c["lu_grad"], tol);
    }};
}

#[test]
fn lu_of_non_square_matrices_differentiates_as_jax() {
    check_lu!(lu3x2_f32, "3x2", "float32");
    check_lu!(lu3x2_f64, "3x2", "float64");
    check_lu!(lu2x4_f32, "2x4", "float32");
    check_lu!(lu2x4_f64, "2x4", "float64");
    check_lu!(lu2x3x2_f32, "2x3x2", "float32");
    check_lu!(lu2x3x2_f64, "2x3x2", "float64");
    check_lu!(lu4x4_f64, "4x4", "float64");
}

#[jax::jit]
fn scipy_lu_tall(a: &Array<f64, 3, 2>) -> (Array<f64, 3, 3>, Array<f64, 3, 2>, Array<f64, 2, 2>) {
    jax::scipy::linalg::lu(a)
}

#[jax::jit]
fn scipy_lu_wide(a: &Array<f32, 2, 4>) -> (Array<f32, 2, 2>, Array<f32, 2, 2>, Array<f32, 2, 4>) {
    jax::scipy::linalg::lu(a)
}

#[test]
fn scipy_lu_of_non_square_matrices_in_jit_is_jaxs() {
    let c = case("lu", "3x2", "float64");
    let (p, l, u) = scipy_lu_tall(&arr(&c["a"]));
    close("p", &p, &c["scipy_lu"][0], 0.0);
    close("l", &l, &c["scipy_lu"][1], 1e-12);
    close("u", &u, &c["scipy_lu"][2], 1e-12);
    let c = case("lu", "2x4", "float32");
    let (p, l, u) = scipy_lu_wide(&arr(&c["a"]));
    close("p", &p, &c["scipy_lu"][0], 0.0);
    close("l", &l, &c["scipy_lu"][1], 1e-6);
    close("u", &u, &c["scipy_lu"][2], 1e-6);
}

// ---------------------------------------------------------------------------
// qr in complete mode, differentiated at tall matrices.

macro_rules! qr_suite {
    ($m:ident, $t:ident, [$($b:literal,)*] $rows:literal, $cols:literal) => {
        mod $m {
            use jax::prelude::*;
            pub type A = Array<$t, $($b,)* $rows, $cols>;
            pub type Q = Array<$t, $($b,)* $rows, $rows>;

            #[jax::jit]
            pub fn qr(a: &Array<$t, $($b,)* $rows, $cols>) -> (Array<$t, $($b,)* $rows, $rows>, Array<$t, $($b,)* $rows, $cols>) {
                jnp::linalg::qr_with(a, QrMode::Complete)
            }
            #[jax::jit]
            pub fn q_part(a: &Array<$t, $($b,)* $rows, $cols>) -> Array<$t, $($b,)* $rows, $rows> {
                let (q, _r) = jnp::linalg::qr_with(a, QrMode::Complete);
                q
            }
            #[jax::jit]
            pub fn r_part(a: &Array<$t, $($b,)* $rows, $cols>) -> Array<$t, $($b,)* $rows, $cols> {
                let (_q, r) = jnp::linalg::qr_with(a, QrMode::Complete);
                r
            }
            #[jax::jit]
            pub fn qr_w(
                a: &Array<$t, $($b,)* $rows, $cols>,
                wq: &Array<$t, $($b,)* $rows, $rows>,
                wr: &Array<$t, $($b,)* $rows, $cols>,
            ) -> Array<$t> {
                let (q, r) = jnp::linalg::qr_with(a, QrMode::Complete);
                jnp::sum(q * wq) + jnp::sum(r * wr)
            }
        }
    };
}

qr_suite!(qr4x2_f32, f32, [] 4, 2);
qr_suite!(qr4x2_f64, f64, [] 4, 2);
qr_suite!(qr3x1_f64, f64, [] 3, 1);
qr_suite!(qr2x3x2_f32, f32, [2,] 3, 2);
qr_suite!(qr2x3x2_f64, f64, [2,] 3, 2);
qr_suite!(qr3x3_f64, f64, [] 3, 3);

macro_rules! check_qr {
    ($m:ident, $name:literal, $dtype:literal) => {{
        use $m as s;
        let c = case("qr_complete", $name, $dtype);
        let tol = tol($dtype);
        let a: s::A = arr(&c["a"]);
        let da: s::A = arr(&c["da"]);
        let wq: s::Q = arr(&c["wq"]);
        let wr: s::A = arr(&c["wr"]);
        let (q, r) = s::qr(&a);
        close("q", &q, &c["q"], tol);
        close("r", &r, &c["r"], tol);
        let (_, dq) = s::q_part::jvp((&a,), (&da,));
        let (_, dr) = s::r_part::jvp((&a,), (&da,));
        close("dq", &dq, &c["dq"], tol);
        close("dr", &dr, &c["dr"], tol);
        close("grad", &s::qr_w::grad(&a, &wq, &wr), &c["grad"], tol);
    }};
}

#[test]
fn complete_qr_of_tall_matrices_differentiates_as_jax() {
    check_qr!(qr4x2_f32, "4x2", "float32");
    check_qr!(qr4x2_f64, "4x2", "float64");
    check_qr!(qr3x1_f64, "3x1", "float64");
    check_qr!(qr2x3x2_f32, "2x3x2", "float32");
    check_qr!(qr2x3x2_f64, "2x3x2", "float64");
    check_qr!(qr3x3_f64, "3x3", "float64");
}

// ---------------------------------------------------------------------------
// solve with batch axes broadcast.

macro_rules! solve_case {
    ($f:ident, $t:ident, [$($a:literal),*], [$($b:literal),*], [$($x:literal),*]) => {
        #[jax::jit(argnums = (0, 1))]
        fn $f(a: &Array<$t, $($a),*>, b: &Array<$t, $($b),*>, w: &Array<$t, $($x),*>) -> Array<$t> {
            let x: Array<$t, $($x),*> = jnp::linalg::solve(a, b);
            jnp::sum(x * w)
        }
    };
}

mod solves {
    use jax::prelude::*;
    macro_rules! solve_fn {
        ($f:ident, $t:ident, [$($a:literal),*], [$($b:literal),*], [$($x:literal),*]) => {
            #[jax::jit]
            pub fn $f(a: &Array<$t, $($a),*>, b: &Array<$t, $($b),*>) -> Array<$t, $($x),*> {
                jnp::linalg::solve(a, b)
            }
        };
    }
    solve_fn!(batch_a_vector_b_f32, f32, [2, 3, 3], [3], [2, 3]);
    solve_fn!(batch_a_vector_b_f64, f64, [2, 3, 3], [3], [2, 3]);
    solve_fn!(batch_a_matrix_b_f32, f32, [2, 3, 3], [3, 2], [2, 3, 2]);
    solve_fn!(batch_a_matrix_b_f64, f64, [2, 3, 3], [3, 2], [2, 3, 2]);
    solve_fn!(one_a_batch_b_f64, f64, [3, 3], [2, 3, 2], [2, 3, 2]);
    solve_fn!(
        both_broadcast_f32,
        f32,
        [2, 1, 3, 3],
        [4, 3, 2],
        [2, 4, 3, 2]
    );
    solve_fn!(
        both_broadcast_f64,
        f64,
        [2, 1, 3, 3],
        [4, 3, 2],
        [2, 4, 3, 2]
    );
    solve_fn!(unit_batch_a_f64, f64, [1, 3, 3], [2, 3, 2], [2, 3, 2]);
}

solve_case!(solve_w_vec_f64, f64, [2, 3, 3], [3], [2, 3]);
solve_case!(solve_w_mat_f32, f32, [2, 3, 3], [3, 2], [2, 3, 2]);
solve_case!(solve_w_both_f64, f64, [2, 1, 3, 3], [4, 3, 2], [2, 4, 3, 2]);

#[test]
fn solve_broadcasts_batch_axes_as_jax_in_jit() {
    macro_rules! value {
        ($f:ident, $name:literal, $dtype:literal) => {{
            let c = case("solve", $name, $dtype);
            let x = solves::$f(&arr(&c["a"]), &arr(&c["b"]));
            close(stringify!($f), &x, &c["x"], tol($dtype));
        }};
    }
    value!(batch_a_vector_b_f32, "2x3x3_3", "float32");
    value!(batch_a_vector_b_f64, "2x3x3_3", "float64");
    value!(batch_a_matrix_b_f32, "2x3x3_3x2", "float32");
    value!(batch_a_matrix_b_f64, "2x3x3_3x2", "float64");
    value!(one_a_batch_b_f64, "3x3_2x3x2", "float64");
    value!(both_broadcast_f32, "2x1x3x3_4x3x2", "float32");
    value!(both_broadcast_f64, "2x1x3x3_4x3x2", "float64");
    value!(unit_batch_a_f64, "1x3x3_2x3x2", "float64");
    macro_rules! grads {
        ($f:ident, $name:literal, $dtype:literal) => {{
            let c = case("solve", $name, $dtype);
            let (ga, gb) = $f::grad(&arr(&c["a"]), &arr(&c["b"]), &arr(&c["w"]));
            close("grad a", &ga, &c["grad_a"], tol($dtype));
            close("grad b", &gb, &c["grad_b"], tol($dtype));
        }};
    }
    grads!(solve_w_vec_f64, "2x3x3_3", "float64");
    grads!(solve_w_mat_f32, "2x3x3_3x2", "float32");
    grads!(solve_w_both_f64, "2x1x3x3_4x3x2", "float64");
}

#[test]
fn eager_solve_broadcasts_a_over_bs_batch() {
    for name in ["3x3_2x3x2", "1x3x3_2x3x2"] {
        let c = case("solve", name, "float64");
        let b: Array<f64, 2, 3, 2> = arr(&c["b"]);
        let x = if name.starts_with("1x") {
            let a: Array<f64, 1, 3, 3> = arr(&c["a"]);
            jnp::linalg::solve(&a, &b)
        } else {
            let a: Array<f64, 3, 3> = arr(&c["a"]);
            jnp::linalg::solve(&a, &b)
        };
        close(name, &x, &c["x"], 1e-9);
    }
}

// ---------------------------------------------------------------------------
// det at singular matrices.

mod dets {
    macro_rules! det_fns {
        ($m:ident, $t:ident, [$($d:literal),*], [$($s:literal),*]) => {
            pub mod $m {
                use jax::prelude::*;
                pub type A = Array<$t, $($d),*>;
                #[jax::jit]
                pub fn det(a: &Array<$t, $($d),*>) -> Array<$t, $($s),*> {
                    jnp::linalg::det(a)
                }
                #[jax::jit]
                pub fn det_sum(a: &Array<$t, $($d),*>) -> Array<$t> {
                    let d: Array<$t, $($s),*> = jnp::linalg::det(a);
                    jnp::sum(d)
                }
            }
        };
    }
    det_fns!(n1_f32, f32, [1, 1], []);
    det_fns!(n2_f32, f32, [2, 2], []);
    det_fns!(n2_f64, f64, [2, 2], []);
    det_fns!(n3_f32, f32, [3, 3], []);
    det_fns!(n3_f64, f64, [3, 3], []);
    det_fns!(n4_f32, f32, [4, 4], []);
    det_fns!(n4_f64, f64, [4, 4], []);
    det_fns!(n5_f64, f64, [5, 5], []);
    det_fns!(b4_f32, f32, [2, 4, 4], [2]);
    det_fns!(b4_f64, f64, [2, 4, 4], [2]);
}

#[test]
fn det_and_its_gradient_at_singular_matrices_are_jaxs() {
    macro_rules! check {
        ($m:ident, $name:literal, $dtype:literal, $tol:expr) => {{
            use dets::$m as s;
            let c = case("det", $name, $dtype);
            let a: s::A = arr(&c["a"]);
            let da: s::A = arr(&c["da"]);
            close("det", &s::det(&a), &c["det"], $tol);
            let (_, t) = s::det::jvp((&a,), (&da,));
            close("det jvp", &t, &c["jvp"], $tol);
            let g = s::det_sum::grad(&a);
            close("det grad", &g, &c["grad"], $tol);
        }};
    }
    check!(n1_f32, "well_1", "float32", 1e-6);
    check!(n2_f32, "rank1_2", "float32", 1e-6);
    check!(n2_f64, "rank1_2", "float64", 1e-12);
    check!(n3_f32, "rank2_3", "float32", 1e-6);
    check!(n3_f64, "rank2_3", "float64", 1e-12);
    // Rank n - 1: the cofactor rule's finite gradient (the adjugate).
    check!(n4_f32, "rank3_4", "float32", 1e-4);
    check!(n4_f64, "rank3_4", "float64", 1e-9);
    check!(n5_f64, "rank4_5", "float64", 1e-8);
    check!(n4_f64, "rank2_4", "float64", 1e-9);
    check!(n4_f32, "zero_4", "float32", 0.0);
    check!(n4_f64, "zero_4", "float64", 0.0);
    check!(b4_f32, "batch_4", "float32", 1e-4);
    check!(b4_f64, "batch_4", "float64", 1e-9);
}

// ---------------------------------------------------------------------------
// check_grads! on the differentiable functions that had none.

#[jax::jit]
fn solve_triangular_w(a: &Array<f64, 3, 3>, b: &Array<f64, 3, 2>) -> Array<f64> {
    let x = jax::scipy::linalg::solve_triangular(a, b, true);
    jnp::sum(x * x)
}

#[jax::jit]
fn cho_solve_w(a: &Array<f64, 3, 3>, b: &Array<f64, 3, 2>) -> Array<f64> {
    // cho_factor reads one triangle and its rule assumes a symmetric
    // tangent (as JAX's): differentiate through a symmetric matrix.
    let sym = (a + jnp::transpose(a)) * 0.5;
    let (c, lower) = jax::scipy::linalg::cho_factor(&sym, true);
    let x = jax::scipy::linalg::cho_solve((&c, lower), b);
    jnp::sum(x * x)
}

#[jax::jit]
fn lu_solve_w(a: &Array<f64, 3, 3>, b: &Array<f64, 3, 2>) -> Array<f64> {
    let (lu, piv) = jax::scipy::linalg::lu_factor(a);
    let x = jax::scipy::linalg::lu_solve((&lu, &piv), b);
    jnp::sum(x * x)
}

#[jax::jit]
fn qr_reduced_w(a: &Array<f64, 4, 2>, wq: &Array<f64, 4, 2>) -> Array<f64> {
    let (q, r): (Array<f64, 4, 2>, Array<f64, 2, 2>) = jnp::linalg::qr(a);
    jnp::sum(q * wq) + jnp::sum(r * r)
}

#[jax::jit]
fn qr_complete_w(a: &Array<f64, 4, 2>, wq: &Array<f64, 4, 4>) -> Array<f64> {
    let (q, r): (Array<f64, 4, 4>, Array<f64, 4, 2>) = jnp::linalg::qr_with(a, QrMode::Complete);
    jnp::sum(q * wq) + jnp::sum(r * r)
}

#[jax::jit]
fn lu_wide_w(a: &Array<f64, 2, 4>, w: &Array<f64, 2, 4>) -> Array<f64> {
    let (lu, _piv) = jax::scipy::linalg::lu_factor(a);
    jnp::sum(lu * w)
}

#[jax::jit]
fn eigvalsh_w(a: &Array<f64, 3, 3>, w: &Array<f64, 3>) -> Array<f64> {
    let e: Array<f64, 3> = jnp::linalg::eigvalsh(a);
    jnp::sum(e * w)
}

#[jax::jit]
fn svdvals_w(a: &Array<f64, 3, 2>, w: &Array<f64, 2>) -> Array<f64> {
    let s: Array<f64, 2> = jnp::linalg::svdvals(a);
    jnp::sum(s * w)
}

#[jax::jit]
fn det4(a: &Array<f64, 4, 4>) -> Array<f64> {
    jnp::linalg::det(a)
}

#[jax::jit]
fn power3_w(a: &Array<f64, 3, 3>, w: &Array<f64, 3, 3>) -> Array<f64> {
    jnp::sum(jnp::linalg::matrix_power(a, 3) * w)
}

#[jax::jit]
fn cholesky_w(a: &Array<f64, 3, 3>, w: &Array<f64, 3, 3>) -> Array<f64> {
    jnp::sum(jnp::linalg::cholesky(a) * w)
}

#[test]
fn check_grads_on_the_remaining_linalg_functions() {
    let tri = Array::<f64, 3, 3>::from([[2.0, 0.0, 0.0], [0.5, 1.5, 0.0], [-0.3, 0.2, 1.8]]);
    let spd = Array::<f64, 3, 3>::from([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]);
    let general = Array::<f64, 3, 3>::from([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.3, 0.1, 2.0]]);
    let b = Array::<f64, 3, 2>::from([[1.0, -0.5], [0.3, 2.0], [-1.2, 0.7]]);
    let tall = Array::<f64, 4, 2>::from([[1.0, 0.2], [0.3, -1.1], [0.5, 0.4], [-0.7, 0.9]]);
    let wq2 = Array::<f64, 4, 2>::from([[0.3, -0.2], [0.1, 0.5], [-0.4, 0.2], [0.6, 0.1]]);
    let wq4 = Array::<f64, 4, 4>::from([
        [0.3, -0.2, 0.1, 0.5],
        [-0.4, 0.2, 0.6, 0.1],
        [0.2, 0.7, -0.3, 0.4],
        [0.5, -0.1, 0.2, -0.6],
    ]);
    let wide = Array::<f64, 2, 4>::from([[0.5, 2.0, -1.0, 0.3], [1.5, 0.4, 0.8, -0.2]]);
    let w24 = Array::<f64, 2, 4>::from([[0.3, -0.2, 0.1, 0.5], [-0.4, 0.2, 0.6, 0.1]]);
    let w3 = Array::<f64, 3>::from([0.3, -1.0, 0.5]);
    let w2 = Array::<f64, 2>::from([0.7, -0.4]);
    let w33 = Array::<f64, 3, 3>::from([[0.3, -0.2, 0.1], [0.5, -0.4, 0.2], [0.6, 0.1, 0.2]]);
    let a4 = Array::<f64, 4, 4>::from([
        [2.0, 0.3, -0.5, 0.1],
        [0.4, 1.5, 0.2, -0.3],
        [-0.2, 0.6, 1.8, 0.5],
        [0.1, -0.4, 0.3, 2.2],
    ]);
    jax::test_util::check_grads!(solve_triangular_w, (&tri, &b));
    jax::test_util::check_grads!(cho_solve_w, (&spd, &b));
    jax::test_util::check_grads!(lu_solve_w, (&general, &b));
    jax::test_util::check_grads!(qr_reduced_w, (&tall, &wq2));
    jax::test_util::check_grads!(qr_complete_w, (&tall, &wq4));
    jax::test_util::check_grads!(lu_wide_w, (&wide, &w24));
    jax::test_util::check_grads!(eigvalsh_w, (&spd, &w3));
    jax::test_util::check_grads!(svdvals_w, (&b, &w2));
    jax::test_util::check_grads!(det4, (&a4));
    jax::test_util::check_grads!(power3_w, (&general, &w33));
    jax::test_util::check_grads!(cholesky_w, (&spd, &w33));
}
