// A has_aux function has grad, value_and_grad, jvp and vjp; its Jacobians
// are an error saying so (they used to be no function at all).
use jax::prelude::*;

#[jax::jit(has_aux)]
fn loss(x: &Array<f32, 3>) -> (Array<f32>, Array<f32, 3>) {
    (jnp::sum(jnp::sin(x)), jnp::cos(x))
}

fn main() {
    let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = loss::jvp((&x,), (&x,));
    let _ = loss::jacfwd(&x);
}
