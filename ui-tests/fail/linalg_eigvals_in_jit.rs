// eigvals returns complex arrays, which #[jax::jit] does not hold yet.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 3, 3>) -> Array<f32, 3> {
    let w = jnp::linalg::eigvals(&a);
    jnp::real(w)
}

fn main() {}
