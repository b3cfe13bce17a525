//! Reductions, cumulative ops and softmax against JAX (`tests/fixtures/reduce.json`,
//! `seed_examples.json`, `promotion.json`), plus property tests.
#![allow(clippy::eq_op)]

use crate::common;
use crate::reduce_common;

// The fixture comparisons are for x64 off (default int i32).
use jax::prelude::*;
#[cfg(not(feature = "x64"))]
use jax::{
    element::{SumType, ToInexact},
    jnp::{CumType, IndexInt},
};
use proptest::prelude::*;
use reduce_common::Fixture;

#[cfg(not(feature = "x64"))]
/// The reductions and whether their results must match JAX bit for bit
/// (selections of an input element, counts, and integer arithmetic do).
macro_rules! all_reductions {
    ($m:ident) => {
        $m! {
            sum sum_axis false;
            prod prod_axis false;
            mean mean_axis false;
            var var_axis false;
            std std_axis false;
            max max_axis true;
            min min_axis true;
            argmax argmax_axis true;
            argmin argmin_axis true;
            nansum nansum_axis false;
            nanmax nanmax_axis true;
            nanmin nanmin_axis true;
            nanargmax nanargmax_axis true;
            nanargmin nanargmin_axis true;
            any any_axis true;
            all all_axis true;
            logsumexp logsumexp_axis false;
        }
    };
}

#[cfg(not(feature = "x64"))]
/// Every reduction of a 2-D input over axis None/0/1/-1, keepdims False/True.
fn reductions_2d<T, const R: usize, const C: usize>(fx: &Fixture, name: &str)
where
    T: Element + PartialOrd + SumType + ToInexact + CumType,
{
    let x: Array<T, R, C> = fx.input(name);
    macro_rules! ops {
        ($($op:ident $op_axis:ident $exact:expr;)*) => {$(
            let op = stringify!($op);
            let id = |axis: &str, keep: &str| format!("{op}|{name}|{axis}|{keep}");
            let full = jnp::$op(&x);
            fx.check(&id("None", "False"), &full, $exact);
            let full11 = Array::<_, 1, 1>::from_vec(full.to_vec()).unwrap();
            fx.check(&id("None", "True"), &full11, $exact);
            let r: Array<_, C> = jnp::$op_axis(&x, 0, false);
            fx.check(&id("0", "False"), &r, $exact);
            let r: Array<_, 1, C> = jnp::$op_axis(&x, 0, true);
            fx.check(&id("0", "True"), &r, $exact);
            for (axis, label) in [(1, "1"), (-1, "-1")] {
                let r: Array<_, R> = jnp::$op_axis(&x, axis, false);
                fx.check(&id(label, "False"), &r, $exact);
                let r: Array<_, R, 1> = jnp::$op_axis(&x, axis, true);
                fx.check(&id(label, "True"), &r, $exact);
            }
        )*};
    }
    all_reductions!(ops);
    scans(fx, &x, name);
}

#[cfg(not(feature = "x64"))]
/// Every reduction of a 3-D input over axis None/0/1/-1, keepdims False/True.
fn reductions_3d<T, const A: usize, const B: usize, const C: usize>(fx: &Fixture, name: &str)
where
    T: Element + PartialOrd + SumType + ToInexact + CumType,
{
    let x: Array<T, A, B, C> = fx.input(name);
    macro_rules! ops {
        ($($op:ident $op_axis:ident $exact:expr;)*) => {$(
            let op = stringify!($op);
            let id = |axis: &str, keep: &str| format!("{op}|{name}|{axis}|{keep}");
            let full = jnp::$op(&x);
            fx.check(&id("None", "False"), &full, $exact);
            let full111 = Array::<_, 1, 1, 1>::from_vec(full.to_vec()).unwrap();
            fx.check(&id("None", "True"), &full111, $exact);
            let r: Array<_, B, C> = jnp::$op_axis(&x, 0, false);
            fx.check(&id("0", "False"), &r, $exact);
            let r: Array<_, 1, B, C> = jnp::$op_axis(&x, 0, true);
            fx.check(&id("0", "True"), &r, $exact);
            let r: Array<_, A, C> = jnp::$op_axis(&x, 1, false);
            fx.check(&id("1", "False"), &r, $exact);
            let r: Array<_, A, 1, C> = jnp::$op_axis(&x, 1, true);
            fx.check(&id("1", "True"), &r, $exact);
            let r: Array<_, A, B> = jnp::$op_axis(&x, -1, false);
            fx.check(&id("-1", "False"), &r, $exact);
            let r: Array<_, A, B, 1> = jnp::$op_axis(&x, -1, true);
            fx.check(&id("-1", "True"), &r, $exact);
        )*};
    }
    all_reductions!(ops);
    scans(fx, &x, name);
}

