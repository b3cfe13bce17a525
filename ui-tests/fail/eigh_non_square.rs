// eigh needs a square matrix: in jit a non-square one is a compile error at
// the call, with JAX's message.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::linalg::eigvalsh(&a)
}

fn main() {}
