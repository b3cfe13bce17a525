// `random::permutation` sorts by random bits: not in jit yet.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key) -> Array<i32, 5> {
    jax::random::permutation::<Array<i32, 5>>(k)
}

fn main() {}
