use jax::prelude::*;

// `psum` names an axis no enclosing `vmap` binds.
#[jax::jit]
fn f(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|r| lax::psum(r, "j"), 0, 0, "i")(x)
}

fn main() {}
