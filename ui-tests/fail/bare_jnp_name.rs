// A bare jnp:: name: the message says to write it with its module.
use jax::jnp::exp;
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 3>) -> Array<f32, 3> {
    exp(x)
}

fn main() {
    let _ = exp(&Array::<f32, 3>::zeros());
}
