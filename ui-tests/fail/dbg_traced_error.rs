// Side effects: `dbg!`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    dbg!(x)
}

fn main() {}
