// Iterator adaptors such as `.map()`.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3>) -> Array<f32, 3> {
    x.map(|v| v * 2.0)
}

fn main() {}
