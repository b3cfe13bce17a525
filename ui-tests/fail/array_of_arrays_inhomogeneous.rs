// jnp::array of traced arrays stacks them: they need one shape.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 3>, y: &Array<f32, 2>) -> Array<f32, 2, 3> {
    jnp::array([x, y])
}

fn main() {}
