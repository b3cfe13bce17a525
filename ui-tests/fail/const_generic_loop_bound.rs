// A const generic is a number rustc knows and the tracer does not: usable
// in arithmetic (`x * (N as f32)`), but a `for` loop over it cannot be
// unrolled when the function is traced.
use jax::prelude::*;

#[jax::jit]
fn f<const N: usize>(x: &Array<f32, N>) -> Array<f32, N> {
    let mut acc = x * 0.0;
    for _i in 0..N {
        acc = acc + x;
    }
    acc
}

fn main() {
    let _ = f(&Array::<f32, 3>::ones());
}
