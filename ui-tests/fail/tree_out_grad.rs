// grad needs a scalar output, as in JAX: a tuple output is JAX's
// `_check_scalar` error (vjp and jacrev handle it), and check_grads checks
// one output.
use jax::prelude::*;

#[jax::jit]
fn two(x: &Array<f32, 3>) -> (Array<f32, 3>, Array<f32>) {
    (jnp::sin(x), jnp::sum(x))
}

fn main() {
    let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = two::grad(&x);
    let _ = two::value_and_grad(&x);
    jax::test_util::check_grads!(two, (x,));
}
