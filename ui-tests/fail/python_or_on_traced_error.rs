// Seed: `or` on traced booleans.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<bool>, y: Array<bool>) -> Array<bool> {
    x || y
}

fn main() {}
