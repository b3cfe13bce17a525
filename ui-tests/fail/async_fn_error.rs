// Unsupported Rust: `async fn`.
use jax::prelude::*;

#[jax::jit]
async fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    x
}

fn main() {}
