// `use jax::nn;` (and scipy's modules) used only inside jitted bodies count
// as used: no unused-import warning.
#![deny(unused_imports)]
use jax::nn;
use jax::prelude::*;
use jax::scipy::special;
use jax::scipy::stats::norm;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    nn::relu(special::expit(norm::cdf(x)))
}

fn main() {
    let y = f(Array::from([-1.0, 0.0, 1.0]));
    assert_eq!(y.shape(), &[3]);
}
