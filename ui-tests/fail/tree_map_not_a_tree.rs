// `tree::map` over something that is not a pytree (here a closure).
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    let scale = |v: Array<f32, 3>| v * 2.0;
    jax::tree::map(|a, b| a + b, &x, &scale)
}

fn main() {}
