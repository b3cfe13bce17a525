// `&mut` parameters.
use jax::prelude::*;

#[jax::jit]
fn f(x: &mut Array<f32, 3>) -> Array<f32, 3> {
    x.clone()
}

fn main() {}
