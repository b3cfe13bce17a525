// lax does not promote: two typed operands must share a dtype.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>, y: Array<i32, 3>) -> Array<f32, 3> {
    lax::add(x, y)
}

fn main() {}
