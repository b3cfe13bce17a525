// A stax layer's params have its structure: `serial([Dense(3), Relu])`
// takes `((W, b), ())`, and params of another structure are an error that
// shows both.
use jax::example_libraries::stax::{self, Dense, Relu};
use jax::prelude::*;

#[jax::jit]
fn predict(p: (Array<f32, 2, 3>, Array<f32, 3>), x: &Array<f32, 4, 2>) -> Array<f32, 4, 3> {
    stax::serial([Dense(3), Relu]).apply(&p, x)
}

fn main() {}
