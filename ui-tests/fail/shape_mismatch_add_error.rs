// Shapes that do not broadcast are a compile error naming both types.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3, 4>, y: Array<f32, 5>) -> Array<f32, 3, 4> {
    x + y
}

fn main() {}
