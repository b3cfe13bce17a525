// `lax::top_k` with k larger than the last axis: JAX's error, at the call.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 2, 3>) -> (Array<f32, 2, 5>, Array<i32, 2, 5>) {
    lax::top_k(x, 5)
}

fn main() {}
