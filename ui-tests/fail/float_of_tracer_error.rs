// Seed: `float(x)` on a tracer is a ConcretizationTypeError; in Rust, `as f32`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32>) -> Array<f32> {
    let v = x as f32;
    jnp::array(v + 1.0)
}

fn main() {}
