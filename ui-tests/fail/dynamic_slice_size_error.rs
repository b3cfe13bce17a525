// Seed: a slice bound from a traced value would have a dynamic shape.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 5>, n: Array<i32>) -> Array<f32, 2> {
    x.slice(s![..n])
}

fn main() {}
