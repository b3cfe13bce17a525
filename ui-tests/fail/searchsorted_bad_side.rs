// `side` of `jnp::searchsorted` is "left" or "right".
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 4>, v: Array<f32, 3>) -> Array<i32, 3> {
    jnp::searchsorted(a, v, "middle")
}

fn main() {}
