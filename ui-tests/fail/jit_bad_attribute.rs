// The attribute takes argnums and has_aux.
use jax::prelude::*;

#[jax::jit(static_argnums = 1)]
fn f(x: &Array<f32, 3>) -> Array<f32> {
    jnp::sum(x)
}

fn main() {}
