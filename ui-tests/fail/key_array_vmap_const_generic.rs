// Sampling under vmap over a const-generic number of keys: the count must
// be one the compiler sees.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f<const N: usize>(k: Key) -> Array<f32, N, 2> {
    let ks: [Key; N] = jax::random::split(k);
    jax::vmap(|k| jax::random::normal::<Array<f32, 2>>(k), 0, 0, None)(ks)
}

fn main() {}
