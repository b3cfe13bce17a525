// `random::choice_rows` with replacement gathers rows at random indices:
// not in jit yet.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key, x: &Array<f32, 5, 2>) -> Array<f32, 3, 2> {
    jax::random::choice_rows(k, x, true)
}

fn main() {}
