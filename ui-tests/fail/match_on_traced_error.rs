// `match` on a traced value; the fix is lax::switch.
use jax::prelude::*;

#[jax::jit]
fn f(i: Array<i32>, x: Array<f32>) -> Array<f32> {
    match i {
        0 => x,
        _ => -x,
    }
}

fn main() {}
