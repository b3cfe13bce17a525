// Seed: `func11` traced with an iterator for `arr`; in Rust the iterator never becomes an array.
use jax::prelude::*;

#[jax::jit]
fn func11(arr: Array<f32, 16>, extra: Array<f32>) -> (Array<f32>, Array<f32, 16>) {
    let ones = jnp::ones_like(arr);
    let body = |carry: Array<f32>, (ae1, ae2): (Array<f32>, Array<f32>)| (carry + ae1 * ae2 + extra, carry);
    lax::scan(body, 0.0, (arr.iter(), ones))
}

fn main() {}
