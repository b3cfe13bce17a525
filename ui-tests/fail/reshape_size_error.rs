// A reshape keeps the number of elements.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 6>) -> Array<f32, 4, 2> {
    x.reshape()
}

fn main() {}
