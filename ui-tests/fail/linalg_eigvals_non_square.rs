// eig needs square matrices: JAX's message at the call.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 2, 3>) -> Array<Complex<f32>, 2> {
    jnp::linalg::eigvals(&a)
}

fn main() {}
