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

/// A list of arrays against JAX's summaries (`[{"sum", "first"}, ..]`,
/// each array's float64 sum and its first row or first elements): the
/// first elements within `tol` of their largest magnitude, the sum within
/// `tol` of the sum of magnitudes (1e-12 at least: NumPy sums pairwise).
#[allow(dead_code)] // the programs that record summaries use it
#[track_caller]
pub fn check_summaries(what: &str, arrays: &[Vec<f32>], want: &Value, tol: f32) {
    for (k, a) in arrays.iter().enumerate() {
        let w = &want[k];
        let first = bits(&w["first"]);
        let got = &a[..first.len()];
        let scale = first.iter().fold(0f32, |m, v| m.max(v.abs()));
        for (g, f) in got.iter().zip(&first) {
            assert!(
                (g - f).abs() <= tol * scale,
                "{what}: array {k}: {g} against JAX's {f}"
            );
        }
        let sum: f64 = a.iter().map(|&v| v as f64).sum();
        let abs: f64 = a.iter().map(|&v| v.abs() as f64).sum();
        let want_sum = w["sum"].as_f64().unwrap();
        assert!(
            (sum - want_sum).abs() <= (tol as f64).max(1e-12) * abs,
            "{what}: array {k}: sum {sum} against JAX's {want_sum}"
        );
    }
}

/// A `[train, test]` pair of JAX's accuracies.
#[allow(dead_code)]
pub fn pair(v: &Value) -> (f32, f32) {
    let a = v.as_array().unwrap();
    (a[0].as_f64().unwrap() as f32, a[1].as_f64().unwrap() as f32)
}

/// A list of integers (indices JAX drew: an order, a batch).
#[allow(dead_code)]
pub fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_i64().unwrap())
        .collect()
}

/// A pytree's float32 leaves, in JAX's leaf order.
#[allow(dead_code)]
pub fn leaves<P: jax::tree::Pytree>(p: &P) -> Vec<Vec<f32>> {
    jax::tree::leaves(p)
        .iter()
        .map(|a| a.to_vec::<f32>().unwrap())
        .collect()
}
