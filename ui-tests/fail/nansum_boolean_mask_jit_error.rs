// Seed: boolean-mask indexing under jit is NonConcreteBooleanIndexError.
use jax::prelude::*;

#[jax::jit]
fn nansum(x: Array<f32, 5>) -> Array<f32> {
    let mask = !jnp::isnan(x);
    let x_without_nans = x[mask];
    x_without_nans.sum()
}

fn main() {}
