//! `Debug` (JAX's repr) and `Display` (JAX's str) of real `Array` values,
//! against `tests/fixtures/format.json` and the seed examples.

use crate::common;

use jax::element::Value;
use jax::{bf16, f16, Array, ArrayType, DType, Element};
use proptest::prelude::*;
use serde_json::Value as Json;

/// Builds the array of a fixture case as type `A`, bit for bit.
fn load<A: ArrayType>(file: &str, name: &str) -> (A, Json) {
    let case = common::case(file, name);
    let out = &case["output"];
    let dtype = <A::Elem as Element>::DTYPE;
    assert_eq!(out["dtype"], dtype.name(), "{name}: dtype");
    let shape: Vec<usize> = out["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "{name}: shape");
    let data: Vec<A::Elem> = match out.get("bits").and_then(Json::as_array) {
        Some(bits) => bits
            .iter()
            .map(|b| {
                let b =
                    u64::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
                let x = match dtype {
                    DType::F16 => f16::from_bits(b as u16).to_f64(),
                    DType::BF16 => bf16::from_bits(b as u16).to_f64(),
                    DType::F32 => f32::from_bits(b as u32) as f64,
                    _ => f64::from_bits(b),
                };
                A::Elem::from_value(Value::Float(x))
            })
            .collect(),
        None => out["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| match d {
                Json::Bool(b) => A::Elem::from_value(Value::Bool(*b)),
                Json::Number(n) => {
                    let i = n
                        .as_i64()
                        .map(i128::from)
                        .or_else(|| n.as_u64().map(i128::from));
                    A::Elem::from_value(Value::Int(i.unwrap()))
                }
                other => panic!("{name}: unexpected value {other}"),
            })
            .collect(),
    };
    let weak = out["weak_type"].as_bool().unwrap_or(false);
    (A::from_data(data).set_weak(weak), case)
}

/// Checks both `{:?}` and `{}` of a `format.json` case loaded as type `A`.
fn check<A: ArrayType + std::fmt::Debug + std::fmt::Display>(name: &str) {
    let (x, case) = load::<A>("format", name);
    assert_eq!(
        format!("{x:?}"),
        case["repr"].as_str().unwrap(),
        "{name}: repr"
    );
    assert_eq!(format!("{x}"), case["str"].as_str().unwrap(), "{name}: str");
}

#[test]
fn float32_arrays() {
    check::<Array<f32, 5>>("f32_arange");
    check::<Array<f32, 3>>("f32_frac_pad");
    check::<Array<f32, 4>>("f32_negative");
    check::<Array<f32, 4>>("f32_nan_inf");
    check::<Array<f32, 4>>("f32_sci_digits");
    check::<Array<f32, 3>>("f32_ties");
    check::<Array<f32, 3>>("f32_neg_zero");
    check::<Array<f32, 2, 3>>("f32_2d");
    check::<Array<f32, 2, 3, 4>>("f32_3d");
    check::<Array<f32, 2, 2, 2, 2>>("f32_4d");
    check::<Array<f32, 2, 15>>("f32_wrap_2d");
    check::<Array<f32, 2, 2, 10>>("f32_wrap_3d");
    check::<Array<f32, 4, 5>>("f32_random_2d");
    check::<Array<f32, 0, 3>>("f32_empty_2d");
}

#[test]
fn float32_scalars() {
    check::<Array<f32>>("f32_pi_scalar");
    check::<Array<f32>>("f32_neg_zero_scalar");
    check::<Array<f32>>("f32_nan_scalar");
    check::<Array<f32>>("f32_big_scalar");
    check::<Array<f32>>("f32_scalar_1e-4");
    check::<Array<f32>>("f32_scalar_1e6");
    check::<Array<f32>>("f32_weak_scalar");
}

#[test]
fn summarized_arrays() {
    check::<Array<f32, 1001>>("f32_summary_1d");
    check::<Array<f32, 40, 50>>("f32_summary_2d");
    check::<Array<f32, 10, 10, 12>>("f32_summary_3d");
    check::<Array<f32, 505, 2>>("f32_summary_narrow");
    check::<Array<f32, 1500>>("f32_summary_sci");
    check::<Array<f32, 1000>>("f32_exactly_1000");
    check::<Array<i32, 2000>>("i32_summary");
    check::<Array<bf16, 1200>>("bf16_summary");
    check::<Array<bool, 1500>>("bool_summary");
    check::<Array<f64, 1001>>("f64_summary");
}

