// `random::normal_like(k, &x)` draws floats in `x`'s shape and dtype: an
// integer array has no float dtype to draw in.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key, x: &Array<i32, 3>) -> Array<i32, 3> {
    jax::random::normal_like(k, x)
}

fn main() {}
