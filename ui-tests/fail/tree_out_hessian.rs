// hessian is the Jacobian of the gradient: a tuple output has none.
use jax::prelude::*;

#[jax::jit]
fn two(x: &Array<f32, 3>) -> (Array<f32>, Array<f32>) {
    (jnp::sum(jnp::sin(x)), jnp::sum(x))
}

fn main() {
    let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = two::hessian(&x);
}
