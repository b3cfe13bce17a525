// A computation other than lax::max, lax::min or lax::add: what to write.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 4, 4>) -> Array<f32, 2, 2> {
    lax::reduce_window(&x, 1.0, |a, b| a * b, &[2, 2], Some(&[2, 2]), "VALID")
}

fn main() {}
