// lax does not broadcast different shapes, as JAX's `lax.add(jnp.ones(3), jnp.ones(4))`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>, y: Array<f32, 4>) -> Array<f32, 3> {
    lax::add(x, y)
}

fn main() {}
