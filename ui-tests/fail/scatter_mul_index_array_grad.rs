// As in JAX, `x.at(idx).mul(v)` is differentiable with respect to `v` only
// where the indices are unique (a scalar position): with an index array, a
// compile error with JAX's message, never a wrong gradient.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 5>, i: Array<i32, 2>, v: Array<f32, 2>) -> Array<f32, 2> {
    jax::grad(|v: Array<f32, 2>| jnp::sum(x.at(i).mul(v)))(v)
}

fn main() {}
