// The start indices of `lax::dynamic_slice` have one integer type, as JAX's.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 4, 5>, i: i32, j: Array<u8>) -> Array<f32, 2, 2> {
    lax::dynamic_slice(&x, &[i, j])
}

fn main() {}
