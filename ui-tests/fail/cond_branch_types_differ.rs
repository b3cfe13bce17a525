// cond's branches must return the same types; the error shows both.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    lax::cond(jnp::sum(&x).gt(0.0), |x: Array<f32, 3>| x * 2.0, |x: Array<f32, 3>| jnp::sum(x), x)
}

fn main() {}
