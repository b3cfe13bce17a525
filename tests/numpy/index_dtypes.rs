//! Index arrays of every integer dtype, with values an int32 cannot hold,
//! eager and `#[jax::jit]` against JAX (tests/fixtures/index_dtypes.json,
//! made by tests/fixtures/gen/index_dtypes.py): both paths follow JAX's one
//! rule, a signed index normalized in its own dtype, then every index
//! converted to int32 by wrapping, then clamped (gathers) or dropped
//! (scatters).

use crate::common;

use jax::prelude::*;
use serde_json::Value;

/// The exact integers of a case's index array.
fn index_values<T: TryFrom<i128>>(case: &Value) -> Vec<T> {
    case["index"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let wide = v
                .as_i64()
                .map(i128::from)
                .or_else(|| v.as_u64().map(i128::from))
                .unwrap();
            T::try_from(wide).unwrap_or_else(|_| panic!("{wide} does not fit"))
        })
        .collect()
}

fn x() -> Array<f32, 5> {
    Array::from([10.0, 11.0, 12.0, 13.0, 14.0])
}

fn y() -> Array<f32, 2, 5> {
    Array::arange()
}

macro_rules! index_dtype_cases {
    ($($module:ident: $t:ty, $n:literal, $key:literal;)*) => {$(
        mod $module {
            use super::*;

            #[jax::jit]
            pub fn gather(x: Array<f32, 5>, i: Array<$t, $n>) -> Array<f32, $n> {
                x.at(i).get()
            }

            #[jax::jit]
            pub fn add(x: Array<f32, 5>, i: Array<$t, $n>) -> Array<f32, 5> {
                x.at(i).add(100.0)
            }

            #[jax::jit]
            pub fn set(x: Array<f32, 5>, i: Array<$t, $n>) -> Array<f32, 5> {
                x.at(i).set(-1.0)
            }

            #[test]
            fn eager_and_jit_match_jax() {
                let key = $key;
                let c = common::case("index_dtypes", &format!("gather_{key}"));
                assert_eq!(c["index"]["dtype"], <$t as Element>::DTYPE.name());
                let values: [$t; $n] = index_values(&c).try_into().unwrap();
                let i = Array::<$t, $n>::from(values);

                let want = &c["output"];
                common::assert_matches::<Array<f32, $n>>(&x().at(&i).get(), want);
                common::assert_matches(&gather(x(), i.clone()), want);

                let want = &common::case("index_dtypes", &format!("add_{key}"))["output"];
                common::assert_matches(&x().at(&i).add(100.0), want);
                common::assert_matches(&add(x(), i.clone()), want);

                let want = &common::case("index_dtypes", &format!("set_{key}"))["output"];
                common::assert_matches(&x().at(&i).set(-1.0), want);
                common::assert_matches(&set(x(), i.clone()), want);
            }
        }
    )*};
}

index_dtype_cases! {
    u64_index: u64, 5, "u64";
    i64_index: i64, 9, "i64";
    u32_index: u32, 4, "u32";
    i8_index: i8, 6, "i8";
    u8_index: u8, 3, "u8";
}

// An integer beside an index array is an advanced index too: normalized as
// written, then converted to int32 like the array.

#[jax::jit]
fn gather_rows_col_2p32(y: Array<f32, 2, 5>, i: Array<i64, 3>) -> Array<f32, 3> {
    y.at((i, 4_294_967_296i64)).get()
}
#[jax::jit]
fn add_rows_col_2p32(y: Array<f32, 2, 5>, i: Array<i64, 3>) -> Array<f32, 2, 5> {
    y.at((i, 4_294_967_296i64)).add(100.0)
}
#[jax::jit]
fn gather_rows_col_neg(y: Array<f32, 2, 5>, i: Array<i64, 3>) -> Array<f32, 3> {
    y.at((i, -4_294_967_297i64)).get()
}
#[jax::jit]
fn add_rows_col_neg(y: Array<f32, 2, 5>, i: Array<i64, 3>) -> Array<f32, 2, 5> {
    y.at((i, -4_294_967_297i64)).add(100.0)
}
#[jax::jit]
fn gather_rows_col_7(y: Array<f32, 2, 5>, i: Array<i64, 3>) -> Array<f32, 3> {
    y.at((i, 7)).get()
}
#[jax::jit]
fn gather_rows_col_neg_7(y: Array<f32, 2, 5>, i: Array<i64, 3>) -> Array<f32, 3> {
    y.at((i, -7)).get()
}

#[test]
fn integer_beside_an_index_array_matches_jax() {
    let rows = || {
        let c = common::case("index_dtypes", "gather_rows_col_7");
        let v: [i64; 3] = index_values(&c).try_into().unwrap();
        Array::<i64, 3>::from(v)
    };
    let want = |id: &str| common::case("index_dtypes", id)["output"].clone();

    let w = want("gather_rows_col_2p32");
    common::assert_matches::<Array<f32, 3>>(&y().at((rows(), 1i64 << 32)).get(), &w);
    common::assert_matches(&gather_rows_col_2p32(y(), rows()), &w);
    let w = want("add_rows_col_2p32");
    common::assert_matches(&y().at((rows(), 1i64 << 32)).add(100.0), &w);
    common::assert_matches(&add_rows_col_2p32(y(), rows()), &w);

    let w = want("gather_rows_col_neg_2p32_minus_1");
    let neg = -(1i64 << 32) - 1;
    common::assert_matches::<Array<f32, 3>>(&y().at((rows(), neg)).get(), &w);
    common::assert_matches(&gather_rows_col_neg(y(), rows()), &w);
    let w = want("add_rows_col_neg_2p32_minus_1");
    common::assert_matches(&y().at((rows(), neg)).add(100.0), &w);
    common::assert_matches(&add_rows_col_neg(y(), rows()), &w);

    let w = want("gather_rows_col_7");
    common::assert_matches::<Array<f32, 3>>(&y().at((rows(), 7)).get(), &w);
    common::assert_matches(&gather_rows_col_7(y(), rows()), &w);
    let w = want("add_rows_col_7");
    common::assert_matches(&y().at((rows(), 7)).add(100.0), &w);

    let w = want("gather_rows_col_neg_7");
    common::assert_matches::<Array<f32, 3>>(&y().at((rows(), -7)).get(), &w);
    common::assert_matches(&gather_rows_col_neg_7(y(), rows()), &w);
    let w = want("add_rows_col_neg_7");
    common::assert_matches(&y().at((rows(), -7)).add(100.0), &w);
}

/// JAX refuses a signed index dtype that cannot hold the axis length (it
/// builds `i + n` in the index's dtype); eager says so with JAX's words.
#[test]
fn signed_index_dtype_narrower_than_the_axis_is_refused() {
    let c = common::case("index_dtypes", "gather_i8_axis_200");
    let jax_error = c["error"].as_str().unwrap();
    let z: Array<f32, 200> = Array::arange();
    let i = Array::<i8, 2>::from([-1, 3]);
    let panic = std::panic::catch_unwind(|| z.at(&i).get::<Array<f32, 2>>())
        .expect_err("an int8 index into an axis of 200 is refused");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains(jax_error.trim_start_matches("OverflowError: ")),
        "{message}"
    );
}
