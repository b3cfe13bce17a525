// A matrix norm takes ord 1, -1, 2, -2, inf, -inf, 'fro' or 'nuc': ord 3
// is JAX's "Invalid order" error, at the ord, when the function compiles.
#![allow(unused_imports)]
use jax::jnp::linalg::{NormOptions, NormOrd};
use jax::prelude::*;

#[jax::jit]
fn f(a: Array<f32, 3, 3>) -> Array<f32> {
    jnp::linalg::norm_with(&a, NormOptions { ord: NormOrd::P(3.0), ..Default::default() })
}

fn main() {}
