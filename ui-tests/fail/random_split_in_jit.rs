// Keys are made outside the jitted function and passed in.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key) -> Array<f32, 3> {
    let ks = jax::random::split(k);
    jax::random::normal::<Array<f32, 3>>(ks)
}

fn main() {}
