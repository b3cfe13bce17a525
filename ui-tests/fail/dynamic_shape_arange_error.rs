// Seed: `jnp.arange(n)` with a traced n would have a dynamic shape.
use jax::prelude::*;

#[jax::jit]
fn f(n: Array<i32>) -> Array<i32, 3> {
    jnp::arange(n)
}

fn main() {}
