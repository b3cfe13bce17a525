//! `jnp::linalg::pinv`, `pinv_with`, `matrix_rank`, `matrix_rank_with`,
//! `lstsq`, `norm_with` (every ord, axes, keepdims), `eigh_with` and
//! `svd_with`, eagerly and in jit, against JAX
//! (tests/fixtures/linalg_more.json, made by
//! tests/fixtures/gen/linalg_more.py): values, f32 and f64, batched and
//! rank-deficient; jvp and grad (pinv's custom rule, lstsq and norms
//! through svd); `check_grads!`.

use crate::common;

use jax::jnp::linalg::{
    EighOptions, NormAxis, NormOptions, NormOrd, PinvOptions, SvdOptions, Uplo,
};
use jax::prelude::*;
use jax::{ArrayType, DefaultInt, Element};
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
        let ok = (g - w).abs() <= tol * scale || (g.is_infinite() && g == w);
        assert!(
            ok,
            "{what}[{i}]: got {g}, JAX {w} (tolerance {tol} × {scale})"
        );
    }
}

fn case(name: &str) -> Value {
    common::case("linalg_more", name)
}

fn tol<T: Element>() -> f64 {
    if T::DTYPE == jax::DType::F32 {
        2e-5
    } else {
        1e-10
    }
}

// pinv.

macro_rules! pinv_case {
    ($test:ident, $jit:ident, $name:literal, $t:ty, [$($d:literal),+], [$($o:literal),+]) => {
        #[jax::jit]
        fn $jit(a: &Array<$t, $($d),+>) -> Array<$t, $($o),+> {
            jnp::linalg::pinv(a)
        }

        #[test]
        fn $test() {
            let c = case($name);
            let a: Array<$t, $($d),+> = arr(&c["a"]);
            let want = nums(&c["pinv"]);
            let eager: Array<$t, $($o),+> = jnp::linalg::pinv(&a);
            close(concat!($name, " eager"), &eager, &want, tol::<$t>());
            close(concat!($name, " jit"), &$jit(&a), &want, tol::<$t>());
        }
    };
}

pinv_case!(
    pinv_f32_3x2,
    pinv_f32_3x2_jit,
    "pinv_f32_3x2",
    f32,
    [3, 2],
    [2, 3]
);
pinv_case!(
    pinv_f64_2x4,
    pinv_f64_2x4_jit,
    "pinv_f64_2x4",
    f64,
    [2, 4],
    [4, 2]
);
pinv_case!(
    pinv_f64_3x3,
    pinv_f64_3x3_jit,
    "pinv_f64_3x3",
    f64,
    [3, 3],
    [3, 3]
);
pinv_case!(
    pinv_f32_batched,
    pinv_f32_batched_jit,
    "pinv_f32_batched",
    f32,
    [2, 3, 3],
    [2, 3, 3]
);
pinv_case!(
    pinv_f64_batched_2x3,
    pinv_f64_batched_2x3_jit,
    "pinv_f64_batched_2x3",
    f64,
    [2, 2, 3],
    [2, 3, 2]
);
pinv_case!(
    pinv_f64_rank1,
    pinv_f64_rank1_jit,
    "pinv_f64_rank1",
    f64,
    [3, 3],
    [3, 3]
);
pinv_case!(
    pinv_f32_rank1_4x3,
    pinv_f32_rank1_4x3_jit,
    "pinv_f32_rank1_4x3",
    f32,
    [4, 3],
    [3, 4]
);

#[jax::jit]
fn pinv_rtol_jit(a: &Array<f64, 3, 3>) -> Array<f64, 3, 3> {
    jnp::linalg::pinv_with(
        a,
        PinvOptions {
            rtol: Some(0.1),
            ..Default::default()
        },
    )
}

#[jax::jit]
fn pinv_hermitian_jit(a: &Array<f64, 3, 3>) -> Array<f64, 3, 3> {
    jnp::linalg::pinv_with(
        a,
        PinvOptions {
            rtol: None,
            hermitian: true,
        },
    )
}

