// Reverse mode through a loop with traced bounds is JAX's error.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32>, n: i32) -> Array<f32> {
    lax::fori_loop(0, n, |_i, c| c * x, x.clone())
}

fn main() {
    let _ = f::grad(Array::from(1.5f32), 3);
}
