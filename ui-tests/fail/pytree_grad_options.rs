// Options of the transformations inside bodies: JAX's errors.
use jax::prelude::*;

#[jax::jit]
fn out_of_range(x: &Array<f32, 3>) -> Array<f32, 3> {
    jax::grad(|x: Array<f32, 3>| jnp::sum(x), argnums = 2)(x)
}

#[jax::jit]
fn aux_not_a_pair(x: &Array<f32, 3>) -> Array<f32, 3> {
    jax::grad(|x: Array<f32, 3>| jnp::sum(x), has_aux = true)(x)
}

#[jax::jit]
fn unknown_option(x: &Array<f32, 3>) -> Array<f32, 3> {
    jax::grad(|x: Array<f32, 3>| jnp::sum(x), holomorphic = true)(x)
}

fn main() {}
