// Dimension numbers naming different spatial axes: JAX's message.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 1, 8, 8, 2>, w: Array<f32, 3, 3, 2, 4>) -> Array<f32, 1, 6, 6, 4> {
    lax::conv_general_dilated(&x, &w, &[1, 1], "VALID", None, None, Some(("NHWC", "HDIO", "NHWC")), 1)
}

fn main() {}
