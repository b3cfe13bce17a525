//! Reading tests/fixtures/sort.json (made by tests/fixtures/gen/sort.py):
//! arguments and outputs by case name, exact and close comparisons.
#![allow(dead_code)]

use jax::{ArrayType, Element};
use serde_json::Value;

use crate::common;

pub fn case(name: &str) -> Value {
    common::case("sort", name)
}

/// Element `i` of a fixture array as f64 (from its bits for floats).
fn element(v: &Value, i: usize) -> f64 {
    if let Some(bits) = v.get("bits").and_then(Value::as_array) {
        let s = bits[i].as_str().unwrap().trim_start_matches("0x");
        let b = u64::from_str_radix(s, 16).unwrap();
        return if s.len() == 8 {
            f32::from_bits(b as u32) as f64
        } else {
            f64::from_bits(b)
        };
    }
    match &v["data"][i] {
        Value::Bool(b) => *b as u8 as f64,
        d => d.as_f64().unwrap(),
    }
}

fn array<A: ArrayType>(v: &Value) -> A {
    let n = v["data"].as_array().unwrap().len();
    A::from_data((0..n).map(|i| A::Elem::from_f64(element(v, i))).collect())
}

/// Argument `k` of a case.
pub fn arg<A: ArrayType>(name: &str, k: usize) -> A {
    array(&case(name)["args"][k])
}

/// The output of a case, or item `k` of a tuple output.
pub fn output(name: &str, item: Option<usize>) -> Value {
    let out = case(name)["output"].clone();
    match item {
        Some(k) => out["items"][k].clone(),
        None => out,
    }
}

/// `got` is JAX's output bit for bit (dtype and shape too).
#[track_caller]
pub fn exact<A: ArrayType>(name: &str, item: Option<usize>, got: &A) {
    common::assert_matches(got, &output(name, item));
}

/// `got` is within `ulps` float32 ulps (relative to max(|want|, 1e-3)) of
/// JAX's output, NaN where JAX has NaN.
#[track_caller]
pub fn close<A: ArrayType>(name: &str, item: Option<usize>, got: &A, ulps: f64) {
    let want = output(name, item);
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "{name}: shape");
    assert_eq!(
        <A::Elem as Element>::DTYPE.name(),
        want["dtype"].as_str().unwrap(),
        "{name}: dtype"
    );
    for (i, g) in got.data().iter().enumerate() {
        let (g, w) = (g.to_f64(), element(&want, i));
        if w.is_nan() {
            assert!(g.is_nan(), "{name}[{i}]: ours {g}, JAX NaN");
            continue;
        }
        let tol = ulps * f32::EPSILON as f64 * w.abs().max(1e-3);
        assert!((g - w).abs() <= tol, "{name}[{i}]: ours {g:e}, JAX {w:e}");
    }
}

/// Whether the fixture case was generated for this build's x64 setting.
pub fn for_this_build(name: &str) -> bool {
    case(name)["x64"].as_bool().unwrap() == cfg!(feature = "x64")
}
