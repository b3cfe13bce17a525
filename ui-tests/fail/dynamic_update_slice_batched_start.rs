// vmap over a start that differs by lane needs a scatter.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32, 3, 5>, u: Array<f32, 2>, i: Array<i32, 3>) -> Array<f32, 3, 5> {
    jax::vmap(|x, i| lax::dynamic_update_slice(&x, &u, &[i]), (0, 0))(x, i)
}

fn main() {}
