// grad differentiates float arguments only.
use jax::prelude::*;

#[jax::jit]
fn f(n: &Array<i32, 3>, x: &Array<f32, 3>) -> Array<f32> {
    jnp::sum(x * n.astype::<f32>())
}

fn main() {
    let n = Array::<i32, 3>::from([1, 2, 3]);
    let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    let _ = f::grad(&n, &x);
}
