// Side effects: `println!` would not print per call; jax::debug::print! does.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    println!("{:?}", x);
    x
}

fn main() {}
