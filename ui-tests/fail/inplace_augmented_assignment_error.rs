// Seed: `x[0] += 10`; the fix is `x.at(0).add(10)`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<i32, 10>) -> Array<i32, 10> {
    x[0] += 10;
    x
}

fn main() {}
