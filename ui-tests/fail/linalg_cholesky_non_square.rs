// Cholesky of a non-square matrix in jit: a compile error at the call, with
// JAX's message (eagerly, the same shape is a panic).
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 3, 2>) -> Array<f32, 3, 2> {
    jnp::linalg::cholesky(&a)
}

fn main() {}
