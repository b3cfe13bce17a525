// pinv needs a matrix (or a batch of them): a rank-1 array is a compile
// error at the call in jit.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 3>) -> Array<f32, 3> {
    jnp::linalg::pinv(&a)
}

fn main() {}
