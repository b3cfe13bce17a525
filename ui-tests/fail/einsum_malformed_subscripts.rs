// An einsum subscript string with a character that is not a label: the
// error points at the string and says what it may contain.
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 2, 3>, b: Array<f32, 3, 4>) -> Array<f32, 2, 4> {
    jnp::einsum("ij,j1->ik", (&a, &b))
}

fn main() {}
