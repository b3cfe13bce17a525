// `jnp::stack` joins arrays of one shape along a new axis (JAX's `stack`
// primitive): arrays of different shapes are JAX's error, at the call.
use jax::prelude::*;

#[jax::jit]
fn f(a: &Array<f32, 3>, b: &Array<f32, 4>) -> Array<f32, 2, 3> {
    jnp::stack([a, b], 0)
}

fn main() {}
