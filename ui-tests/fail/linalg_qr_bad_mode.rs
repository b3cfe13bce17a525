// qr_with's mode is one of jnp::linalg::QrMode's variants.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> {
    let r = jnp::linalg::qr_with(&a, "economic");
    r
}

fn main() {}
