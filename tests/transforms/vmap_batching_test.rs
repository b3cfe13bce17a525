//! The cases of JAX's own `tests/batching_test.py` that this syntax can
//! express, against the values JAX 0.10.2 computes for them
//! (`tests/fixtures/vmap_batching_test.json`, made by
//! `tests/fixtures/gen/vmap_batching_test.py`). Not expressible here: the
//! cases on `lax.rev`, `lax.pad`, `lax.sort`, `lax.dot_general` with explicit
//! dimension numbers, convolutions, batched gather indices and vmapped key
//! construction.

use crate::common;

use jax::prelude::*;
use jax::{ArrayType, DefaultInt};
use serde_json::Value;

fn arg<A: ArrayType>(case: &Value, k: usize) -> A {
    let v = &case["args"][k];
    A::from_data(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| match d {
                Value::Bool(b) => A::Elem::from_f64(*b as u8 as f64),
                d => A::Elem::from_f64(d.as_f64().unwrap()),
            })
            .collect(),
    )
}

/// Within `ulps` units in the last place of JAX's float32 values.
#[track_caller]
fn close<A: ArrayType<Elem = f32>>(got: &A, want: &Value, ulps: f32) {
    let data = want["data"].as_array().unwrap();
    assert_eq!(got.data().len(), data.len(), "size");
    let scale = data
        .iter()
        .map(|w| w.as_f64().unwrap().abs() as f32)
        .fold(0.0f32, f32::max);
    for (i, (g, w)) in got.data().iter().zip(data).enumerate() {
        let w = w.as_f64().unwrap() as f32;
        // Sums in another order: relative to the largest element.
        assert!(
            (g - w).abs() <= ulps * f32::EPSILON * scale.max(1e-30),
            "element {i}: got {g}, JAX {w}"
        );
    }
}

#[jax::jit]
fn constant_function(x: &Array<f32, 4>) -> Array<DefaultInt, 4> {
    jax::vmap(|_x| 3)(x)
}

#[jax::jit]
fn nested_batching_mat_mat(a: &Array<f32, 4, 3>, b: &Array<f32, 3, 2>) -> Array<f32, 4, 2> {
    jax::vmap(jax::vmap(jnp::dot, (0, None)), (None, 1), 1)(a, b)
}

#[jax::jit]
fn np_maximum(x: &Array<f32, 10, 5, 3, 7>) -> Array<f32, 10, 5, 3, 7> {
    jax::vmap(|x| jnp::maximum(x, 0.0))(x)
}

#[jax::jit]
fn np_greater_than(x: &Array<f32, 10, 5, 3, 7>) -> Array<bool, 10, 5, 3, 7> {
    jax::vmap(|x| jnp::greater(x, 1.0))(x)
}

#[jax::jit]
fn np_maximum_per_example_grad(
    w: &Array<f32, 5, 5>,
    x: &Array<f32, 10, 5>,
) -> Array<f32, 10, 5, 5> {
    jax::vmap(|x| jax::grad(|w| jnp::sum(jnp::power(jnp::maximum(jnp::dot(x, w), 0.0), 2)))(w))(x)
}

#[jax::jit]
fn dot2(x: &Array<f32, 10, 3>, y: &Array<f32, 10, 3>) -> Array<f32, 10> {
    jax::vmap(jnp::dot)(x, y)
}

#[jax::jit]
fn dot3(x: &Array<f32, 5, 8, 10>, y: &Array<f32, 10, 1>) -> Array<f32, 8, 5, 1> {
    jax::vmap(jnp::dot, (1, None))(x, y)
}

#[jax::jit]
fn dot4(x: &Array<f32, 3, 2>, y: &Array<f32, 3>) -> Array<f32, 2> {
    jax::vmap(jnp::dot, (1, None))(x, y)
}

