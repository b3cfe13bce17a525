// A name jax::nn does not have: the error lists the ones it has.
use jax::nn;
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    nn::reluu(x)
}

fn main() {
    let _ = f(Array::zeros());
}
