// normal samples floats.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key) -> Array<i32, 3> {
    jax::random::normal::<Array<i32, 3>>(k)
}

fn main() {}
