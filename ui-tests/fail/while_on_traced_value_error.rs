// Seed: `while` on a traced value; the fix is lax::while_loop.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32>) -> Array<f32> {
    let mut y = x;
    while y < 10.0 {
        y = y * 2.0;
    }
    y
}

fn main() {}
