// Seed: JAX silently gives 0 here (the iterator is consumed once, at trace time); in Rust it is a compile error.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<i32>) -> Array<i32> {
    let mut iterator = (0..10).into_iter();
    lax::fori_loop(0, 10, |_i, x| x + iterator.next().unwrap(), x)
}

fn main() {}
