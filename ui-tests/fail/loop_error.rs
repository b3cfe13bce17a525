// Unsupported Rust: `loop`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    loop {
        break;
    }
    x
}

fn main() {}
