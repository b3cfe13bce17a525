// Differentiating `x.at(idx).set(v)` with an index array (whose entries may
// repeat) is not supported yet: a compile error naming it, never a wrong
// gradient.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 5>, i: Array<i32, 2>, v: Array<f32, 2>) -> Array<f32, 2> {
    jax::grad(|v: Array<f32, 2>| jnp::sum(x.at(i).set(v)))(v)
}

fn main() {}
