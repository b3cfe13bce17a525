// digamma's derivative (polygamma) has no rule yet: differentiating it is a
// compile error naming it, never a wrong gradient.
use jax::prelude::*;
use jax::scipy::special;

#[jax::jit]
fn f(x: Array<f32>) -> Array<f32> {
    special::digamma(x)
}

fn main() {
    let _ = f(Array::from(1.0f32));
    let _ = f::grad(Array::from(1.0f32));
}
