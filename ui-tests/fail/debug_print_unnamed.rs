use jax::prelude::*;

// A name in the format string must be an argument: the traced values are
// not Rust variables.
#[jax::jit]
fn f(x: &Array<f32, 3>) -> Array<f32, 3> {
    let y = x * 2.0;
    jax::debug::print!("y = {y}");
    y
}

fn main() {}
