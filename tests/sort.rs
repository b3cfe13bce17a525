//! Sorting in jit and eagerly against JAX (tests/fixtures/sort.json, made
//! by tests/fixtures/gen/sort.py).

use jax::prelude::*;

#[jax::jit]
fn sort_rows(x: &Array<f32, 2, 4>) -> Array<f32, 2, 4> {
    jnp::sort(x, 1)
}

#[jax::jit]
fn argsort_cols(x: &Array<f32, 2, 4>) -> Array<i32, 2, 4> {
    jnp::argsort(x, 0)
}

#[jax::jit]
fn weighted_sorted(x: &Array<f32, 4>) -> Array<f32> {
    let w = jnp::array([1.0f32, 2.0, 3.0, 4.0]);
    jnp::sum(jnp::sort(x, 0) * w)
}

#[test]
fn smoke() {
    let x = Array::<f32, 2, 4>::from([[3.0, f32::NAN, -0.0, 0.0], [1.0, 0.5, 2.0, -1.0]]);
    let s = sort_rows(&x);
    assert_eq!(s.to_vec()[4..], [-1.0, 0.5, 1.0, 2.0]);
    assert_eq!(argsort_cols(&x).to_vec(), [1, 1, 0, 1, 0, 0, 1, 0]);
    let v = Array::<f32, 4>::from([3.0, 1.0, 4.0, 2.0]);
    assert_eq!(weighted_sorted::grad(&v).to_vec(), [3.0, 1.0, 4.0, 2.0]);
    println!("{}", sort_rows::jaxpr());
    println!("{}", argsort_cols::jaxpr());
}
