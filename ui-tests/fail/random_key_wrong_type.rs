// A key is a `jax::random::Key` (or its two `u32` words), not any array.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<u32, 3>) -> Array<f32, 3> {
    jax::random::uniform::<Array<f32, 3>>(x + 1)
}

fn main() {}
