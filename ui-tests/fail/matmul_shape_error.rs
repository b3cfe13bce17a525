// Inner dimensions of a product must agree.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 3, 4>, b: Array<f32, 5, 2>) -> Array<f32, 3, 2> {
    a.matmul(b)
}

fn main() {}
