// An unknown jnp:: function names itself and points at the guide's list.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    jnp::no_such_function(&x)
}

fn main() {}
