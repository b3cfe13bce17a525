use jax::prelude::*;

#[jax::jit]
fn arith(a: Array<Complex<f32>, 3>, b: &Array<Complex<f32>, 3>) -> Array<Complex<f32>, 3> {
    let c = a * b + a / b - b;
    jnp::exp(c) * jnp::conj(&a) + jnp::sqrt(&a) * Complex::new(1.0, 2.0)
}

#[jax::jit]
fn parts(x: Array<f32, 3>) -> Array<f32, 3> {
    let z = lax::complex(&x, x * 2.0);
    let w = jnp::exp(z) * z;
    jnp::abs(&w) + jnp::real(&w) - jnp::imag(&w) + jnp::angle(&w)
}

#[jax::jit]
fn loss(x: Array<f32, 3>) -> f32 {
    let z = lax::complex(&x, x * 2.0);
    let w = jnp::exp(z) * z;
    jnp::sum(jnp::abs(&w) + jnp::real(&w) - jnp::imag(&w) + jnp::angle(&w))
}

#[test]
fn smoke() {
    let a = Array::<Complex<f32>, 3>::from([Complex::new(1.0, 2.0), Complex::new(-0.5, 0.25), Complex::new(3.0, -1.0)]);
    let b = Array::<Complex<f32>, 3>::from([Complex::new(0.5, -2.0), Complex::new(1.5, 0.75), Complex::new(-3.0, 1.0)]);
    println!("{}", arith::jaxpr());
    println!("{:?}", arith(a.clone(), &b));
    let x = Array::<f32, 3>::from([0.5, -1.0, 2.0]);
    println!("{}", parts::jaxpr());
    println!("{:?}", parts(x.clone()));
    println!("{:?}", loss::grad(x));
}
