//! One API: `jnp::isclose`, `allclose`, `nan_to_num` and `kron`, jitted and eager,
//! against JAX's values (tests/fixtures/close.json, made by
//! tests/fixtures/gen/close.py): tolerance edges, equal and opposite
//! infinities, NaNs, integer operands promoted, ranks lifted.

use crate::common::{array_arg, assert_matches, case};
use jax::prelude::*;

#[jax::jit]
fn isclose_f32(a: &Array<f32, 12>, b: &Array<f32, 12>) -> Array<bool, 12> {
    jnp::isclose(a, b)
}

#[jax::jit]
fn isclose_scalar(a: &Array<f32, 12>) -> Array<bool, 12> {
    jnp::isclose(a, 1.0)
}

#[jax::jit]
fn isclose_int_f32(a: &Array<i32, 2, 3>, b: &Array<f32, 2, 3>) -> Array<bool, 2, 3> {
    jnp::isclose(a, b)
}

#[jax::jit]
fn allclose_f32(a: &Array<f32, 12>, b: &Array<f32, 12>) -> Array<bool> {
    jnp::allclose(a, b)
}

#[jax::jit]
fn allclose_near(a: &Array<f32, 2, 3>, b: &Array<f32, 2, 3>) -> Array<bool> {
    jnp::allclose(a, b)
}

#[jax::jit]
fn nan_to_num_f32(x: &Array<f32, 6>) -> Array<f32, 6> {
    jnp::nan_to_num(x)
}

#[jax::jit]
fn nan_to_num_i32(x: &Array<i32, 2, 3>) -> Array<i32, 2, 3> {
    jnp::nan_to_num(x)
}

#[jax::jit]
fn kron_f32(a: &Array<f32, 2, 3>, b: &Array<f32, 2, 2>) -> Array<f32, 4, 6> {
    jnp::kron(a, b)
}

#[jax::jit]
fn kron_i32_lift(a: &Array<i32, 2, 2>, b: &Array<i32, 3>) -> Array<i32, 2, 6> {
    jnp::kron(a, b)
}

#[jax::jit]
fn kron_f32_lift(a: &Array<f32, 3>, b: &Array<f32, 2, 1>) -> Array<f32, 2, 3> {
    jnp::kron(a, b)
}

#[test]
fn isclose_and_allclose_are_jaxs() {
    let c = case("close", "isclose_f32");
    let (a, b): (Array<f32, 12>, Array<f32, 12>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&isclose_f32(&a, &b), &c["want"]);
    assert_matches(&jnp::isclose(&a, &b), &c["want"]);
    let c = case("close", "isclose_scalar");
    assert_matches(&isclose_scalar(&a), &c["want"]);
    assert_matches(&jnp::isclose(&a, 1.0), &c["want"]);
    let c = case("close", "isclose_int_f32");
    let (i, f): (Array<i32, 2, 3>, Array<f32, 2, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&isclose_int_f32(&i, &f), &c["want"]);
    assert_matches(&jnp::isclose(&i, &f), &c["want"]);
    let c = case("close", "allclose_f32");
    assert_matches(&allclose_f32(&a, &b), &c["want"]);
    assert_matches(&jnp::allclose(&a, &b), &c["want"]);
    let c = case("close", "allclose_near");
    let (x, y): (Array<f32, 2, 3>, Array<f32, 2, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&allclose_near(&x, &y), &c["want"]);
    assert_matches(&jnp::allclose(&x, &y), &c["want"]);
}

#[test]
fn nan_to_num_is_jaxs() {
    let c = case("close", "nan_to_num_f32");
    let x: Array<f32, 6> = array_arg(&c["x"]);
    assert_matches(&nan_to_num_f32(&x), &c["want"]);
    assert_matches(&jnp::nan_to_num(&x), &c["want"]);
    let c = case("close", "nan_to_num_i32");
    let i: Array<i32, 2, 3> = array_arg(&c["x"]);
    assert_matches(&nan_to_num_i32(&i), &c["want"]);
    assert_matches(&jnp::nan_to_num(&i), &c["want"]);
}

#[test]
fn kron_is_jaxs() {
    let c = case("close", "kron_f32");
    let (a, b): (Array<f32, 2, 3>, Array<f32, 2, 2>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&kron_f32(&a, &b), &c["want"]);
    assert_matches(&jnp::kron::<_, _, Array<f32, 4, 6>>(&a, &b), &c["want"]);
    let c = case("close", "kron_i32_lift");
    let (a, b): (Array<i32, 2, 2>, Array<i32, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&kron_i32_lift(&a, &b), &c["want"]);
    assert_matches(&jnp::kron::<_, _, Array<i32, 2, 6>>(&a, &b), &c["want"]);
    let c = case("close", "kron_f32_lift");
    let (a, b): (Array<f32, 3>, Array<f32, 2, 1>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&kron_f32_lift(&a, &b), &c["want"]);
    assert_matches(&jnp::kron::<_, _, Array<f32, 2, 3>>(&a, &b), &c["want"]);
}