#[cfg(not(feature = "x64"))]
/// The shape-keeping ops along axis 0/1/-1.
fn scans<A, T>(fx: &Fixture, x: &A, name: &str)
where
    A: ArrayType<Elem = T>,
    for<'a> &'a A: AsArray<Array = A>,
    T: Element + PartialOrd + CumType + ToInexact,
{
    for (axis, label) in [(0, "0"), (1, "1"), (-1, "-1")] {
        let id = |op: &str| format!("{op}|{name}|{label}");
        fx.check(&id("cumsum"), &jnp::cumsum(x, axis), false);
        fx.check(&id("cumprod"), &jnp::cumprod(x, axis), false);
        fx.check_call(&id("cummax"), true, || jnp::cummax(x, axis));
        fx.check_call(&id("cummin"), true, || jnp::cummin(x, axis));
        fx.check_call(&id("softmax"), false, || jnp::softmax(x, axis));
        fx.check_call(&id("log_softmax"), false, || jnp::log_softmax(x, axis));
    }
}

// The fixtures were made with x64 off (default int i32).
#[cfg(not(feature = "x64"))]
#[test]
fn reductions_match_jax() {
    let fx = Fixture::load();
    reductions_2d::<f32, 3, 4>(&fx, "f32_nan");
    reductions_2d::<f32, 3, 4>(&fx, "f32_rand");
    reductions_2d::<f32, 4, 3>(&fx, "f32_allnan");
    reductions_2d::<f16, 3, 4>(&fx, "f16");
    reductions_2d::<bf16, 3, 4>(&fx, "bf16");
    reductions_2d::<i32, 3, 4>(&fx, "i32");
    reductions_2d::<i8, 3, 4>(&fx, "i8");
    reductions_2d::<u8, 3, 4>(&fx, "u8");
    reductions_2d::<bool, 3, 4>(&fx, "bool");
    reductions_3d::<f32, 2, 3, 4>(&fx, "f32_3d");
    reductions_3d::<i32, 2, 3, 4>(&fx, "i32_3d");

    // Large and non-finite rows.
    let x: Array<f32, 8, 3> = fx.input("f32_stable");
    for (axis, label) in [(1, "1"), (-1, "-1")] {
        fx.check(
            &format!("softmax|f32_stable|{label}"),
            &jnp::softmax(&x, axis),
            false,
        );
        fx.check(
            &format!("log_softmax|f32_stable|{label}"),
            &jnp::log_softmax(&x, axis),
            false,
        );
    }
    let l: Array<f32, 8> = jnp::logsumexp_axis(&x, 1, false);
    fx.check("logsumexp|f32_stable|1|False", &l, false);
    let l: Array<f32, 8, 1> = jnp::logsumexp_axis(&x, 1, true);
    fx.check("logsumexp|f32_stable|1|True", &l, false);

    fx.assert_all_visited(|c| c["kind"] != "product");
    // XLA's CPU backend flushes subnormal values to zero; this library does
    // not, eagerly or jitted. Here (`u8` subtracts its maximum with
    // wrapping) a column's sum is 1.65e38, whose reciprocal is subnormal: 0
    // in JAX, so JAX's softmax is 0 where this one is near 1.
    fx.assert_only_failures(&["softmax|u8|0"]);
}

