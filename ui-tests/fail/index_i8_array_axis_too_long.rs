// A signed index array whose dtype cannot hold the axis length: JAX
// normalizes negative indices with the length as a constant of the index's
// dtype, and refuses it (OverflowError). Eager panics with the same words.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 200>, i: Array<i8, 2>) -> Array<f32, 2> {
    x.at(i).get()
}

fn main() {}
