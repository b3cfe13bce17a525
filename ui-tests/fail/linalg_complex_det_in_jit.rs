// `jnp::linalg::det` of a complex matrix in jit: not supported yet, a
// compile error at the call saying so (eager `det` takes complex matrices).
use jax::prelude::*;

#[jax::jit]
fn det(a: Array<Complex<f32>, 2, 2>) -> Complex<f32> {
    jnp::linalg::det(&a)
}

fn main() {}
