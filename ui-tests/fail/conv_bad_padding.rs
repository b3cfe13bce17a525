// An unknown padding string: JAX's message, at the padding argument.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 1, 1, 8, 8>, w: Array<f32, 1, 1, 3, 3>) -> Array<f32, 1, 1, 8, 8> {
    lax::conv(&x, &w, &[1, 1], "FULL")
}

fn main() {}
