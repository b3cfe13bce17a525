// A batched output needs an out axis, as JAX's
// `jax.vmap(lambda a: a * 2, out_axes=None)(jnp.ones((5, 3)))`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 5, 3>) -> Array<f32, 3> {
    jax::vmap(|a| a * 2.0, 0, None)(x)
}

fn main() {}