#[test]
fn half_precision_arrays() {
    check::<Array<f16, 3>>("f16_basic");
    check::<Array<f16, 4>>("f16_extremes");
    check::<Array<f16, 3, 4>>("f16_2d");
    check::<Array<f16>>("f16_big_scalar");
    check::<Array<f16>>("f16_scalar_1e3");
    check::<Array<bf16, 3>>("bf16_ties");
    check::<Array<bf16, 6>>("bf16_specials");
    check::<Array<bf16, 30>>("bf16_wrap");
    check::<Array<bf16, 2, 2>>("bf16_2d");
    check::<Array<bf16>>("bf16_scalar");
}

#[test]
fn integer_and_bool_arrays() {
    check::<Array<i32, 3>>("i32_basic");
    check::<Array<i32>>("i32_weak_scalar");
    check::<Array<i32, 2, 20>>("i32_2d_wrap");
    check::<Array<i32, 2, 3, 4>>("i32_3d");
    check::<Array<i8, 3>>("i8_extremes");
    check::<Array<i16, 3>>("i16_basic");
    check::<Array<u8, 3>>("u8_basic");
    check::<Array<u16, 2, 2>>("u16_basic");
    check::<Array<u32, 2>>("u32_max");
    check::<Array<i32, 2, 0>>("i32_empty");
    check::<Array<bool, 3>>("bool_vector");
    check::<Array<bool>>("bool_scalar");
    check::<Array<bool, 3, 3>>("bool_2d");
    check::<Array<bool, 30>>("bool_wrap");
}

#[test]
fn sixty_four_bit_arrays() {
    check::<Array<f64, 2>>("f64_thirds");
    check::<Array<f64, 3>>("f64_sci");
    check::<Array<f64, 3, 3>>("f64_random");
    check::<Array<f64>>("f64_scalar_weak");
    check::<Array<f64>>("f64_scalar_below_1e16");
    check::<Array<f64>>("f64_scalar_below_1e-4");
    check::<Array<i64, 3>>("i64_big");
    check::<Array<u64, 2>>("u64_max");
}

#[test]
fn seed_examples_built_directly() {
    let x = Array::from([1.0f32, 2.0]);
    assert_eq!(format!("{x:?}"), common::seed_repr("repr_float_vector"));
    assert_eq!(
        format!("{:?}", Array::from(3i32)),
        common::seed_repr("repr_int_scalar")
    );
    assert_eq!(
        format!("{:?}", Array::from([true, false])),
        common::seed_repr("repr_bool")
    );
    let ones = Array::<f32, 2, 3>::ones();
    assert_eq!(
        ones.to_string(),
        common::seed_output("str_2d_float")["value"]
    );
    let weak = Array::from(50.0f32).set_weak(true);
    assert_eq!(
        format!("{weak:?}"),
        common::seed_repr("pure_uses_internal_state")
    );
    let cast = Array::from([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.9, -2.9]).astype::<i32>();
    assert_eq!(
        format!("{cast:?}"),
        common::seed_repr("astype_int32_from_nan_inf_jax")
    );
}

#[test]
fn seed_example_arrays() {
    for (name, repr) in [
        (
            "at_add_strided_slice",
            format!(
                "{:?}",
                load::<Array<f32, 5, 6>>("seed_examples", "at_add_strided_slice").0
            ),
        ),
        (
            "at_min",
            format!("{:?}", load::<Array<f32, 5>>("seed_examples", "at_min").0),
        ),
        (
            "float_division_by_zero",
            format!(
                "{:?}",
                load::<Array<f32, 3>>("seed_examples", "float_division_by_zero").0
            ),
        ),
        (
            "grad_sin_at_1_x64",
            format!(
                "{:?}",
                load::<Array<f64>>("seed_examples", "grad_sin_at_1_x64").0
            ),
        ),
        (
            "astype_int8_from_float_jax",
            format!(
                "{:?}",
                load::<Array<i8, 6>>("seed_examples", "astype_int8_from_float_jax").0
            ),
        ),
    ] {
        assert_eq!(repr, common::seed_repr(name), "{name}");
    }
}

proptest! {
    /// The str of a 0-d float array holds every digit needed to read it back.
    #[test]
    fn scalar_str_round_trips(bits in any::<u32>(), bits64 in any::<u64>()) {
        let x = f32::from_bits(bits);
        prop_assume!(x.is_finite());
        prop_assert_eq!(Array::from(x).to_string().parse::<f32>().unwrap().to_bits(), x.to_bits());
        let y = f64::from_bits(bits64);
        prop_assume!(y.is_finite());
        prop_assert_eq!(Array::from(y).to_string().parse::<f64>().unwrap().to_bits(), y.to_bits());
    }

    /// Every element of a short vector shows up, in order, in its str.
    #[test]
    fn vector_str_lists_every_element(v in proptest::array::uniform8(-1000i32..1000)) {
        let s = Array::from(v).to_string();
        let parsed: Vec<i32> = s.trim_matches(|c| c == '[' || c == ']')
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        prop_assert_eq!(parsed, v.to_vec());
    }
}
