// Global state: writing a `static mut`.
use jax::prelude::*;

#[allow(dead_code)]
static mut CALLS: u32 = 0;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    CALLS = 1;
    x
}

fn main() {}
