// A bare library name that is not in scope: rustc says so at the call.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 2, 3>) -> Array<f32, 2> {
    logsumexp(x, 1, false)
}

fn main() {}
