// `jnp::select` takes one choice per condition: JAX's ValueError, at the
// call. Its conditions are a list, not a single array (that is `where_`).
use jax::prelude::*;

#[jax::jit]
fn lengths(x: &Array<f32, 3>) -> Array<f32, 3> {
    jnp::select([jnp::greater(x, 0.0)], [x * 2.0, x * 3.0], 0.0)
}

#[jax::jit]
fn not_a_list(x: &Array<f32, 3>) -> Array<f32, 3> {
    jnp::select(jnp::greater(x, 0.0), x, 0.0)
}

fn main() {}