#[test]
fn pinv_with_rtol_and_hermitian() {
    let c = case("pinv_f64_rtol");
    let a: Array<f64, 3, 3> = arr(&c["a"]);
    let want = nums(&c["pinv"]);
    let opts = PinvOptions {
        rtol: Some(0.1),
        hermitian: false,
    };
    let eager: Array<f64, 3, 3> = jnp::linalg::pinv_with(&a, opts);
    close("pinv rtol eager", &eager, &want, 1e-10);
    close("pinv rtol jit", &pinv_rtol_jit(&a), &want, 1e-10);
    let c = case("pinv_f64_hermitian");
    let a: Array<f64, 3, 3> = arr(&c["a"]);
    let want = nums(&c["pinv"]);
    let opts = PinvOptions {
        rtol: None,
        hermitian: true,
    };
    let eager: Array<f64, 3, 3> = jnp::linalg::pinv_with(&a, opts);
    close("pinv hermitian eager", &eager, &want, 1e-10);
    close("pinv hermitian jit", &pinv_hermitian_jit(&a), &want, 1e-10);
}

#[jax::jit]
fn pinv_tall(a: &Array<f64, 3, 2>) -> Array<f64, 2, 3> {
    jnp::linalg::pinv(a)
}

#[jax::jit]
fn pinv_wide(a: &Array<f64, 2, 3>) -> Array<f64, 3, 2> {
    jnp::linalg::pinv(a)
}

#[jax::jit]
fn pinv_tall_weighted(a: &Array<f64, 3, 2>, c: &Array<f64, 2, 3>) -> Array<f64> {
    let p: Array<f64, 2, 3> = jnp::linalg::pinv(a);
    jnp::sum(&p * c)
}

#[jax::jit]
fn pinv_wide_weighted(a: &Array<f64, 2, 3>, c: &Array<f64, 3, 2>) -> Array<f64> {
    let p: Array<f64, 3, 2> = jnp::linalg::pinv(a);
    jnp::sum(&p * c)
}

#[test]
fn pinv_jvp_and_grad_match_jax() {
    let c = case("pinv_grads_tall");
    let (a, t, w): (Array<f64, 3, 2>, Array<f64, 3, 2>, Array<f64, 2, 3>) =
        (arr(&c["a"]), arr(&c["t"]), arr(&c["c"]));
    let (_, dp) = pinv_tall::jvp((&a,), (&t,));
    close("pinv tall jvp", &dp, &nums(&c["jvp"]), 1e-10);
    close(
        "pinv tall grad",
        &pinv_tall_weighted::grad(&a, &w),
        &nums(&c["grad"]),
        1e-10,
    );
    jax::test_util::check_grads!(pinv_tall_weighted, (&a, &w));
    let c = case("pinv_grads_wide");
    let (a, t, w): (Array<f64, 2, 3>, Array<f64, 2, 3>, Array<f64, 3, 2>) =
        (arr(&c["a"]), arr(&c["t"]), arr(&c["c"]));
    let (_, dp) = pinv_wide::jvp((&a,), (&t,));
    close("pinv wide jvp", &dp, &nums(&c["jvp"]), 1e-10);
    close(
        "pinv wide grad",
        &pinv_wide_weighted::grad(&a, &w),
        &nums(&c["grad"]),
        1e-10,
    );
    jax::test_util::check_grads!(pinv_wide_weighted, (&a, &w));
}

// matrix_rank.

macro_rules! rank_case {
    ($test:ident, $jit:ident, $name:literal, $t:ty, [$($d:literal),+], $r:ty) => {
        #[jax::jit]
        fn $jit(a: &Array<$t, $($d),+>) -> $r {
            jnp::linalg::matrix_rank(a)
        }

        #[test]
        fn $test() {
            let c = case($name);
            let a: Array<$t, $($d),+> = arr(&c["a"]);
            let want = nums(&c["rank"]);
            let eager: $r = jnp::linalg::matrix_rank(&a);
            close(concat!($name, " eager"), &eager, &want, 0.0);
            close(concat!($name, " jit"), &$jit(&a), &want, 0.0);
        }
    };
}

rank_case!(
    rank_f32_full,
    rank_f32_full_jit,
    "rank_f32_full",
    f32,
    [3, 3],
    Array<DefaultInt>
);
rank_case!(
    rank_f64_rank1,
    rank_f64_rank1_jit,
    "rank_f64_rank1",
    f64,
    [3, 4],
    Array<DefaultInt>
);
rank_case!(
    rank_f32_rank2_4x3,
    rank_f32_rank2_4x3_jit,
    "rank_f32_rank2_4x3",
    f32,
    [4, 3],
    Array<DefaultInt>
);
rank_case!(rank_f64_batched, rank_f64_batched_jit, "rank_f64_batched", f64, [2, 3, 3], Array<DefaultInt, 2>);
rank_case!(
    rank_f64_zero,
    rank_f64_zero_jit,
    "rank_f64_zero",
    f64,
    [2, 3],
    Array<DefaultInt>
);

