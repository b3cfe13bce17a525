// The options of a `_with` form are read from the literal written in the
// call when the function compiles: a constant or a variable is an error
// saying to write it there.
#![allow(unused_imports)]
use jax::jnp::linalg::{NormOptions, NormOrd, PinvOptions};
use jax::prelude::*;

const NUC: NormOptions = NormOptions {
    ord: NormOrd::Nuc,
    axis: jax::jnp::linalg::NormAxis::All,
    keepdims: false,
};

#[jax::jit]
fn f(a: Array<f32, 3, 3>) -> Array<f32> {
    jnp::linalg::norm_with(&a, NUC)
}

#[jax::jit]
fn g(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> {
    let o = PinvOptions::default();
    jnp::linalg::pinv_with(&a, o)
}

fn main() {}
