// `jnp::tensordot`'s `axes` cannot exceed either operand's rank: JAX's
// error, at the call.
use jax::prelude::*;

#[jax::jit]
fn f(a: &Array<f32, 2, 3>, b: &Array<f32, 3>) -> Array<f32> {
    jnp::tensordot(a, b, 2)
}

fn main() {}
