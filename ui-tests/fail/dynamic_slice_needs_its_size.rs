// `lax::dynamic_slice` takes its window's size from the type of its result,
// as eagerly: without an annotation it has no size.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 4, 5>, i: i32) -> f32 {
    let w = lax::dynamic_slice(&x, &[i, 0]);
    w.sum()
}

fn main() {}
