// Complex arrays are eager-only for now: a jitted signature says so.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<Complex<f32>, 2>) -> Array<Complex<f32>, 2> {
    x
}

fn main() {}
