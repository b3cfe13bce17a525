// Seed: `int(x)` on a tracer; in Rust, `.item()`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<i32>) -> Array<i32> {
    let v: i32 = x.item();
    x + v
}

fn main() {}
