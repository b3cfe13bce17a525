// Subscripts for two operands given one, and an operand whose rank differs
// from its subscripts: both errors point at the string.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::einsum("ij,jk->ik", (&a,))
}

#[jax::jit]
fn g(a: Array<f32, 2, 3>) -> Array<f32, 2> {
    jnp::einsum("ijk->i", (&a,))
}

fn main() {}
