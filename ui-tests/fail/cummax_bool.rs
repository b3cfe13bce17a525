// `lax.cummax` accepts numbers only (`jnp::cumsum` counts bools in the
// default int; `cummax` has no such conversion, as in JAX).
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 4>) -> Array<bool, 4> {
    jnp::cummax(x.gt(0.0), 0)
}

fn main() {}
