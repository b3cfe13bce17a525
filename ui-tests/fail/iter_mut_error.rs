// Iterators and mutation: `.iter_mut()`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    for v in x.iter_mut() {
        *v = 0.0;
    }
    x
}

fn main() {}
