// `jnp::isclose` takes the two arrays (JAX's keyword arguments are not
// positional here): a third argument is an error naming the parameters.
use jax::prelude::*;

#[jax::jit]
fn f(a: &Array<f32, 3>, b: &Array<f32, 3>) -> Array<bool, 3> {
    jnp::isclose(a, b, 1e-3)
}

fn main() {}
