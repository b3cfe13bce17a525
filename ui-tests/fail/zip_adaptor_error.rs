// Iterator adaptors: `.zip()`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>, y: Array<f32, 3>) -> Array<f32, 3> {
    x.zip(y)
}

fn main() {}
