// Control flow on a traced value: JAX's TracerBoolConversionError.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32>) -> Array<f32> {
    if x.sum() > 0.0 {
        x
    } else {
        -x
    }
}

fn main() {}
