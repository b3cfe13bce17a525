// A Rust array literal becomes an array explicitly, as JAX requires for lists.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<i32>) -> Array<i32> {
    jnp::sum([1, 2, 3]) + x
}

fn main() {}
