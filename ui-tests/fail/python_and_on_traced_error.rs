// Seed: `and` on traced booleans; `&&` needs a concrete bool, `&` is elementwise.
use jax::prelude::*;

#[jax::jit]
fn f(x: Array<f32>) -> Array<bool> {
    (x > 0.0) && (x < 10.0)
}

fn main() {}
