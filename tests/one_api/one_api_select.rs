//! One API: `jnp::select` and `jnp::stack`, jitted, equal their eager calls
//! on the same inputs (JAX's values are checked in tests/numpy/select.rs).

use jax::prelude::*;

#[jax::jit]
fn select_f32(x: &Array<f32, 2, 5>) -> Array<f32, 2, 5> {
    jnp::select(
        [
            jnp::less(x, -0.5),
            jnp::greater(x, 0.5),
            jnp::greater(x, 0.0),
        ],
        [x * 2.0, jnp::exp(x), x + 10.0],
        -1.0,
    )
}

#[jax::jit]
fn stack_i32(
    a: &Array<i32, 2, 3>,
    b: &Array<i32, 2, 3>,
) -> (Array<i32, 2, 2, 3>, Array<i32, 2, 3, 2>) {
    (jnp::stack([a, b], 1), jnp::stack([a, b], -1))
}

#[test]
fn select_and_stack_jitted_equal_eager() {
    let x = Array::<f32, 2, 5>::from_fn(|i| i as f32 * 0.25 - 1.1);
    let eager: Array<f32, 2, 5> = jnp::select(
        &[
            jnp::less(&x, -0.5),
            jnp::greater(&x, 0.5),
            jnp::greater(&x, 0.0),
        ],
        &[&x * 2.0, jnp::exp(&x), &x + 10.0],
        -1.0,
    );
    assert_eq!(select_f32(&x).to_vec(), eager.to_vec());
    let a = Array::<i32, 2, 3>::from_fn(|i| i as i32);
    let b = Array::<i32, 2, 3>::from_fn(|i| 10 - i as i32);
    let (s1, s2) = stack_i32(&a, &b);
    let e1: Array<i32, 2, 2, 3> = jnp::stack(&[&a, &b], 1);
    let e2: Array<i32, 2, 3, 2> = jnp::stack(&[&a, &b], -1);
    assert_eq!(s1.to_vec(), e1.to_vec());
    assert_eq!(s2.to_vec(), e2.to_vec());
}
