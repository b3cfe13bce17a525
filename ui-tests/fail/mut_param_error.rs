// `mut` parameters would suggest in-place updates.
use jax::prelude::*;

#[jax::jit]
fn f(mut x: Array<f32, 3>) -> Array<f32, 3> {
    x
}

fn main() {}
