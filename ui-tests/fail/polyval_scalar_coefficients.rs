// `jnp::polyval` runs along its coefficients' first axis: a scalar has none.
use jax::prelude::*;

#[jax::jit]
fn f(p: &Array<f32>, x: &Array<f32, 3>) -> Array<f32, 3> {
    jnp::polyval(p, x)
}

fn main() {}
