// Complex numbers have no order: JAX's dtype errors at the call.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<Complex<f32>, 2>) -> Array<bool, 2> {
    let _ = jnp::floor(&x);
    jnp::less(&x, &x)
}

fn main() {}