#[jax::jit]
fn rank_tol_jit(a: &Array<f64, 3, 3>) -> Array<DefaultInt> {
    jnp::linalg::matrix_rank_with(a, 0.01)
}

#[test]
fn matrix_rank_with_a_tolerance() {
    let c = case("rank_f64_tol");
    let a: Array<f64, 3, 3> = arr(&c["a"]);
    let want = nums(&c["rank"]);
    let eager: Array<DefaultInt> = jnp::linalg::matrix_rank_with(&a, 0.01);
    close("rank tol eager", &eager, &want, 0.0);
    close("rank tol jit", &rank_tol_jit(&a), &want, 0.0);
}

// lstsq.

macro_rules! lstsq_case {
    ($test:ident, $jit:ident, $name:literal, $t:ty, [$($a:literal),+], [$($b:literal),+], [$($x:literal),+], $k:literal, $s:literal) => {
        #[jax::jit]
        fn $jit(
            a: &Array<$t, $($a),+>,
            b: &Array<$t, $($b),+>,
        ) -> (Array<$t, $($x),+>, Array<$t, $k>, Array<DefaultInt>, Array<$t, $s>) {
            jnp::linalg::lstsq(a, b)
        }

        #[test]
        fn $test() {
            let c = case($name);
            let a: Array<$t, $($a),+> = arr(&c["a"]);
            let b: Array<$t, $($b),+> = arr(&c["b"]);
            let eager: (Array<$t, $($x),+>, Array<$t, $k>, Array<DefaultInt>, Array<$t, $s>) =
                jnp::linalg::lstsq(&a, &b);
            let jitted = $jit(&a, &b);
            for (how, got) in [("eager", eager), ("jit", jitted)] {
                let tol = tol::<$t>() * 10.0;
                close(&format!("{} {how} x", $name), &got.0, &nums(&c["x"]), tol);
                // Residuals of a consistent system are rounding noise: compared
                // absolutely, against |b|² ~ 1.
                let want = nums(&c["resid"]);
                for (g, w) in got.1.data().iter().zip(&want) {
                    let g = g.to_f64();
                    assert!((g - w).abs() <= tol * 10.0 * w.abs().max(1.0), "{} {how} resid: got {g}, JAX {w}", $name);
                }
                close(&format!("{} {how} rank", $name), &got.2, &nums(&c["rank"]), 0.0);
                close(&format!("{} {how} s", $name), &got.3, &nums(&c["s"]), tol);
            }
        }
    };
}

lstsq_case!(
    lstsq_f64_tall_vec,
    lstsq_f64_tall_vec_jit,
    "lstsq_f64_tall_vec",
    f64,
    [4, 2],
    [4],
    [2],
    1,
    2
);
lstsq_case!(
    lstsq_f32_tall_mat,
    lstsq_f32_tall_mat_jit,
    "lstsq_f32_tall_mat",
    f32,
    [5, 3],
    [5, 2],
    [3, 2],
    2,
    3
);
lstsq_case!(
    lstsq_f64_wide_mat,
    lstsq_f64_wide_mat_jit,
    "lstsq_f64_wide_mat",
    f64,
    [2, 3],
    [2, 2],
    [3, 2],
    2,
    2
);
lstsq_case!(
    lstsq_f64_rankdef,
    lstsq_f64_rankdef_jit,
    "lstsq_f64_rankdef",
    f64,
    [3, 3],
    [3, 2],
    [3, 2],
    2,
    3
);
lstsq_case!(
    lstsq_f32_square_vec,
    lstsq_f32_square_vec_jit,
    "lstsq_f32_square_vec",
    f32,
    [3, 3],
    [3],
    [3],
    1,
    3
);

