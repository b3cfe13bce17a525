// A right-hand side whose rows are not the triangle's size: JAX's message
// at the call.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 3, 3>, b: Array<f32, 2, 2>) -> Array<f32, 2, 2> {
    jax::scipy::linalg::solve_triangular(&a, &b, true)
}

fn main() {}
