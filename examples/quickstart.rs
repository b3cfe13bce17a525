//! The main example: a jitted function, its gradient, and its jaxpr.
//!
//! Run with `cargo run --release --example quickstart`.

use jax::prelude::*;

/// A small "layer": an affine map followed by tanh, then a mean squared
/// error against a target. `#[jax::jit]` traces the body at compile time,
/// checks every shape, fuses the elementwise work into loops and compiles
/// it as ordinary Rust.
#[jax::jit]
fn loss(
    w: &Array<f32, 3, 2>,
    b: &Array<f32, 2>,
    x: &Array<f32, 4, 3>,
    y: &Array<f32, 4, 2>,
) -> Array<f32> {
    let h = jnp::tanh(x.matmul(w) + b);
    let err = h - y;
    jnp::mean(err * err)
}

// A sharp bit, caught when the crate compiles rather than at run time:
//
//     #[jax::jit]
//     fn f(x: Array<f32, 3>) -> Array<f32, 3> {
//         if x.sum() > 0.0 { x } else { -x }
//     }
//
// error: TracerBoolConversionError: Attempted boolean conversion of traced
//        array with shape bool[]. `if` needs a concrete bool, ...; use
//        lax::cond, lax::switch or jnp::where_ instead

fn main() {
    let w = Array::<f32, 3, 2>::from([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.8]]);
    let b = Array::<f32, 2>::from([0.1, -0.1]);
    let x: Array<f32, 4, 3> = Array::<f32, 12>::linspace(-1.0, 1.0).reshape();
    let y = Array::<f32, 4, 2>::from([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [0.2, 0.8]]);

    let l = loss(&w, &b, &x, &y);
    println!("x = {x:?}");
    println!("loss = {l:?}");
    // The gradient with respect to the first argument, `w`: the macro
    // derived it from the same trace and compiled it like `loss` itself.
    let dw = loss::grad(&w, &b, &x, &y);
    println!("d loss / d w = {dw:?}");
    println!("jaxpr of loss:\n{}", loss::jaxpr());
}
