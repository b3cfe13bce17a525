// Unsupported Rust: `return`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    return x;
}

fn main() {}
