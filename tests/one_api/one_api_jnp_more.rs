//! One API: `jnp::isclose`, `allclose`, `nan_to_num`, `kron`, `tensordot`,
//! `cross`, `atleast_2d`, `atleast_3d` and `column_stack`, jitted and eager, against
//! JAX's values (tests/fixtures/jnp_more.json, made by
//! tests/fixtures/gen/jnp_more.py): tolerance edges, equal and opposite
//! infinities, NaNs, integer operands promoted, ranks lifted.

use crate::common::linalg::close;
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
    let c = case("jnp_more", "isclose_f32");
    let (a, b): (Array<f32, 12>, Array<f32, 12>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&isclose_f32(&a, &b), &c["want"]);
    assert_matches(&jnp::isclose(&a, &b), &c["want"]);
    let c = case("jnp_more", "isclose_scalar");
    assert_matches(&isclose_scalar(&a), &c["want"]);
    assert_matches(&jnp::isclose(&a, 1.0), &c["want"]);
    let c = case("jnp_more", "isclose_int_f32");
    let (i, f): (Array<i32, 2, 3>, Array<f32, 2, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&isclose_int_f32(&i, &f), &c["want"]);
    assert_matches(&jnp::isclose(&i, &f), &c["want"]);
    let c = case("jnp_more", "allclose_f32");
    assert_matches(&allclose_f32(&a, &b), &c["want"]);
    assert_matches(&jnp::allclose(&a, &b), &c["want"]);
    let c = case("jnp_more", "allclose_near");
    let (x, y): (Array<f32, 2, 3>, Array<f32, 2, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&allclose_near(&x, &y), &c["want"]);
    assert_matches(&jnp::allclose(&x, &y), &c["want"]);
}

#[test]
fn nan_to_num_is_jaxs() {
    let c = case("jnp_more", "nan_to_num_f32");
    let x: Array<f32, 6> = array_arg(&c["x"]);
    assert_matches(&nan_to_num_f32(&x), &c["want"]);
    assert_matches(&jnp::nan_to_num(&x), &c["want"]);
    let c = case("jnp_more", "nan_to_num_i32");
    let i: Array<i32, 2, 3> = array_arg(&c["x"]);
    assert_matches(&nan_to_num_i32(&i), &c["want"]);
    assert_matches(&jnp::nan_to_num(&i), &c["want"]);
}

#[test]
fn kron_is_jaxs() {
    let c = case("jnp_more", "kron_f32");
    let (a, b): (Array<f32, 2, 3>, Array<f32, 2, 2>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&kron_f32(&a, &b), &c["want"]);
    assert_matches(&jnp::kron::<_, _, Array<f32, 4, 6>>(&a, &b), &c["want"]);
    let c = case("jnp_more", "kron_i32_lift");
    let (a, b): (Array<i32, 2, 2>, Array<i32, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&kron_i32_lift(&a, &b), &c["want"]);
    assert_matches(&jnp::kron::<_, _, Array<i32, 2, 6>>(&a, &b), &c["want"]);
    let c = case("jnp_more", "kron_f32_lift");
    let (a, b): (Array<f32, 3>, Array<f32, 2, 1>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&kron_f32_lift(&a, &b), &c["want"]);
    assert_matches(&jnp::kron::<_, _, Array<f32, 2, 3>>(&a, &b), &c["want"]);
}

#[jax::jit]
fn tensordot_2(a: &Array<f32, 2, 3, 4>, b: &Array<f32, 3, 4, 5>) -> Array<f32, 2, 5> {
    jnp::tensordot(a, b, 2)
}

#[jax::jit]
fn tensordot_1(a: &Array<i32, 2, 3>, b: &Array<f32, 3, 2>) -> Array<f32, 2, 2> {
    jnp::tensordot(a, b, 1)
}

#[jax::jit]
fn tensordot_0(a: &Array<f32, 3>, b: &Array<f32, 2, 2>) -> Array<f32, 3, 2, 2> {
    jnp::tensordot(a, b, 0)
}

#[jax::jit]
fn atleast_2d_scalar(x: &Array<f32>) -> Array<f32, 1, 1> {
    jnp::atleast_2d(x)
}

#[jax::jit]
fn atleast_2d_vector(x: &Array<f32, 3>) -> Array<f32, 1, 3> {
    jnp::atleast_2d(x)
}

#[jax::jit]
fn atleast_3d_vector(x: &Array<f32, 3>) -> Array<f32, 1, 3, 1> {
    jnp::atleast_3d(x)
}

#[jax::jit]
fn atleast_3d_matrix(x: &Array<f32, 2, 3>) -> Array<f32, 2, 3, 1> {
    jnp::atleast_3d(x)
}

#[jax::jit]
fn column_stack(a: &Array<f32, 3>, b: &Array<f32, 3, 2>, c: &Array<f32, 3>) -> Array<f32, 3, 4> {
    jnp::column_stack((a, b, c))
}

