//! Float division by a broadcast divisor, bit for bit as JAX computes it on
//! CPU (XLA multiplies by the reciprocal), eagerly and jitted
//! (tests/fixtures/division.json, made by tests/fixtures/gen/division.py).

use crate::common;
use common::{assert_matches, case};
use jax::prelude::*;

fn input<A: ArrayType<Elem = f32>>(v: &serde_json::Value) -> A {
    let bits = v["bits"].as_array().unwrap();
    let data: Vec<f32> = bits
        .iter()
        .map(|b| {
            f32::from_bits(
                u32::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap(),
            )
        })
        .collect();
    A::from_data(data)
}

#[jax::jit]
fn div_row(x: &Array<f32, 8, 3>, y: &Array<f32, 3>) -> Array<f32, 8, 3> {
    x / y
}

#[jax::jit]
fn div_col(x: &Array<f32, 8, 3>, y: &Array<f32, 8, 1>) -> Array<f32, 8, 3> {
    x / y
}

#[jax::jit]
fn div_same(x: &Array<f32, 8, 3>, y: &Array<f32, 8, 3>) -> Array<f32, 8, 3> {
    x / y
}

#[jax::jit]
fn div_literal(x: &Array<f32, 8, 3>) -> Array<f32, 8, 3> {
    x / 3.0
}

#[test]
fn broadcast_divisors_match_jax() {
    let c = case("division", "div_row");
    let (x, y): (Array<f32, 8, 3>, Array<f32, 3>) = (input(&c["x"]), input(&c["y"]));
    assert_matches(&div_row(&x, &y), &c["out"]);
    assert_matches(&(&x / &y), &c["out"]);

    let c = case("division", "div_col");
    let (x, y): (Array<f32, 8, 3>, Array<f32, 8, 1>) = (input(&c["x"]), input(&c["y"]));
    assert_matches(&div_col(&x, &y), &c["out"]);
    assert_matches(&(&x / &y), &c["out"]);

    let c = case("division", "div_same");
    let (x, y): (Array<f32, 8, 3>, Array<f32, 8, 3>) = (input(&c["x"]), input(&c["y"]));
    assert_matches(&div_same(&x, &y), &c["out"]);
    assert_matches(&(&x / &y), &c["out"]);

    let c = case("division", "div_literal_3");
    let x: Array<f32, 8, 3> = input(&c["x"]);
    assert_matches(&div_literal(&x), &c["out"]);
    assert_matches(&(&x / 3.0), &c["out"]);
}
