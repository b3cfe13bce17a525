// A kernel whose input features are not the image's: JAX's shape-rule
// message, at the call.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 2, 8, 8, 3>, w: Array<f32, 3, 3, 4, 16>) -> Array<f32, 2, 8, 8, 16> {
    lax::conv_general_dilated(&x, &w, &[1, 1], "SAME", None, None, Some(("NHWC", "HWIO", "NHWC")), 1)
}

fn main() {}