/// A contraction sums in its own order: within 1e-6 of JAX's (XLA's dot
/// sums in another), and jitted = eager bit for bit.
#[test]
fn tensordot_is_jaxs() {
    let c = case("jnp_more", "tensordot_2");
    let (a, b): (Array<f32, 2, 3, 4>, Array<f32, 3, 4, 5>) =
        (array_arg(&c["a"]), array_arg(&c["b"]));
    let jit = tensordot_2(&a, &b);
    close("tensordot axes=2", &jit, &c["want"], 1e-6);
    assert_eq!(
        jit.to_vec(),
        jnp::tensordot::<_, _, Array<f32, 2, 5>>(&a, &b, 2).to_vec()
    );
    let c = case("jnp_more", "tensordot_1_i32_f32");
    let (a, b): (Array<i32, 2, 3>, Array<f32, 3, 2>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    let jit = tensordot_1(&a, &b);
    close("tensordot axes=1", &jit, &c["want"], 1e-6);
    assert_eq!(
        jit.to_vec(),
        jnp::tensordot::<_, _, Array<f32, 2, 2>>(&a, &b, 1).to_vec()
    );
    let c = case("jnp_more", "tensordot_0");
    let (a, b): (Array<f32, 3>, Array<f32, 2, 2>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&tensordot_0(&a, &b), &c["want"]);
    assert_matches(
        &jnp::tensordot::<_, _, Array<f32, 3, 2, 2>>(&a, &b, 0),
        &c["want"],
    );
}

#[test]
fn atleast_2d_3d_and_column_stack_are_jaxs() {
    let c = case("jnp_more", "atleast_2d_scalar");
    let s: Array<f32> = array_arg(&c["x"]);
    assert_matches(&atleast_2d_scalar(&s), &c["want"]);
    assert_matches(&jnp::atleast_2d::<Array<f32, 1, 1>, _>(&s), &c["want"]);
    let c = case("jnp_more", "atleast_2d_vector");
    let v: Array<f32, 3> = array_arg(&c["x"]);
    assert_matches(&atleast_2d_vector(&v), &c["want"]);
    assert_matches(&jnp::atleast_2d::<Array<f32, 1, 3>, _>(&v), &c["want"]);
    let c = case("jnp_more", "atleast_3d_vector");
    assert_matches(&atleast_3d_vector(&v), &c["want"]);
    assert_matches(&jnp::atleast_3d::<Array<f32, 1, 3, 1>, _>(&v), &c["want"]);
    let c = case("jnp_more", "atleast_3d_matrix");
    let m: Array<f32, 2, 3> = array_arg(&c["x"]);
    assert_matches(&atleast_3d_matrix(&m), &c["want"]);
    assert_matches(&jnp::atleast_3d::<Array<f32, 2, 3, 1>, _>(&m), &c["want"]);
    let c = case("jnp_more", "column_stack");
    let (a, b, cc): (Array<f32, 3>, Array<f32, 3, 2>, Array<f32, 3>) =
        (array_arg(&c["a"]), array_arg(&c["b"]), array_arg(&c["c"]));
    assert_matches(&column_stack(&a, &b, &cc), &c["want"]);
    assert_matches(
        &jnp::column_stack::<Array<f32, 3, 4>, _>((&a, &b, &cc)),
        &c["want"],
    );
}

#[jax::jit]
fn cross_3(a: &Array<f32, 3>, b: &Array<f32, 3>) -> Array<f32, 3> {
    jnp::cross(a, b)
}

#[jax::jit]
fn cross_batched(a: &Array<f32, 4, 3>, b: &Array<f32, 3>) -> Array<f32, 4, 3> {
    jnp::cross(a, b)
}

#[jax::jit]
fn cross_2(a: &Array<f32, 2>, b: &Array<f32, 2>) -> Array<f32> {
    jnp::cross(a, b)
}

#[jax::jit]
fn cross_2_3(a: &Array<f32, 2>, b: &Array<f32, 3>) -> Array<f32, 3> {
    jnp::cross(a, b)
}

#[jax::jit]
fn cross_i32(a: &Array<i32, 2, 3>, b: &Array<i32, 2, 3>) -> Array<i32, 2, 3> {
    jnp::cross(a, b)
}

#[test]
fn cross_is_jaxs() {
    let c = case("jnp_more", "cross_3");
    let (a, b): (Array<f32, 3>, Array<f32, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&cross_3(&a, &b), &c["want"]);
    assert_matches(&jnp::cross::<_, _, Array<f32, 3>>(&a, &b), &c["want"]);
    let c = case("jnp_more", "cross_batched");
    let (a, b): (Array<f32, 4, 3>, Array<f32, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&cross_batched(&a, &b), &c["want"]);
    assert_matches(&jnp::cross::<_, _, Array<f32, 4, 3>>(&a, &b), &c["want"]);
    let c = case("jnp_more", "cross_2");
    let (a, b): (Array<f32, 2>, Array<f32, 2>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&cross_2(&a, &b), &c["want"]);
    assert_matches(&jnp::cross::<_, _, Array<f32>>(&a, &b), &c["want"]);
    let c = case("jnp_more", "cross_2_3");
    let (a, b): (Array<f32, 2>, Array<f32, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&cross_2_3(&a, &b), &c["want"]);
    assert_matches(&jnp::cross::<_, _, Array<f32, 3>>(&a, &b), &c["want"]);
    let c = case("jnp_more", "cross_i32");
    let (a, b): (Array<i32, 2, 3>, Array<i32, 2, 3>) = (array_arg(&c["a"]), array_arg(&c["b"]));
    assert_matches(&cross_i32(&a, &b), &c["want"]);
    assert_matches(&jnp::cross::<_, _, Array<i32, 2, 3>>(&a, &b), &c["want"]);
}
