// A key in the output has no tangent: each derivative is an error saying
// so (it used to be no function at all).
use jax::prelude::*;
use jax::random::Key;

#[jax::jit]
fn with_key(w: &Array<u32, 2>, x: &Array<f32, 3>) -> (Array<f32, 3>, Key) {
    (jnp::sin(x), random::wrap_key_data(w))
}

fn main() {
    let w = Array::<u32, 2>::from([0, 1]);
    let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = with_key::vjp(&w, &x);
}
