// Iterators: `for v in x` over an array.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32> {
    let mut acc = x.sum();
    for v in x {
        acc = acc + v;
    }
    acc
}

fn main() {}
