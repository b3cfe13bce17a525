// A closure that `lax::fori_loop` traces once cannot assign a variable it
// captured: the write would happen once, when the body is traced.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 3>) -> Array<f32, 3> {
    let mut total = x * 0.0;
    let y = lax::fori_loop(0, 3, |_i, c: Array<f32, 3>| {
        total = &total + &c;
        c * 2.0
    }, x.clone());
    total + y
}

fn main() {}
