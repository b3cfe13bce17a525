// `jax::vmap` traces its function once: a closure it maps cannot call a
// closure that assigns what the mapped closure captured.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    let mut seen = x.sum() * 0.0;
    let mut note = |r: &Array<f32, 3>| {
        seen = &seen + r.sum();
    };
    jax::vmap(|r| {
        note(&r);
        r * 2.0
    }, 0, 0)(x)
}

fn main() {}
