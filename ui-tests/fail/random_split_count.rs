// `random::split` in a body takes its count from the pattern or the type,
// as the eager function's `N`.
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn f(k: Key) -> Array<f32, 3> {
    let ks = jax::random::split(k);
    jax::random::normal::<Array<f32, 3>>(ks)
}

fn main() {}