#[jax::jit]
fn jacobians_reverse(
    a: &Array<f32, 4, 3>,
    b: &Array<f32, 4>,
    x: &Array<f32, 3>,
    basis: &Array<f32, 4, 4>,
) -> Array<f32, 3, 4> {
    let (_y, pullback) = jax::vjp(|x| jnp::tanh(jnp::dot(a, x) + b), x);
    let (jac,) = jax::vmap(pullback, 0, 1)(basis);
    jac
}

#[jax::jit]
fn jacobians_forward(
    a: &Array<f32, 4, 3>,
    b: &Array<f32, 4>,
    x: &Array<f32, 3>,
    basis: &Array<f32, 3, 3>,
) -> Array<f32, 4, 3> {
    let pushfwd = |v| jax::jvp(|x| jnp::tanh(jnp::dot(a, x) + b), (x,), (v,));
    let (_y, jac) = jax::vmap(pushfwd, 0, (None, 1))(basis);
    jac
}

#[jax::jit]
fn any(x: &Array<bool, 2, 2>) -> Array<bool, 2> {
    jax::vmap(jnp::any)(x)
}

#[jax::jit]
fn hessian(x: &Array<f32, 5>) -> Array<f32, 5, 5> {
    jax::hessian(|x| jnp::sum(jnp::power(jnp::maximum(x, 0.0), 2)) + 0.0)(x)
}

#[jax::jit]
fn dynamic_slice_unbatched_index(x: &Array<f32, 10, 3>, i: i32) -> Array<f32, 10> {
    jax::vmap(|x, i| x.at(i).get(), (0, None))(x, i)
}

fn case(name: &str) -> Value {
    common::case("vmap_batching_test", name)
}

#[test]
fn constant_nested_elementwise_and_comparisons() {
    let c = case("constant_function");
    let got = constant_function(&arg(&c, 0));
    assert_eq!(got.to_vec(), vec![3 as DefaultInt; 4]);
    let c = case("nested_batching_mat_mat");
    close(
        &nested_batching_mat_mat(&arg(&c, 0), &arg(&c, 1)),
        &c["output"],
        4.0,
    );
    let c = case("np_maximum");
    common::assert_matches(&np_maximum(&arg(&c, 0)), &c["output"]);
    let c = case("np_greater_than");
    let got = np_greater_than(&arg(&c, 0));
    let want: Vec<bool> = c["output"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_bool().unwrap())
        .collect();
    assert_eq!(got.to_vec(), want);
    let c = case("any");
    let got = any(&arg(&c, 0));
    assert_eq!(got.to_vec(), vec![true, false]);
}

#[test]
fn dots() {
    let c = case("dot2");
    close(&dot2(&arg(&c, 0), &arg(&c, 1)), &c["output"], 4.0);
    let c = case("dot3");
    close(&dot3(&arg(&c, 0), &arg(&c, 1)), &c["output"], 8.0);
    let c = case("dot4");
    close(&dot4(&arg(&c, 0), &arg(&c, 1)), &c["output"], 4.0);
}

#[test]
fn derivatives() {
    let c = case("np_maximum_per_example_grad");
    close(
        &np_maximum_per_example_grad(&arg(&c, 0), &arg(&c, 1)),
        &c["output"],
        8.0,
    );
    let c = case("jacobians_reverse");
    close(
        &jacobians_reverse(&arg(&c, 0), &arg(&c, 1), &arg(&c, 2), &arg(&c, 3)),
        &c["output"],
        8.0,
    );
    let c = case("jacobians_forward");
    close(
        &jacobians_forward(&arg(&c, 0), &arg(&c, 1), &arg(&c, 2), &arg(&c, 3)),
        &c["output"],
        8.0,
    );
    let c = case("hessian");
    close(&hessian(&arg(&c, 0)), &c["output"], 2.0);
}

#[test]
fn dynamic_slice() {
    let c = case("dynamic_slice_unbatched_index");
    common::assert_matches(&dynamic_slice_unbatched_index(&arg(&c, 0), 1), &c["output"]);
}
