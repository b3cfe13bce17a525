// A key is a parameter, not a value computed in the body.
use jax::prelude::*;


#[jax::jit]
fn f(x: Array<u32, 2>) -> Array<f32, 3> {
    jax::random::uniform::<Array<f32, 3>>(x + 1)
}

fn main() {}
