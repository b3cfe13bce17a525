// Reverse mode through a max-pool window with window dilation: JAX has no
// rule for it either; its message, at the differentiated call.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 7, 5>) -> Array<f32, 7, 5> {
    jax::grad(|x| {
        let y: Array<f32, 3, 3> =
            lax::reduce_window_dilated(&x, f32::NEG_INFINITY, lax::max, &[3, 3], None, "VALID", None, Some(&[2, 1]));
        y.sum()
    })(x)
}

fn main() {}
