//! `x ** c` for a constant exponent in `#[jax::jit]`, bit for bit with
//! JAX's jitted results (tests/fixtures/pow_constant.json, made by
//! tests/fixtures/gen/pow_constant.py): XLA's algebraic simplifier makes
//! `pow(x, 2)` `x * x`, `pow(x, 3)` `x * x * x`, `pow(x, -1)` `1 / x` and
//! `pow(x, 1)` `x`, and the gradient of `sum(x ** 2.0)` is `2 * x` exactly.

use crate::common::{array_arg, assert_matches, case};
use jax::prelude::*;

#[jax::jit]
fn square(x: &Array<f32, 64>) -> Array<f32, 64> {
    jnp::power(x, 2.0)
}

#[jax::jit]
fn cube(x: &Array<f32, 64>) -> Array<f32, 64> {
    jnp::power(x, 3.0)
}

#[jax::jit]
fn reciprocal(x: &Array<f32, 64>) -> Array<f32, 64> {
    jnp::power(x, -1.0)
}

#[jax::jit]
fn first(x: &Array<f32, 64>) -> Array<f32, 64> {
    jnp::power(x, 1.0)
}

#[jax::jit]
fn sum_of_squares(x: &Array<f32, 64>) -> Array<f32> {
    jnp::sum(jnp::power(x, 2.0))
}

#[test]
fn constant_exponents_are_xla_s_products() {
    for (name, f) in [
        ("pow_2.0", square as fn(&Array<f32, 64>) -> Array<f32, 64>),
        ("pow_3.0", cube),
        ("pow_-1.0", reciprocal),
        ("pow_1.0", first),
    ] {
        let c = case("pow_constant", name);
        let x: Array<f32, 64> = array_arg(&c["x"]);
        assert_matches(&f(&x), &c["want"]);
    }
    let c = case("pow_constant", "grad_sum_square");
    let x: Array<f32, 64> = array_arg(&c["x"]);
    assert_matches(&sum_of_squares::grad(&x), &c["want"]);
}
