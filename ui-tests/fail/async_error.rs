// Unsupported Rust: `async`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    let _a = async { 1 };
    x
}

fn main() {}
