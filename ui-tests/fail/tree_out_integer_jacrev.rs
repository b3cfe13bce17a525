// An integer output beside a float one: jvp, vjp and jacfwd exist (its
// tangent is zeros), jacrev is JAX's error.
use jax::prelude::*;

#[jax::jit]
fn mixed(x: &Array<f32, 3>) -> (Array<f32, 3>, Array<i32>) {
    (jnp::sin(x), jnp::argmax(x).astype::<i32>())
}

fn main() {
    let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = mixed::jacfwd(&x);
    let _ = mixed::jacrev(&x);
}
