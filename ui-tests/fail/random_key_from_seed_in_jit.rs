// A key from a Rust integer is made outside and passed in.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 3>) -> Array<f32, 3> {
    x + jax::random::normal::<Array<f32, 3>>(jax::random::key(0))
}

fn main() {}
