// `jnp::linalg::solve` whose batch axes do not broadcast (2 against 3) in
// jit: a compile error at the call with JAX's message.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 2, 3, 3>, b: Array<f32, 3, 3, 2>) -> Array<f32, 3, 3, 2> {
    jnp::linalg::solve(&a, &b)
}

fn main() {}
