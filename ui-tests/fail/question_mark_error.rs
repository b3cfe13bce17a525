// Unsupported Rust: `?`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    let y = Some(x)?;
    y
}

fn main() {}