#[jax::jit]
fn lstsq_x(a: &Array<f64, 4, 3>, b: &Array<f64, 4, 2>) -> Array<f64, 3, 2> {
    let (x, _, _, _): (
        Array<f64, 3, 2>,
        Array<f64, 2>,
        Array<DefaultInt>,
        Array<f64, 3>,
    ) = jnp::linalg::lstsq(a, b);
    x
}

#[jax::jit]
fn lstsq_sum(a: &Array<f64, 4, 3>, b: &Array<f64, 4, 2>) -> Array<f64> {
    let (x, _, _, _): (
        Array<f64, 3, 2>,
        Array<f64, 2>,
        Array<DefaultInt>,
        Array<f64, 3>,
    ) = jnp::linalg::lstsq(a, b);
    jnp::sum(x)
}

#[jax::jit]
fn lstsq_sum_b(b: &Array<f64, 4, 2>, a: &Array<f64, 4, 3>) -> Array<f64> {
    let (x, _, _, _): (
        Array<f64, 3, 2>,
        Array<f64, 2>,
        Array<DefaultInt>,
        Array<f64, 3>,
    ) = jnp::linalg::lstsq(a, b);
    jnp::sum(x)
}

#[test]
fn lstsq_jvp_and_grad_match_jax() {
    let c = case("lstsq_grads");
    let (a, b): (Array<f64, 4, 3>, Array<f64, 4, 2>) = (arr(&c["a"]), arr(&c["b"]));
    let (ta, tb): (Array<f64, 4, 3>, Array<f64, 4, 2>) = (arr(&c["ta"]), arr(&c["tb"]));
    let (_, dx) = lstsq_x::jvp((&a, &b), (&ta, &tb));
    close("lstsq jvp", &dx, &nums(&c["jvp"]), 1e-9);
    close(
        "lstsq grad a",
        &lstsq_sum::grad(&a, &b),
        &nums(&c["grad_a"]),
        1e-9,
    );
    close(
        "lstsq grad b",
        &lstsq_sum_b::grad(&b, &a),
        &nums(&c["grad_b"]),
        1e-9,
    );
    jax::test_util::check_grads!(lstsq_sum, (&a, &b));
}

// norm.

/// The fixture's `ord`.
fn ord_of(v: &Value) -> NormOrd {
    match v {
        Value::String(s) if s == "None" => NormOrd::Default,
        Value::String(s) if s == "fro" => NormOrd::Fro,
        Value::String(s) if s == "nuc" => NormOrd::Nuc,
        Value::String(s) if s == "inf" => NormOrd::Inf,
        Value::String(s) if s == "-inf" => NormOrd::NegInf,
        Value::Number(p) => NormOrd::P(p.as_f64().unwrap()),
        other => panic!("ord {other}"),
    }
}

#[test]
fn norm_every_ord_eagerly() {
    for c in common::cases("linalg_more") {
        let name = c["name"].as_str().unwrap();
        if !(name.starts_with("norm_vec_") || name.starts_with("norm_mat_")) {
            continue;
        }
        let opts = NormOptions {
            ord: ord_of(&c["ord"]),
            ..Default::default()
        };
        let want = nums(&c["norm"]);
        match (
            name.starts_with("norm_vec_"),
            c["x"]["dtype"].as_str().unwrap(),
        ) {
            (true, "float64") => {
                let x: Array<f64, 5> = arr(&c["x"]);
                close(
                    name,
                    &jnp::linalg::norm_with::<Array<f64>, _>(&x, opts),
                    &want,
                    1e-12,
                );
            }
            (true, _) => {
                let x: Array<f32, 5> = arr(&c["x"]);
                close(
                    name,
                    &jnp::linalg::norm_with::<Array<f32>, _>(&x, opts),
                    &want,
                    1e-6,
                );
            }
            (false, "float64") => {
                let x: Array<f64, 4, 3> = arr(&c["x"]);
                close(
                    name,
                    &jnp::linalg::norm_with::<Array<f64>, _>(&x, opts),
                    &want,
                    1e-12,
                );
            }
            (false, _) => {
                let x: Array<f32, 3, 4> = arr(&c["x"]);
                close(
                    name,
                    &jnp::linalg::norm_with::<Array<f32>, _>(&x, opts),
                    &want,
                    1e-6,
                );
            }
        }
    }
}

