//! Checks the promotion lattice against every case JAX produced in
//! `tests/fixtures/promotion.json`, with x64 off and on (a unit test, so
//! the crate has one test binary).

use crate::{promote_types, result_type, to_inexact, DType, Kind};
use serde_json::Value;

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/promotion.json"
    );
    let text = std::fs::read_to_string(path).expect("promotion fixture");
    let json: Value = serde_json::from_str(&text).unwrap();
    json["cases"].as_array().unwrap().clone()
}

fn dtype(v: &Value) -> DType {
    DType::from_name(v.as_str().unwrap()).unwrap_or_else(|| panic!("unknown dtype {v}"))
}

fn x64(case: &Value) -> bool {
    case["config"].as_str().unwrap() == "x64_on"
}

#[test]
fn every_pair_of_dtypes() {
    let mut checked = 0;
    for case in cases().iter().filter(|c| c["kind"] == "pair") {
        let (a, b, x64) = (dtype(&case["a"]), dtype(&case["b"]), x64(case));
        let id = case["id"].as_str().unwrap();
        // jnp.promote_types is the lattice join. With x64 off JAX truncates a
        // 64-bit join of narrower inputs (uint32 with int32 gives int32).
        let join = promote_types(a, b);
        let expected = dtype(&case["promote_types"]);
        if x64 || a != a.canonicalize(false) || b != b.canonicalize(false) {
            assert_eq!(join, expected, "{id}");
        } else {
            assert_eq!(join.canonicalize(false), expected, "{id}");
        }
        // jnp.result_type truncates the operands first when x64 is off.
        let rt = result_type(
            &[(a.canonicalize(x64), false), (b.canonicalize(x64), false)],
            x64,
        );
        assert_eq!(rt.0, dtype(&case["result_type"]), "{id}: result_type");
        // An actual addition: JAX first truncates the inputs themselves.
        let created = case["input_dtypes_after_creation"].as_array().unwrap();
        let (ca, cb) = (dtype(&created[0]), dtype(&created[1]));
        assert_eq!((ca, cb), (a.canonicalize(x64), b.canonicalize(x64)), "{id}");
        let sum = result_type(&[(ca, false), (cb, false)], x64);
        let expected = &case["array_add"];
        assert_eq!(sum.0, dtype(&expected["dtype"]), "{id}: array_add");
        assert_eq!(sum.1, expected["weak_type"].as_bool().unwrap(), "{id}");
        checked += 1;
    }
    assert_eq!(checked, 2 * 15 * 15);
}

/// The kind of a Python literal, as the fixture writes it.
fn literal_kind(lit: &str) -> Kind {
    if lit == "True" || lit == "False" {
        Kind::Bool
    } else if lit.ends_with('j') {
        Kind::Complex
    } else if lit.contains('.') || lit.contains('e') {
        Kind::Float
    } else {
        Kind::Int
    }
}

fn weak_operand(kind: Kind) -> (DType, bool) {
    let d = match kind {
        Kind::Bool => DType::Bool,
        Kind::UInt | Kind::Int => DType::I32,
        Kind::Float => DType::F32,
        Kind::Complex => DType::C64,
    };
    (d, kind != Kind::Bool)
}

#[test]
fn every_dtype_with_every_weak_literal() {
    let mut checked = 0;
    for case in cases().iter().filter(|c| c["kind"] == "weak_scalar") {
        let (a, x64) = (dtype(&case["a"]), x64(case));
        let id = case["id"].as_str().unwrap();
        let lit = weak_operand(literal_kind(case["literal"].as_str().unwrap()));
        let array = (a.canonicalize(x64), false);
        let expected_rt = dtype(&case["result_type"]);
        assert_eq!(result_type(&[array, lit], x64).0, expected_rt, "{id}");
        for (key, ops) in [
            ("array_plus_literal", [array, lit]),
            ("literal_plus_array", [lit, array]),
        ] {
            let expected = &case[key];
            if expected.get("error").is_some() {
                continue;
            }
            let got = result_type(&ops, x64);
            assert_eq!(got.0, dtype(&expected["dtype"]), "{id}: {key}");
            assert_eq!(
                got.1,
                expected["weak_type"].as_bool().unwrap(),
                "{id}: {key}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 2 * 60);
}

#[test]
fn inexact_results_of_integer_inputs() {
    for case in cases().iter().filter(|c| {
        let n = c["name"].as_str().unwrap();
        n.starts_with("op:sqrt") || n.starts_with("op:sin") || n.starts_with("op:mean")
    }) {
        let src = case["result"]["source"].as_str().unwrap();
        let input = DType::ALL
            .into_iter()
            .find(|d| {
                src.contains(&format!("jnp.{}", d.name()))
                    || (src.contains("bool_") && *d == DType::Bool)
            })
            .unwrap();
        let input = input.canonicalize(x64(case));
        assert_eq!(to_inexact(input), dtype(&case["result"]["dtype"]), "{src}");
    }
}
