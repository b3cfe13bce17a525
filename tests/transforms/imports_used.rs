//! `use jax::nn;` (and scipy's modules) used only inside jitted bodies
//! count as used: no unused-import warning, which this module denies.
#![deny(unused_imports)]

use jax::nn;
use jax::prelude::*;
use jax::scipy::special;
use jax::scipy::stats::norm;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    nn::relu(special::expit(norm::cdf(x)))
}

#[test]
fn library_modules_used_only_in_jitted_bodies_are_used_imports() {
    let y = f(Array::from([-1.0, 0.0, 1.0]));
    assert_eq!(y.shape(), &[3]);
    assert!(y.to_vec().iter().all(|v| *v > 0.5 && *v < 1.0));
}
