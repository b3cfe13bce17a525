// An index array must hold integers, as in JAX ("Indexer must have integer
// or boolean type").
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 5, 3>, i: Array<f32, 2>) -> Array<f32, 2, 3> {
    x.at(i).get()
}

#[jax::jit]
fn g(x: Array<f32, 5, 3>, i: Array<f32, 2>) -> Array<f32, 5, 2> {
    jnp::take(x, i, 1)
}

fn main() {}
