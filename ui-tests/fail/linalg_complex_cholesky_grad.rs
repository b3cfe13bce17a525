// The derivative of a complex Cholesky factorization in jit: a compile
// error naming it, never a wrong answer.
use jax::prelude::*;

#[jax::jit]
fn loss(a: Array<Complex<f32>, 2, 2>) -> f32 {
    jnp::sum(jnp::abs(jnp::linalg::cholesky(&a)))
}

fn main() {
    let a = Array::<Complex<f32>, 2, 2>::eye();
    let _ = loss::grad(a);
}
