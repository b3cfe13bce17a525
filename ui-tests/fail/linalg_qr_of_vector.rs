// qr needs a matrix (or a batch of them): JAX's message at the call.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 3>) -> Array<f32, 3> {
    let (q, _r) = jnp::linalg::qr(&a);
    q
}

fn main() {}
