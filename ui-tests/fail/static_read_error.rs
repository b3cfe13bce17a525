// Global state: a `static` read inside the function.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    x * SCALE
}

#[allow(dead_code)]
static SCALE: f32 = 2.0;

fn main() {}
