// `jnp.zeros((3,))`: the shape and dtype are the array type's in Rust.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    x + jnp::zeros()
}

fn main() {}
