// Seed: in-place item assignment. Arrays are immutable; `x.at(i).set(v)` returns the update.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3, 3>) -> Array<f32, 3, 3> {
    x[(1, ..)] = 1.0;
    x
}

fn main() {}
