// `jnp::kron`'s result sizes are the products of the operands' sizes: a
// written result type of other sizes is an error at that type.
use jax::prelude::*;

#[jax::jit]
fn f(a: &Array<f32, 2, 3>, b: &Array<f32, 2, 2>) -> Array<f32, 4, 5> {
    jnp::kron(a, b)
}

fn main() {}
