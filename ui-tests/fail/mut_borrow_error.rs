// Writes through `&mut`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    let _y = &mut x;
    x
}

fn main() {}