macro_rules! norm_jit {
    ($($jit:ident: $t:ty, [$($d:literal),+], $ord:expr, $fixture:literal;)+) => {
        $(
            #[jax::jit]
            fn $jit(x: &Array<$t, $($d),+>) -> Array<$t> {
                jnp::linalg::norm_with(x, NormOptions { ord: $ord, ..Default::default() })
            }
        )+

        #[test]
        fn norm_every_ord_in_jit() {
            $(
                let c = case($fixture);
                let x: Array<$t, $($d),+> = arr(&c["x"]);
                let eager: Array<$t> = jnp::linalg::norm_with(&x, NormOptions { ord: $ord, ..Default::default() });
                close(concat!($fixture, " jit"), &$jit(&x), &nums(&c["norm"]), tol::<$t>());
                close(concat!($fixture, " jit = eager"), &$jit(&x), &[eager.item().to_f64()], tol::<$t>());
            )+
        }
    };
}

norm_jit! {
    nv_none: f64, [5], NormOrd::Default, "norm_vec_f64_None";
    nv_2: f32, [5], NormOrd::P(2.0), "norm_vec_f32_2";
    nv_1: f64, [5], NormOrd::P(1.0), "norm_vec_f64_1";
    nv_inf: f32, [5], NormOrd::Inf, "norm_vec_f32_inf";
    nv_neginf: f64, [5], NormOrd::NegInf, "norm_vec_f64_-inf";
    nv_0: f64, [5], NormOrd::P(0.0), "norm_vec_f64_0";
    nv_3: f32, [5], NormOrd::P(3.0), "norm_vec_f32_3";
    nv_half: f64, [5], NormOrd::P(0.5), "norm_vec_f64_0.5";
    nv_m1: f64, [5], NormOrd::P(-1.0), "norm_vec_f64_-1";
    nm_none: f32, [3, 4], NormOrd::Default, "norm_mat_f32_None";
    nm_fro: f64, [4, 3], NormOrd::Fro, "norm_mat_f64_fro";
    nm_nuc: f32, [3, 4], NormOrd::Nuc, "norm_mat_f32_nuc";
    nm_1: f64, [4, 3], NormOrd::P(1.0), "norm_mat_f64_1";
    nm_m1: f32, [3, 4], NormOrd::P(-1.0), "norm_mat_f32_-1";
    nm_2: f64, [4, 3], NormOrd::P(2.0), "norm_mat_f64_2";
    nm_m2: f32, [3, 4], NormOrd::P(-2.0), "norm_mat_f32_-2";
    nm_inf: f64, [4, 3], NormOrd::Inf, "norm_mat_f64_inf";
    nm_neginf: f32, [3, 4], NormOrd::NegInf, "norm_mat_f32_-inf";
}

macro_rules! norm_axis_case {
    ($($jit:ident: $ord:expr, $axis:expr, $keep:literal, [$($o:literal),*], $fixture:literal;)+) => {
        $(
            #[jax::jit]
            fn $jit(x: &Array<f64, 2, 3, 4>) -> Array<f64, $($o),*> {
                jnp::linalg::norm_with(x, NormOptions { ord: $ord, axis: $axis, keepdims: $keep })
            }
        )+

        #[test]
        fn norm_over_axes_eager_and_jit() {
            $(
                let c = case($fixture);
                let x: Array<f64, 2, 3, 4> = arr(&c["x"]);
                let want = nums(&c["norm"]);
                let opts = NormOptions { ord: $ord, axis: $axis, keepdims: $keep };
                let eager: Array<f64, $($o),*> = jnp::linalg::norm_with(&x, opts);
                close(concat!($fixture, " eager"), &eager, &want, 1e-12);
                close(concat!($fixture, " jit"), &$jit(&x), &want, 1e-12);
            )+
        }
    };
}

