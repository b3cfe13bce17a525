// JAX: "zero-size array to reduction operation max which has no identity".
// The shape is static, so it is an error when the function compiles.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 3, 0>) -> Array<f32, 3> {
    jnp::max(x, 1, false)
}

#[jax::jit]
fn g(x: &Array<f32, 0>) -> Array<f32> {
    jnp::min(x)
}

#[jax::jit]
fn h(x: &Array<f32, 2, 0>) -> Array<i32, 2> {
    jnp::argmax(x, 1)
}

fn main() {}
