// A function the compiler cannot see.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    helper(x)
}

#[allow(dead_code)]
fn helper(x: Array<f32, 3>) -> Array<f32, 3> {
    x
}

fn main() {}