norm_axis_case! {
    na_axis1_ord2: NormOrd::Default, NormAxis::Vector(1), false, [2, 4], "norm_axis1_ord2";
    na_axis0_inf: NormOrd::Inf, NormAxis::Vector(0), true, [1, 3, 4], "norm_axis0_inf";
    na_neg1_ord1: NormOrd::P(1.0), NormAxis::Vector(-1), false, [2, 3], "norm_axis_neg1_ord1";
    na_neg1_p3: NormOrd::P(3.0), NormAxis::Vector(-1), true, [2, 3, 1], "norm_axis_neg1_p3";
    na_02_nuc: NormOrd::Nuc, NormAxis::Matrix(0, 2), false, [3], "norm_axes02_nuc";
    na_21_ord1: NormOrd::P(1.0), NormAxis::Matrix(2, 1), true, [2, 1, 1], "norm_axes21_ord1";
    na_12_inf: NormOrd::Inf, NormAxis::Matrix(1, 2), false, [2], "norm_axes12_inf";
    na_12_m2: NormOrd::P(-2.0), NormAxis::Matrix(1, 2), true, [2, 1, 1], "norm_axes12_neg2";
    na_10_fro: NormOrd::Fro, NormAxis::Matrix(1, 0), false, [4], "norm_axes10_fro";
}

macro_rules! norm_grad_case {
    ($($jit:ident: [$($d:literal),+], $ord:expr, $fixture:literal;)+) => {
        $(
            #[jax::jit]
            fn $jit(x: &Array<f64, $($d),+>) -> Array<f64> {
                jnp::linalg::norm_with(x, NormOptions { ord: $ord, ..Default::default() })
            }
        )+

        #[test]
        fn norm_grads_match_jax() {
            $(
                let c = case($fixture);
                let x: Array<f64, $($d),+> = arr(&c["x"]);
                let eager: Array<f64> = jnp::linalg::norm_with(&x, NormOptions { ord: $ord, ..Default::default() });
                close(concat!($fixture, " value"), &$jit(&x), &[eager.item()], 1e-12);
                close(concat!($fixture, " grad"), &$jit::grad(&x), &nums(&c["grad"]), 1e-9);
                jax::test_util::check_grads!($jit, (&x));
            )+
        }
    };
}

norm_grad_case! {
    ng_mat_none: [3, 4], NormOrd::Default, "norm_grad_mat_None";
    ng_mat_fro: [3, 4], NormOrd::Fro, "norm_grad_mat_fro";
    ng_mat_nuc: [3, 4], NormOrd::Nuc, "norm_grad_mat_nuc";
    ng_mat_1: [3, 4], NormOrd::P(1.0), "norm_grad_mat_1";
    ng_mat_inf: [3, 4], NormOrd::Inf, "norm_grad_mat_inf";
    ng_mat_2: [3, 4], NormOrd::P(2.0), "norm_grad_mat_2";
    ng_vec_none: [5], NormOrd::Default, "norm_grad_vec_None";
    ng_vec_1: [5], NormOrd::P(1.0), "norm_grad_vec_1";
    ng_vec_3: [5], NormOrd::P(3.0), "norm_grad_vec_3";
    ng_vec_inf: [5], NormOrd::Inf, "norm_grad_vec_inf";
}

// eigh_with and svd_with.

macro_rules! eigh_with_case {
    ($($jit:ident: $t:ty, $uplo:expr, $sym:literal, $fixture:literal;)+) => {
        $(
            #[jax::jit]
            fn $jit(a: &Array<$t, 3, 3>) -> (Array<$t, 3>, Array<$t, 3, 3>) {
                jnp::linalg::eigh_with(a, EighOptions { uplo: $uplo, symmetrize_input: $sym })
            }
        )+

        #[test]
        fn eigh_with_uplo_and_symmetrize() {
            $(
                let c = case($fixture);
                let a: Array<$t, 3, 3> = arr(&c["a"]);
                let opts = EighOptions { uplo: $uplo, symmetrize_input: $sym };
                let eager: (Array<$t, 3>, Array<$t, 3, 3>) = jnp::linalg::eigh_with(&a, opts);
                for (how, (w, v)) in [("eager", eager), ("jit", $jit(&a))] {
                    let t = tol::<$t>() * 10.0;
                    close(&format!("{} {how} w", $fixture), &w, &nums(&c["w"]), t);
                    close(&format!("{} {how} |v|", $fixture), &jnp::abs(&v), &nums(&c["v_abs"]), t * 10.0);
                }
            )+
        }
    };
}

eigh_with_case! {
    eigh_l_sym_f64: f64, Uplo::L, true, "eigh_L_True_f64";
    eigh_l_nosym_f64: f64, Uplo::L, false, "eigh_L_False_f64";
    eigh_u_sym_f32: f32, Uplo::U, true, "eigh_U_True_f32";
    eigh_u_nosym_f64: f64, Uplo::U, false, "eigh_U_False_f64";
    eigh_u_nosym_f32: f32, Uplo::U, false, "eigh_U_False_f32";
}

