// JAX's keywords are builder methods of the layers that have them: `Relu`
// has no padding, and the error lists the options a layer has.
use jax::example_libraries::stax::{self, Conv, Relu};
use jax::prelude::*;

#[jax::jit]
fn predict(
    p: ((Array<f32, 3, 3, 1, 2>, Array<f32, 1, 1, 1, 2>), ()),
    x: &Array<f32, 1, 4, 4, 1>,
) -> Array<f32, 1, 4, 4, 2> {
    stax::serial([Conv(2, [3, 3]).padding("SAME"), Relu.padding("SAME")]).apply(&p, x)
}

fn main() {}
