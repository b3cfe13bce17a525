use jax::prelude::*;

// A pmap inside a pmap: one axis maps over the devices.
#[jax::jit]
fn f(x: &Array<f32, 2, 2, 3>) -> Array<f32, 2, 2, 3> {
    jax::pmap(|r| jax::pmap(|s| lax::psum(s, "j"), "j")(r), "i")(x)
}

fn main() {}
