// The body's value must have the declared type; errors accumulate.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 4> {
    jnp::sin(x)
}

#[jax::jit]
fn g(x: Array<i32, 3>) -> Array<f32, 3> {
    x * 2
}

fn main() {
    // Callers still type-check against the signature.
    let _: Array<f32, 4> = f(Array::zeros());
}
