//! `jax::nn::initializers`, eagerly and inside `#[jax::jit]`, against
//! JAX's `jax.nn.initializers` (tests/fixtures/nn_initializers.json, made
//! by tests/fixtures/gen/nn_initializers.py): every initializer and
//! option on `random.key(0)`, for a matrix (3, 4) and a kernel (3, 3, 2,
//! 5), compared bit for bit; `orthogonal` and `delta_orthogonal` (the QR
//! of a normal draw, here Householder reflections as LAPACK's but in
//! another order of operations) within `QR_TOL`.

use jax::nn::initializers::{self, Initializer};
use jax::{f16, random, Array, ArrayType};
use serde_json::Value;

use crate::common;

/// Of each value, against JAX's LAPACK QR (measured: at most 4.2e-7).
const QR_TOL: f32 = 5e-6;

/// The initializer a case names, with its options.
fn initializer(c: &Value) -> Initializer {
    let name = c["name"].as_str().unwrap();
    let args = &c["args"];
    let num = |k: &str| args.get(k).and_then(Value::as_f64);
    let int = |k: &str| args.get(k).and_then(Value::as_i64);
    let mut i = match name {
        "zeros" => initializers::zeros(),
        "ones" => initializers::ones(),
        "constant" => initializers::constant(num("value").unwrap()),
        "uniform" => initializers::uniform(),
        "normal" => initializers::normal(),
        "truncated_normal" => initializers::truncated_normal(),
        "variance_scaling" => initializers::variance_scaling(
            num("scale").unwrap(),
            args["mode"].as_str().unwrap(),
            args["distribution"].as_str().unwrap(),
        ),
        "glorot_normal" => initializers::glorot_normal(),
        "glorot_uniform" => initializers::glorot_uniform(),
        "lecun_normal" => initializers::lecun_normal(),
        "lecun_uniform" => initializers::lecun_uniform(),
        "he_normal" => initializers::he_normal(),
        "he_uniform" => initializers::he_uniform(),
        "xavier_normal" => initializers::xavier_normal(),
        "kaiming_uniform" => initializers::kaiming_uniform(),
        "orthogonal" => initializers::orthogonal(),
        "delta_orthogonal" => initializers::delta_orthogonal(),
        other => panic!("a case of an initializer the test does not know: {other}"),
    };
    let scaled = matches!(name, "uniform" | "orthogonal" | "delta_orthogonal");
    if let (true, Some(s)) = (scaled, num("scale")) {
        i = i.scale(s);
    }
    if let Some(a) = int("column_axis") {
        i = i.column_axis(a);
    }
    if let Some(s) = num("stddev") {
        i = i.stddev(s);
    }
    if let Some(v) = num("lower") {
        i = i.lower(v);
    }
    if let Some(v) = num("upper") {
        i = i.upper(v);
    }
    if let Some(a) = int("in_axis") {
        i = i.in_axis(a);
    }
    if let Some(a) = int("out_axis") {
        i = i.out_axis(a);
    }
    i
}

/// The drawn array against the fixture's: bit for bit, or within
/// `QR_TOL` for the initializers made by a QR.
#[track_caller]
fn check<A: ArrayType>(id: &str, got: &A, want: &Value) {
    if !id.contains("orthogonal") {
        return common::assert_matches(got, want);
    }
    let got: Vec<f64> = got
        .data()
        .iter()
        .map(|x| jax::Element::to_f64(*x))
        .collect();
    let want: Vec<f64> = want["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(got.len(), want.len(), "{id}: size");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= QR_TOL as f64 * w.abs().max(1.0),
            "{id}: element {k}: {g} against JAX's {w}"
        );
    }
}

#[test]
fn every_initializer_is_jaxs() {
    let mut checked = 0;
    for c in common::cases("nn_initializers") {
        let id = c["id"].as_str().unwrap().to_string();
        let init = initializer(&c);
        let shape: Vec<u64> = c["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        let key = random::key(0);
        let f16_case = c["args"].get("dtype").and_then(Value::as_str) == Some("float16");
        match (shape.as_slice(), f16_case) {
            ([3, 4], false) => check(&id, &init.init::<Array<f32, 3, 4>>(key), &c["value"]),
            ([3, 4], true) => check(&id, &init.init::<Array<f16, 3, 4>>(key), &c["value"]),
            ([3, 3, 2, 5], false) => {
                check(&id, &init.init::<Array<f32, 3, 3, 2, 5>>(key), &c["value"])
            }
            ([3, 4, 4], false) => check(&id, &init.init::<Array<f32, 3, 4, 4>>(key), &c["value"]),
            ([3, 3, 4, 4], false) => {
                check(&id, &init.init::<Array<f32, 3, 3, 4, 4>>(key), &c["value"])
            }
            other => panic!("{id}: a shape the test does not know: {other:?}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 50, "cases checked");
}

#[jax::jit]
mod jitted {
    use jax::nn::initializers;
    use jax::prelude::*;
    use jax::random::Key;

    /// A draw of each distribution and family, traced.
    pub fn draws(
        key: Key,
    ) -> (
        Array<f32, 3, 4>,
        Array<f32, 3, 3, 2, 5>,
        Array<f32, 3, 4>,
        Array<f32, 3, 3, 2, 5>,
        Array<f32, 3, 4>,
        Array<f32, 3, 4>,
        Array<f32, 3, 4>,
        Array<f32, 3, 3, 4, 4>,
    ) {
        let a: Array<f32, 3, 4> = initializers::glorot_normal().init(key);
        let b: Array<f32, 3, 3, 2, 5> = initializers::he_uniform().init(key);
        let c: Array<f32, 3, 4> = initializers::truncated_normal()
            .stddev(0.5)
            .lower(-1.0)
            .upper(3.0)
            .init(key);
        let d: Array<f32, 3, 3, 2, 5> = initializers::variance_scaling(1.0, "fan_in", "normal")
            .in_axis(1)
            .out_axis(0)
            .init(key);
        let e: Array<f32, 3, 4> = initializers::uniform().scale(2.0).init(key);
        let f: Array<f32, 3, 4> = initializers::constant(0.5).init(key);
        let g: Array<f32, 3, 4> = initializers::orthogonal()
            .scale(2.0)
            .column_axis(0)
            .init(key);
        let h: Array<f32, 3, 3, 4, 4> = initializers::delta_orthogonal().init(key);
        (a, b, c, d, e, f, g, h)
    }
}

#[test]
fn jitted_draws_are_jaxs() {
    let (a, b, c, d, e, f, g, h) = jitted::draws(random::key(0));
    let case = |id: &str| common::case("nn_initializers", id)["value"].clone();
    check("glorot_normal", &a, &case("glorot_normal/3x4"));
    check("he_uniform", &b, &case("he_uniform/3x3x2x5"));
    check(
        "truncated_normal",
        &c,
        &case("truncated_normal_0.5_-1_3/3x4"),
    );
    check(
        "variance_scaling",
        &d,
        &case("variance_scaling_fan_in_normal_axes_1_0/3x3x2x5"),
    );
    check("uniform", &e, &case("uniform_2.0/3x4"));
    check("constant", &f, &case("constant_0.5/3x4"));
    check("orthogonal", &g, &case("orthogonal_2.0_col0/3x4"));
    check("delta_orthogonal", &h, &case("delta_orthogonal/3x3x4x4"));
}

/// A mode JAX does not know is JAX's `ValueError`.
#[test]
#[should_panic(expected = "invalid mode for variance scaling initializer: fan_sum")]
fn an_unknown_mode_panics() {
    let _ = initializers::variance_scaling(1.0, "fan_sum", "normal");
}
