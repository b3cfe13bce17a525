// Outputs that are all integers carry no derivative (JAX's float0).
use jax::prelude::*;

#[jax::jit]
fn argmaxes(x: &Array<f32, 2, 3>) -> (Array<i32>, Array<i32>) {
    (jnp::argmax(x).astype::<i32>(), jnp::argmin(x).astype::<i32>())
}

fn main() {
    let x = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [0.0, 5.0, 4.0]]);
    let _ = argmaxes::vjp(&x);
    let _ = argmaxes::jvp((&x,), (&x,));
}
