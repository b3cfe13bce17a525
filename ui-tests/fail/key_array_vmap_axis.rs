// A Rust array of keys has one axis (JAX's key array of shape (N,)).
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key) -> Array<f32, 2, 4> {
    let ks = jax::random::split::<4>(k);
    jax::vmap(|k| jax::random::normal::<Array<f32, 2>>(k), 1, 1, None)(ks)
}

fn main() {}
