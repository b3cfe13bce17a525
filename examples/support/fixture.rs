//! Reading a program's JAX reference (`tests/fixtures/NAME.json`, written by
//! `tests/fixtures/gen/NAME.py`) in the program's tests.

use serde_json::Value;

/// The fixture's one case.
pub fn case(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cases"][0].clone()
}

/// A float32 array's elements, from their bits.
pub fn bits(v: &Value) -> Vec<f32> {
    v["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let hex = b.as_str().unwrap().trim_start_matches("0x");
            f32::from_bits(u32::from_str_radix(hex, 16).unwrap())
        })
        .collect()
}

/// The largest difference of `got` from `want`, relative to `want`'s
/// largest magnitude.
#[allow(dead_code)] // not every program's tests compare whole arrays
pub fn off(got: &[f32], want: &[f32]) -> f32 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(0f32, |m, w| m.max(w.abs()));
    got.iter()
        .zip(want)
        .fold(0f32, |m, (g, w)| m.max((g - w).abs()))
        / scale
}
