// `tree::map` over trees of different structures: JAX's message, at the
// tree that differs.
use jax::prelude::*;

#[jax::jit]
fn step(
    p: (Array<f32, 3>, Array<f32>),
    g: (Array<f32, 3>, Array<f32>, Array<f32>),
) -> (Array<f32, 3>, Array<f32>) {
    jax::tree::map(|p, g| p - 0.01 * g, &p, &g)
}

fn main() {}
