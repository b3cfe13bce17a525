//! Fixture helpers of the linear-algebra tests: factorizations differ from
//! LAPACK's in the last bits, so arrays are compared with a relative
//! tolerance, and JAX's non-finite values (singular matrices) exactly.

use jax::{ArrayType, Element};
use serde_json::Value;

/// A fixture number; "nan", "inf" and "-inf" as strings.
pub fn num(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "nan" => f64::NAN,
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        v => v.as_f64().unwrap(),
    }
}

/// A fixture array's elements.
pub fn data(v: &Value) -> Vec<f64> {
    v["data"].as_array().unwrap().iter().map(num).collect()
}

/// A fixture array (`{"shape", "data"}`) as an array of type `A`, its shape
/// checked.
pub fn arr<A: ArrayType>(v: &Value) -> A {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "fixture shape");
    A::from_data(
        data(v)
            .into_iter()
            .map(<A::Elem as Element>::from_f64)
            .collect(),
    )
}

/// `got` ≈ JAX's `want`: each element within `tol` of it relative to the
/// largest finite magnitude of `want` (at least 1), non-finite values equal.
#[track_caller]
pub fn close<A: ArrayType>(what: &str, got: &A, want: &Value, tol: f64) {
    let w = data(want);
    let g: Vec<f64> = got.data().iter().map(|x| x.to_f64()).collect();
    assert_eq!(g.len(), w.len(), "{what}: size");
    let scale = w
        .iter()
        .filter(|x| x.is_finite())
        .fold(1.0f64, |m, x| m.max(x.abs()));
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if b.is_finite() {
            (a - b).abs() <= tol * scale
        } else {
            a.is_nan() == b.is_nan() && (b.is_nan() || a == b)
        };
        assert!(ok, "{what}[{i}]: got {a}, JAX {b} (all: {g:?} vs {w:?})");
    }
}
