// Unsupported Rust: `impl Trait` parameters.
use jax::prelude::*;

#[jax::jit]
fn f(x: impl Into<f32>) -> Array<f32> {
    x
}

fn main() {}