#[cfg(not(feature = "x64"))]
#[test]
fn seed_examples() {
    let nan = f32::NAN;
    let x = Array::<f32, 5>::from([1.0, 2.0, nan, 3.0, 4.0]);
    common::assert_matches(&jnp::nansum(&x), &common::seed_output("jnp_nansum"));
    let masked = jnp::sum(Array::<f32, 5>::from_fn(|i| {
        if x.as_slice()[i].is_nan() {
            0.0
        } else {
            x.as_slice()[i]
        }
    }));
    common::assert_matches(&masked, &common::seed_output("nansum_where"));
    common::assert_matches(&masked, &common::seed_output("nansum_2_jit"));
    common::assert_matches(&masked, &common::seed_output("nansum_boolean_mask_eager"));

    let rows = |last: f32| {
        Array::<f32, 4, 3>::from([
            [nan, nan, nan],
            [1.0, nan, 0.0],
            [nan, 2.0, 2.0],
            [3.0, 1.0, last],
        ])
    };
    let r: Array<IndexInt, 4> = jnp::nanargmin_axis(rows(1.0), 1, false);
    common::assert_matches(&r, &common::seed_output("nanargmin_rows"));
    let r: Array<IndexInt, 4> = jnp::nanargmax_axis(rows(3.0), 1, false);
    common::assert_matches(&r, &common::seed_output("nanargmax_rows"));
    let all_nan = Array::<f32, 2>::from([nan, nan]);
    common::assert_matches(
        &jnp::nanargmin(&all_nan),
        &common::seed_output("nanargmin_all_nan_1d"),
    );
    common::assert_matches(
        &jnp::nanargmax(&all_nan),
        &common::seed_output("nanargmax_all_nan_1d"),
    );

    let with_nan = Array::<f32, 3>::from([1.0, nan, 3.0]);
    common::assert_matches(&with_nan.argmax(), &common::seed_output("argmax_with_nan"));
    common::assert_matches(&with_nan.max(), &common::seed_output("max_with_nan"));
    let ties = Array::<f32, 5>::from([2.0, 1.0, 1.0, 0.0, 0.0]);
    common::assert_matches(&ties.argmin(), &common::seed_output("argmin_ties_first"));
}

fn promotion_output(name: &str) -> serde_json::Value {
    let config = if cfg!(feature = "x64") {
        "x64_on"
    } else {
        "x64_off"
    };
    common::case("promotion", &format!("{name}@{config}"))["result"]["value"].clone()
}

#[test]
fn promotion_cases() {
    common::assert_matches(
        &jnp::sum(Array::<bool, 2>::ones()),
        &promotion_output("op:sum_bool"),
    );
    common::assert_matches(
        &jnp::sum(Array::<i8, 2>::ones()),
        &promotion_output("op:sum_int8"),
    );
    common::assert_matches(
        &jnp::sum(Array::<u8, 2>::ones()),
        &promotion_output("op:sum_uint8"),
    );
    common::assert_matches(
        &jnp::sum(Array::<f16, 2>::ones()),
        &promotion_output("op:sum_float16"),
    );
    common::assert_matches(
        &jnp::prod(Array::<i8, 2>::ones()),
        &promotion_output("op:prod_int8"),
    );
    common::assert_matches(
        &jnp::mean(Array::<i32, 2>::ones()),
        &promotion_output("op:mean_int32"),
    );
    common::assert_matches(
        &jnp::cumsum(Array::<i8, 2>::ones(), 0),
        &promotion_output("op:cumsum_int8"),
    );
}

