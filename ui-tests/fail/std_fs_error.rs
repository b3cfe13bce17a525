// Side effects: reading a file.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    let _s = std::fs::read_to_string("scale.txt");
    x
}

fn main() {}
