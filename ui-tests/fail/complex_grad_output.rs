// grad needs a real output: JAX's TypeError for a complex one.
use jax::prelude::*;

#[jax::jit]
fn f(z: Array<Complex<f32>, 2>) -> Complex<f32> {
    jnp::sum(&z * &z)
}

fn main() {
    let z = Array::<Complex<f32>, 2>::from([Complex::new(1.0, 2.0), Complex::new(0.5, -1.0)]);
    let _ = f::grad(z);
}
