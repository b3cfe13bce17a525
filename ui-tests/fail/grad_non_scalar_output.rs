// grad needs a scalar output, as in JAX; vjp or jacrev handle the rest.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 3>) -> Array<f32, 3> {
    jnp::sin(x)
}

fn main() {
    let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = f::grad(&x);
}
