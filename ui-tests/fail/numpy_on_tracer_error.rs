// Seed: `np.sin(x)` on a tracer is TracerArrayConversionError; in Rust, turning the array into Rust data.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    let data: Vec<f32> = x.to_vec();
    jnp::sin(x)
}

fn main() {}
