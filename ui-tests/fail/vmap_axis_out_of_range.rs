// The mapped axis must exist, as JAX's
// `jax.vmap(lambda a: a.sum(), in_axes=2)(jnp.ones((5, 3)))`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 5, 3>) -> Array<f32, 5> {
    jax::vmap(|a| jnp::sum(a), 2)(x)
}

fn main() {}