#[test]
fn lax_reductions() {
    let fx = Fixture::load();
    let x: Array<f32, 2, 3, 4> = fx.input("f32_3d");
    // reduce_sum over one axis is jnp.sum's f32 kernel.
    let a: Array<f32, 2, 4> = lax::reduce_sum(&x, &[1]);
    fx.check("sum|f32_3d|1|False", &a, false);
    let m: Array<f32, 3, 4> = lax::reduce_max(&x, &[0]);
    fx.check("max|f32_3d|0|False", &m, true);
    let m: Array<f32, 2, 3> = lax::reduce_min(&x, &[2]);
    fx.check("min|f32_3d|-1|False", &m, true);
    let i: Array<i32, 2, 3> = lax::argmax(&x, 2);
    fx.check("argmax|f32_3d|-1|False", &i, true);
    let i: Array<i32, 2, 4> = lax::argmin(&x, 1);
    fx.check("argmin|f32_3d|1|False", &i, true);
    // Several axes at once equal reducing them one by one (exact for ints).
    let y: Array<i32, 2, 3, 4> = fx.input("i32_3d");
    let both: Array<i32, 3> = lax::reduce_sum(&y, &[0, 2]);
    let step: Array<i32, 2, 3> = lax::reduce_sum(&y, &[2]);
    let step: Array<i32, 3> = lax::reduce_sum(&step, &[0]);
    assert_eq!(both, step);
    fx.assert_no_failures();
    let p: Array<i32> = lax::reduce_prod(Array::<i32, 3>::from([2, 3, 4]), &[0]);
    assert_eq!(p.item(), 24);
}

fn small_f32() -> impl Strategy<Value = f32> {
    // Multiples of 1/8 in [-64, 64]: every sum below is exact in f32.
    (-512i32..=512).prop_map(|i| i as f32 / 8.0)
}

proptest! {
    #[test]
    fn sum_of_axis_sums_is_the_sum(v in proptest::collection::vec(small_f32(), 24)) {
        let x = Array::<f32, 2, 3, 4>::from_vec(v).unwrap();
        let total = x.sum().item();
        for axis in [0isize, 1, 2] {
            let s: f32 = match axis {
                0 => jnp::sum(x.sum_axis::<Array<f32, 3, 4>>(0, false)).item(),
                1 => jnp::sum(x.sum_axis::<Array<f32, 2, 4>>(1, false)).item(),
                _ => jnp::sum(x.sum_axis::<Array<f32, 2, 3>>(2, false)).item(),
            };
            prop_assert_eq!(s, total);
        }
    }

    #[test]
    fn integer_sums_wrap_like_i32(v in proptest::collection::vec(any::<i32>(), 12)) {
        let x = Array::<i32, 3, 4>::from_vec(v.clone()).unwrap();
        let want = v.iter().fold(0i32, |a, &b| a.wrapping_add(b));
        // lax keeps i32 (jnp.sum would give i64 with x64 on).
        let all: Array<i32> = lax::reduce_sum(&x, &[0, 1]);
        prop_assert_eq!(all.item(), want);
        let rows: Array<i32, 3> = lax::reduce_sum(&x, &[1]);
        let total: Array<i32> = lax::reduce_sum(&rows, &[0]);
        prop_assert_eq!(total.item(), want);
    }

    #[test]
    fn softmax_rows_sum_to_one(v in proptest::collection::vec(-100.0f32..100.0, 12)) {
        let x = Array::<f32, 3, 4>::from_vec(v).unwrap();
        let p = jnp::softmax(&x, 1);
        let s: Array<f32, 3> = p.sum_axis(1, false);
        for r in s.to_vec() {
            prop_assert!((r - 1.0).abs() < 1e-5, "{}", r);
        }
        let lp = jnp::log_softmax(&x, 1);
        for (a, b) in lp.to_vec().iter().zip(p.to_vec()) {
            prop_assert!((a.exp() - b).abs() < 1e-5);
        }
    }
}

#[test]
fn signed_zero_ties_follow_xla() {
    // jnp.min([0., -0.]) and jnp.min([-0., 0.]) are both -0.0 in JAX; max is +0.0.
    for x in [
        Array::<f32, 2>::from([0.0, -0.0]),
        Array::<f32, 2>::from([-0.0, 0.0]),
    ] {
        assert!(jnp::min(&x).item().is_sign_negative());
        assert!(jnp::max(&x).item().is_sign_positive());
    }
}
