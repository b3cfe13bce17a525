//! One API (jit = eager) for the gathers along an axis: `jnp::take` and
//! `jnp::take_along_axis`, jitted against the eager call on the same inputs,
//! with float and integer arrays and out-of-bounds and negative indices.

use jax::prelude::*;

#[jax::jit]
fn take_f32(x: Array<f32, 4, 3>, i: Array<i32, 2, 2>) -> Array<f32, 4, 2, 2> {
    jnp::take(x, i, -1)
}

#[jax::jit]
fn take_i32(x: Array<i32, 4, 3>, i: Array<i32, 5>) -> Array<i32, 5, 3> {
    jnp::take(x, i, 0)
}

#[jax::jit]
fn take_along_axis_f32(x: Array<f32, 4, 3>, i: Array<i32, 4, 2>) -> Array<f32, 4, 2> {
    jnp::take_along_axis(x, i, 1)
}

#[jax::jit]
fn take_along_axis_i32(x: Array<i32, 4, 3>, i: Array<i32, 2, 3>) -> Array<i32, 2, 3> {
    jnp::take_along_axis(x, i, 0)
}

fn bits<T: jax::Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

#[test]
fn take_jit_equals_eager() {
    let x = Array::<f32, 4, 3>::from_data((0..12).map(|v| v as f32 * 0.5 - 2.0).collect());
    let i = Array::<i32, 2, 2>::from([[2, -1], [3, -4]]);
    let want: Array<f32, 4, 2, 2> = jnp::take(&x, &i, -1);
    assert_eq!(
        bits(&take_f32(x.clone(), i.clone()).to_vec()),
        bits(&want.to_vec())
    );
    let xi = Array::<i32, 4, 3>::from_data((0..12).map(|v| v * 3 - 7).collect());
    let i = Array::<i32, 5>::from([0, 3, -1, 4, -5]);
    let want: Array<i32, 5, 3> = jnp::take(&xi, &i, 0);
    assert_eq!(take_i32(xi, i).to_vec(), want.to_vec());
}

#[test]
fn take_along_axis_jit_equals_eager() {
    let x = Array::<f32, 4, 3>::from_data((0..12).map(|v| v as f32 * 0.5 - 2.0).collect());
    let i = Array::<i32, 4, 2>::from([[0, 2], [-1, 1], [3, 0], [2, -4]]);
    let want: Array<f32, 4, 2> = jnp::take_along_axis(&x, &i, 1);
    let got = take_along_axis_f32(x, i);
    assert_eq!(bits(&got.to_vec()), bits(&want.to_vec()));
    let xi = Array::<i32, 4, 3>::from_data((0..12).map(|v| v * 3 - 7).collect());
    let i = Array::<i32, 2, 3>::from([[0, 3, -1], [4, 1, 2]]);
    let want: Array<i32, 2, 3> = jnp::take_along_axis(&xi, &i, 0);
    assert_eq!(take_along_axis_i32(xi, i).to_vec(), want.to_vec());
}
