// An optimizer of `jax::example_libraries::optimizers` updates the state
// its own `init` made: Adam's update of momentum's state is an error that
// names both.
use jax::example_libraries::optimizers;
use jax::prelude::*;

#[jax::jit]
fn step(
    i: i32,
    g: &Array<f32, 3>,
    s: optimizers::MomentumState<Array<f32, 3>>,
) -> optimizers::AdamState<Array<f32, 3>> {
    optimizers::adam(0.001).update(i, g, s)
}

fn main() {}
