// `jnp::linalg::inv` of a non-square matrix in jit: a compile error at the
// call with JAX's message.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::linalg::inv(&a)
}

fn main() {}
