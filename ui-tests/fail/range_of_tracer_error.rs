// Seed: `range(n)` with a traced n; loop bounds must be static.
use jax::prelude::*;

#[jax::jit]
fn f(n: Array<i32>) -> Array<i32> {
    let mut s = n;
    for i in 0..n {
        s = s + i;
    }
    s
}

fn main() {}
