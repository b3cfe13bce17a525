// A label with two sizes: the error points at the subscripts and names
// the label, both sizes and the operands.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 2, 3>, b: Array<f32, 4, 5>) -> Array<f32, 2, 5> {
    jnp::einsum("ij,jk->ik", (&a, &b))
}

fn main() {}
