//! One API (tests/one_api.rs) for complex arrays in jitted code: the
//! complex functions of `jnp`, `lax` and `jnp::linalg` on complex64 and
//! complex128 inputs give exactly the eager results.

use jax::prelude::*;

type C32 = Complex<f32>;
type C64 = Complex<f64>;

#[jax::jit]
mod f {
    use super::*;

    pub fn real(x: &Array<Complex<f32>, 6>) -> Array<f32, 6> {
        jnp::real(x)
    }
    pub fn imag(x: &Array<Complex<f32>, 6>) -> Array<f32, 6> {
        jnp::imag(x)
    }
    pub fn conj(x: &Array<Complex<f32>, 6>) -> Array<Complex<f32>, 6> {
        jnp::conj(x)
    }
    pub fn conjugate(x: &Array<Complex<f64>, 6>) -> Array<Complex<f64>, 6> {
        jnp::conjugate(x)
    }
    pub fn angle(x: &Array<Complex<f32>, 6>) -> Array<f32, 6> {
        jnp::angle(x)
    }
    pub fn abs(x: &Array<Complex<f32>, 6>) -> Array<f32, 6> {
        jnp::abs(x)
    }
    pub fn abs64(x: &Array<Complex<f64>, 6>) -> Array<f64, 6> {
        jnp::abs(x)
    }
    pub fn exp(x: &Array<Complex<f32>, 6>) -> Array<Complex<f32>, 6> {
        jnp::exp(x)
    }
    pub fn log(x: &Array<Complex<f64>, 6>) -> Array<Complex<f64>, 6> {
        jnp::log(x)
    }
    pub fn sqrt(x: &Array<Complex<f32>, 6>) -> Array<Complex<f32>, 6> {
        jnp::sqrt(x)
    }
    pub fn complex(re: &Array<f32, 6>, im: &Array<f32, 6>) -> Array<Complex<f32>, 6> {
        lax::complex(re, im)
    }
    pub fn lax_real(x: &Array<Complex<f64>, 6>) -> Array<f64, 6> {
        lax::real(x)
    }
    pub fn lax_imag(x: &Array<Complex<f32>, 6>) -> Array<f32, 6> {
        lax::imag(x)
    }
    pub fn lax_conj(x: &Array<Complex<f32>, 6>) -> Array<Complex<f32>, 6> {
        lax::conj(x)
    }
    pub fn lax_conj_real(x: &Array<f32, 6>) -> Array<Complex<f32>, 6> {
        lax::conj(x)
    }
    pub fn eig(a: &Array<f32, 3, 3>) -> (Array<Complex<f32>, 3>, Array<Complex<f32>, 3, 3>) {
        jnp::linalg::eig(a)
    }
    pub fn eigvals(a: &Array<f64, 3, 3>) -> Array<Complex<f64>, 3> {
        jnp::linalg::eigvals(a)
    }
}

const Z: [(f64, f64); 6] = [
    (1.0, 2.0),
    (-3.5, 0.25),
    (0.1, -0.7),
    (-0.0, -1.0),
    (2.0, 0.0),
    (-2.5, -2.5),
];

fn z32() -> Array<C32, 6> {
    Array::from(Z.map(|(re, im)| C32::new(re as f32, im as f32)))
}

fn z64() -> Array<C64, 6> {
    Array::from(Z.map(|(re, im)| C64::new(re, im)))
}

#[test]
fn complex_functions_agree_with_eager() {
    let (x, y) = (z32(), z64());
    assert_eq!(f::real(&x).to_vec(), jnp::real(&x).to_vec());
    assert_eq!(f::imag(&x).to_vec(), jnp::imag(&x).to_vec());
    assert_eq!(f::conj(&x).to_vec(), jnp::conj(&x).to_vec());
    assert_eq!(f::conjugate(&y).to_vec(), jnp::conjugate(&y).to_vec());
    assert_eq!(f::angle(&x).to_vec(), jnp::angle(&x).to_vec());
    assert_eq!(f::abs(&x).to_vec(), jnp::abs(&x).to_vec());
    assert_eq!(f::abs64(&y).to_vec(), jnp::abs(&y).to_vec());
    assert_eq!(f::exp(&x).to_vec(), jnp::exp(&x).to_vec());
    assert_eq!(f::log(&y).to_vec(), jnp::log(&y).to_vec());
    assert_eq!(f::sqrt(&x).to_vec(), jnp::sqrt(&x).to_vec());
    let re = jnp::real(&x);
    let im = jnp::imag(&x) * 3.0;
    assert_eq!(
        f::complex(&re, &im).to_vec(),
        lax::complex(&re, &im).to_vec()
    );
    assert_eq!(f::lax_real(&y).to_vec(), lax::real(&y).to_vec());
    assert_eq!(f::lax_imag(&x).to_vec(), lax::imag(&x).to_vec());
    assert_eq!(f::lax_conj(&x).to_vec(), lax::conj(&x).to_vec());
    assert_eq!(f::lax_conj_real(&re).to_vec(), lax::conj(&re).to_vec());
}

#[test]
fn eig_agrees_with_eager() {
    let a = Array::<f32, 3, 3>::from([[0.5, -2.0, 0.3], [1.5, 0.2, -0.4], [0.1, 0.7, 1.1]]);
    let (w, v) = f::eig(&a);
    let (we, ve): (Array<C32, 3>, Array<C32, 3, 3>) = jnp::linalg::eig(&a);
    assert_eq!(w.to_vec(), we.to_vec());
    assert_eq!(v.to_vec(), ve.to_vec());
    let b = Array::<f64, 3, 3>::from([[4.0, 1.0, -2.0], [0.5, 3.0, 0.2], [1.0, -0.3, 2.0]]);
    let eager: Array<C64, 3> = jnp::linalg::eigvals(&b);
    assert_eq!(f::eigvals(&b).to_vec(), eager.to_vec());
}
