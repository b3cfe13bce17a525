// An axis given by a const generic: only rustc knows it.
use jax::prelude::*;

#[jax::jit]
fn f<const A: usize>(x: &Array<f32, 3, 4>) -> Array<f32, 4> {
    jnp::mean_axis(x, A, false)
}

fn main() {}
