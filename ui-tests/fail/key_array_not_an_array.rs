// A Rust array of keys is not one array: the message says what maps over
// it, indexes it and stacks it.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key) -> Array<u32> {
    let ks: [Key; 3] = jax::random::split(k);
    jnp::sum(ks)
}

fn main() {}
