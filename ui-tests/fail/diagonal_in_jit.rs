// `jnp::diagonal` (a gather in JAX) is eager only for now: say so at the call.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3, 3>) -> Array<f32, 3> {
    jnp::diagonal(&x, 0, 0, 1)
}

fn main() {}
