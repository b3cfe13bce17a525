// A sample's shape and dtype come from its type, which must be written.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key) -> Array<f32, 3> {
    let z = jax::random::normal(k);
    z
}

fn main() {}