#[jax::jit]
fn svd_thin_f64(a: &Array<f64, 3, 2>) -> (Array<f64, 3, 2>, Array<f64, 2>, Array<f64, 2, 2>) {
    jnp::linalg::svd_with(
        a,
        SvdOptions {
            full_matrices: false,
            hermitian: false,
        },
    )
}

#[jax::jit]
fn svd_thin_f32_batched(
    a: &Array<f32, 2, 2, 3>,
) -> (Array<f32, 2, 2, 2>, Array<f32, 2, 2>, Array<f32, 2, 2, 3>) {
    jnp::linalg::svd_with(
        a,
        SvdOptions {
            full_matrices: false,
            ..Default::default()
        },
    )
}

#[jax::jit]
fn svd_hermitian(a: &Array<f64, 3, 3>) -> (Array<f64, 3, 3>, Array<f64, 3>, Array<f64, 3, 3>) {
    jnp::linalg::svd_with(
        a,
        SvdOptions {
            hermitian: true,
            ..Default::default()
        },
    )
}

#[test]
fn svd_with_thin_and_hermitian() {
    let c = case("svd_thin_f64_3x2");
    let a: Array<f64, 3, 2> = arr(&c["a"]);
    let opts = SvdOptions {
        full_matrices: false,
        hermitian: false,
    };
    let eager: (Array<f64, 3, 2>, Array<f64, 2>, Array<f64, 2, 2>) =
        jnp::linalg::svd_with(&a, opts);
    for (how, (u, s, vh)) in [("eager", eager), ("jit", svd_thin_f64(&a))] {
        close(&format!("thin {how} s"), &s, &nums(&c["s"]), 1e-10);
        close(
            &format!("thin {how} |u|"),
            &jnp::abs(&u),
            &nums(&c["u_abs"]),
            1e-10,
        );
        close(
            &format!("thin {how} |vh|"),
            &jnp::abs(&vh),
            &nums(&c["vh_abs"]),
            1e-10,
        );
    }
    let c = case("svd_thin_f32_batched_2x3");
    let a: Array<f32, 2, 2, 3> = arr(&c["a"]);
    let opts = SvdOptions {
        full_matrices: false,
        hermitian: false,
    };
    let eager: (Array<f32, 2, 2, 2>, Array<f32, 2, 2>, Array<f32, 2, 2, 3>) =
        jnp::linalg::svd_with(&a, opts);
    for (how, (u, s, vh)) in [("eager", eager), ("jit", svd_thin_f32_batched(&a))] {
        close(&format!("batched {how} s"), &s, &nums(&c["s"]), 1e-5);
        close(
            &format!("batched {how} |u|"),
            &jnp::abs(&u),
            &nums(&c["u_abs"]),
            1e-4,
        );
        close(
            &format!("batched {how} |vh|"),
            &jnp::abs(&vh),
            &nums(&c["vh_abs"]),
            1e-4,
        );
    }
    // hermitian: s as JAX's; u·diag(s)·vh is the symmetrized matrix.
    let c = case("svd_hermitian");
    let a: Array<f64, 3, 3> = arr(&c["a"]);
    let opts = SvdOptions {
        full_matrices: true,
        hermitian: true,
    };
    let eager: (Array<f64, 3, 3>, Array<f64, 3>, Array<f64, 3, 3>) =
        jnp::linalg::svd_with(&a, opts);
    for (how, (u, s, vh)) in [("eager", eager), ("jit", svd_hermitian(&a))] {
        close(&format!("hermitian {how} s"), &s, &nums(&c["s"]), 1e-10);
        let back = jnp::matmul(&u * &s.reshape::<Array<f64, 1, 3>>(), &vh);
        close(
            &format!("hermitian {how} u s vh"),
            &back,
            &nums(&c["usvh"]),
            1e-10,
        );
    }
}

#[test]
#[should_panic(expected = "Invalid order '3' for matrix norm")]
fn norm_of_a_matrix_with_ord_3_panics_eagerly() {
    let x = Array::<f64, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
    let _: Array<f64> = jnp::linalg::norm_with(
        &x,
        NormOptions {
            ord: NormOrd::P(3.0),
            ..Default::default()
        },
    );
}
