// `jnp::linalg::solve(a [2, 3, 3], b [2, 3])`: before JAX 0.5 a batch of
// vectors, now an error; JAX's message says to write `b[..., None]`.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 2, 3, 3>, b: Array<f32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::linalg::solve(&a, &b)
}

fn main() {}
