// An integer output has JAX's float0 tangent: its function compiles, and
// asking for a derivative is JAX's error at the use.
use jax::prelude::*;

#[jax::jit]
fn f(x: &Array<f32, 4>) -> Array<i32> {
    // int32 with or without x64 (whose default int is int64).
    jnp::argmax(x).astype::<i32>()
}

fn main() {
    let x = Array::<f32, 4>::from([1.0, 2.0, 3.0, 0.0]);
    let _ = f(&x);
    let _ = f::grad(&x);
    let _ = f::jvp((&x,), (&x,));
}
