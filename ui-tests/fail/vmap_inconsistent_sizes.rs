// Mapped axes must have one size, as JAX's
// `jax.vmap(lambda a, b: a.sum() + b.sum())(jnp.ones((5, 3)), jnp.ones(4))`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 5, 3>, y: Array<f32, 4>) -> Array<f32, 5> {
    jax::vmap(|a, b| jnp::sum(a) + jnp::sum(b))(x, y)
}

fn main() {}
