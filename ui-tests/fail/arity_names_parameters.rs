// An arity error names the eager function's parameters.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 2, 3>) -> Array<i32, 2> {
    jnp::argmax_axis(x, 1)
}

fn main() {}
