// Seed: `jnp.sum([1, 2, 3])`: a Rust Vec is not an array.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<i32>) -> Array<i32> {
    jnp::sum(vec![1, 2, 3]) + x
}

fn main() {}
