// One in_axes entry per argument, as JAX's
// `jax.vmap(f, in_axes=(0, 0, 0))(x, y)` requires.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 5, 3>, y: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
    jax::vmap(|a, b| a + b, (0, 0, 0))(x, y)
}

fn main() {}
