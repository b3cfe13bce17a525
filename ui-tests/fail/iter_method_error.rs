// Iterators: `.iter()` over an array.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32> {
    let s: f32 = x.iter().sum();
    jnp::array(s)
}

fn main() {}
