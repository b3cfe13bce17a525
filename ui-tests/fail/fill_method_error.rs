// Mutating methods: `.fill(v)`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    x.fill(0.0);
    x
}

fn main() {}
