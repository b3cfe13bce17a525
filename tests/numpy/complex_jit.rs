//! Complex numbers inside `#[jax::jit]` against real JAX
//! (`tests/fixtures/complex_jit.json`, from `tests/fixtures/gen/complex_jit.py`):
//! elementwise values in complex64 and complex128, reductions, matmul,
//! conversions, gradients of real functions through complex intermediates
//! (JAX's convention), gradients with respect to complex arguments, jvp and
//! vjp of complex functions.

use crate::common;

use jax::prelude::*;

const X: [(f64, f64); 8] = [
    (1.0, 2.0),
    (-3.5, 0.25),
    (0.1, -0.7),
    (-0.0, -1.0),
    (2.0, 0.0),
    (1e-3, 4.0),
    (-2.5, -2.5),
    (0.3, 0.9),
];
const Y: [(f64, f64); 8] = [
    (0.5, -1.0),
    (2.0, 3.0),
    (-1.25, 0.5),
    (4.0, 0.0),
    (0.0, -2.0),
    (1.5, 1.5),
    (1e-2, -3.0),
    (-0.75, 0.2),
];
const R: [f64; 8] = [0.5, -1.0, 2.25, 0.0, 3.0, -0.125, 1e-3, 7.5];
const S: [f64; 8] = [1.5, 0.25, -2.0, 0.75, -0.5, 1.0, 2.5, -1.25];

fn complex_array<T: Element>(v: [(f64, f64); 8]) -> Array<T, 8> {
    Array::from(v.map(|(re, im)| T::from_parts(re, im)))
}

/// `Y` where its index is not a multiple of 3, else `X` (equal elements for `eq`).
fn y_array<T: Element>() -> Array<T, 8> {
    let mut y = Y;
    for k in (0..8).step_by(3) {
        y[k] = X[k];
    }
    complex_array(y)
}

fn real_array<T: Element>(v: [f64; 8]) -> Array<T, 8> {
    Array::from(v.map(T::from_f64))
}

/// An element's parts as f64 (one for real types, two for complex).
fn parts<T: Element>(x: T) -> Vec<f64> {
    let z = x.cast::<Complex<f64>>();
    match T::DTYPE {
        DType::C64 | DType::C128 => vec![z.re, z.im],
        DType::Bool => vec![if x == T::ONE { 1.0 } else { 0.0 }],
        _ => vec![z.re],
    }
}

/// Asserts `got` equals the fixture case `id` in dtype and shape, and in
/// value within a relative tolerance (XLA's and Rust's libm differ in the
/// last bits of transcendental functions).
#[track_caller]
fn check<A: ArrayType>(id: &str, got: &A) {
    let c = common::case("complex_jit", id);
    let dtype = <A::Elem as Element>::DTYPE;
    assert_eq!(c["dtype"].as_str().unwrap(), dtype.name(), "{id}: dtype");
    let shape: Vec<usize> = c["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "{id}: shape");
    let want: Vec<f64> = c["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| match v.as_str() {
            Some(s) => s.parse().unwrap(),
            None => v.as_f64().unwrap(),
        })
        .collect();
    let have: Vec<f64> = got.data().iter().flat_map(|&x| parts(x)).collect();
    assert_eq!(have.len(), want.len(), "{id}: size");
    let tol = match dtype {
        DType::C64 | DType::F32 => 2e-6,
        _ => 1e-13,
    };
    for (k, (&h, &w)) in have.iter().zip(&want).enumerate() {
        let ok = (h.is_nan() && w.is_nan()) || h == w || (h - w).abs() <= tol * (1.0 + w.abs());
        assert!(
            ok,
            "{id}: part {k}: got {h}, expected {w}\n got {have:?}\nwant {want:?}"
        );
    }
}

macro_rules! complex_cases {
    ($m:ident, $c:ty, $r:ty, $tag:literal) => {
        mod $m {
            use super::*;

            #[jax::jit]
            mod f {
                use super::*;

                pub fn neg(x: Array<$c, 8>) -> Array<$c, 8> {
                    -x
                }
                pub fn exp(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::exp(x)
                }
                pub fn log(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::log(x)
                }
                pub fn sqrt(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::sqrt(x)
                }
                pub fn sin(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::sin(x)
                }
                pub fn cos(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::cos(x)
                }
                pub fn tanh(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::tanh(x)
                }
                pub fn expm1(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::expm1(x)
                }
                pub fn log1p(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::log1p(x)
                }
                pub fn square(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::square(x)
                }
                pub fn cube(x: Array<$c, 8>) -> Array<$c, 8> {
                    lax::integer_pow(x, 3)
                }
                pub fn abs(x: Array<$c, 8>) -> Array<$r, 8> {
                    jnp::abs(x)
                }
                pub fn real(x: Array<$c, 8>) -> Array<$r, 8> {
                    jnp::real(x)
                }
                pub fn imag(x: Array<$c, 8>) -> Array<$r, 8> {
                    jnp::imag(x)
                }
                pub fn conj(x: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::conj(x)
                }
                pub fn angle(x: Array<$c, 8>) -> Array<$r, 8> {
                    jnp::angle(x)
                }
                pub fn sum(x: Array<$c, 8>) -> Array<$c> {
                    jnp::sum(x)
                }
                pub fn mean(x: Array<$c, 8>) -> Array<$c> {
                    jnp::mean(x)
                }
                pub fn scaled(x: Array<$c, 8>) -> Array<$c, 8> {
                    x * Complex::new(1.0, 2.0) - Complex::new(0.0, 0.5)
                }
                pub fn add(x: Array<$c, 8>, y: Array<$c, 8>) -> Array<$c, 8> {
                    x + y
                }
                pub fn sub(x: Array<$c, 8>, y: Array<$c, 8>) -> Array<$c, 8> {
                    x - y
                }
                pub fn mul(x: Array<$c, 8>, y: Array<$c, 8>) -> Array<$c, 8> {
                    x * y
                }
                pub fn div(x: Array<$c, 8>, y: Array<$c, 8>) -> Array<$c, 8> {
                    x / y
                }
                pub fn eq(x: Array<$c, 8>, y: Array<$c, 8>) -> Array<bool, 8> {
                    x.eq_(&y)
                }
                pub fn ne(x: Array<$c, 8>, y: Array<$c, 8>) -> Array<bool, 8> {
                    x.ne_(&y)
                }
                pub fn matmul(x: Array<$c, 8>, y: Array<$c, 8>) -> Array<$c, 2, 2> {
                    let a: Array<$c, 2, 4> = x.reshape();
                    let b: Array<$c, 4, 2> = y.reshape();
                    jnp::matmul(a, b)
                }
                pub fn select(x: Array<$c, 8>, y: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::where_(jnp::abs(&x).gt(&jnp::abs(&y)), &x, &y)
                }
                pub fn complex(r: Array<$r, 8>, s: Array<$r, 8>) -> Array<$c, 8> {
                    lax::complex(r, s)
                }
                pub fn from_real(r: Array<$r, 8>) -> Array<$c, 8> {
                    r.astype::<$c>() * Complex::new(2.0, -1.0)
                }
                pub fn to_real(x: Array<$c, 8>) -> Array<$r, 8> {
                    x.astype::<$r>()
                }
                pub fn transpose(x: Array<$c, 8>) -> Array<$c, 2> {
                    let m: Array<$c, 2, 4> = x.reshape();
                    let t = m.transpose();
                    let s: Array<$c, 3, 2> = t.slice(s![1..4, ..]);
                    jnp::sum_axis(s + 1.0, 0, false)
                }
            }

            #[jax::jit]
            mod g {
                use super::*;

                pub fn abs_exp(x: Array<$r, 8>) -> $r {
                    let z = lax::complex(jnp::zeros_like(&x), x.clone());
                    let xc = x.astype::<$c>();
                    jnp::sum(jnp::abs(jnp::exp(z) * xc))
                }
                pub fn real_conj(x: Array<$r, 8>) -> $r {
                    let xc = x.astype::<$c>();
                    jnp::sum(jnp::real(&xc * jnp::conj(&xc * Complex::new(1.0, 2.0))))
                }
                pub fn angle(x: Array<$r, 8>) -> $r {
                    jnp::sum(jnp::angle(lax::complex(&x, &x * &x + 1.0)))
                }
                pub fn poly(x: Array<$r, 8>) -> $r {
                    let z = lax::complex(x.clone(), jnp::ones_like(&x) * 0.5);
                    jnp::sum(jnp::abs(jnp::square(z) * Complex::new(2.0, -1.0) + 1.0))
                }
                pub fn imag_log(x: Array<$r, 8>) -> $r {
                    let l = jnp::log(lax::complex(&x, &x - 2.0));
                    let s = jnp::sqrt(lax::complex(&x, &x * 0.0 + 1.0));
                    jnp::sum(jnp::imag(l) + jnp::real(s))
                }
                pub fn trig(x: Array<$r, 8>) -> $r {
                    let a = jnp::sin(lax::complex(&x, &x));
                    let b = jnp::cos(lax::complex(&x, -&x));
                    let c = jnp::tanh(lax::complex(&x * 0.5, x.clone()));
                    jnp::sum(jnp::abs(a + b * c))
                }
            }

            #[jax::jit]
            mod cg {
                use super::*;

                pub fn abs2(z: Array<$c, 8>) -> $r {
                    jnp::sum(lax::integer_pow(jnp::abs(&z), 2) + jnp::real(&z * &z))
                }
                pub fn abs_exp(z: Array<$c, 8>) -> $r {
                    jnp::sum(jnp::abs(jnp::exp(&z) * &z))
                }
                pub fn imag_div(z: Array<$c, 8>) -> $r {
                    jnp::sum(jnp::imag(&z / (&z + 2.0)))
                }
                pub fn holo(z: Array<$c, 8>) -> Array<$c, 8> {
                    jnp::exp(&z) * &z + jnp::conj(&z) * 3.0
                }
            }

            fn id(name: &str) -> String {
                format!("{name}_{}", $tag)
            }

            #[test]
            fn elementwise() {
                let x = complex_array::<$c>(X);
                let y = y_array::<$c>();
                let unary: [(&str, fn(Array<$c, 8>) -> Array<$c, 8>); 12] = [
                    ("neg", f::neg),
                    ("exp", f::exp),
                    ("log", f::log),
                    ("sqrt", f::sqrt),
                    ("sin", f::sin),
                    ("cos", f::cos),
                    ("tanh", f::tanh),
                    ("expm1", f::expm1),
                    ("log1p", f::log1p),
                    ("square", f::square),
                    ("cube", f::cube),
                    ("conj", f::conj),
                ];
                for (name, op) in unary {
                    check(&id(name), &op(x.clone()));
                }
                check(&id("scaled"), &f::scaled(x.clone()));
                check(&id("abs"), &f::abs(x.clone()));
                check(&id("real"), &f::real(x.clone()));
                check(&id("imag"), &f::imag(x.clone()));
                check(&id("angle"), &f::angle(x.clone()));
                check(&id("sum"), &f::sum(x.clone()));
                check(&id("mean"), &f::mean(x.clone()));
                let binary: [(&str, fn(Array<$c, 8>, Array<$c, 8>) -> Array<$c, 8>); 5] = [
                    ("add", f::add),
                    ("sub", f::sub),
                    ("mul", f::mul),
                    ("div", f::div),
                    ("where", f::select),
                ];
                for (name, op) in binary {
                    check(&id(name), &op(x.clone(), y.clone()));
                }
                check(&id("eq"), &f::eq(x.clone(), y.clone()));
                check(&id("ne"), &f::ne(x.clone(), y.clone()));
                check(&id("matmul"), &f::matmul(x.clone(), y.clone()));
            }

            #[test]
            fn conversions_and_structure() {
                let x = complex_array::<$c>(X);
                let (r, s) = (real_array::<$r>(R), real_array::<$r>(S));
                check(&id("complex"), &f::complex(r.clone(), s));
                check(&id("from_real"), &f::from_real(r));
                check(&id("to_real"), &f::to_real(x.clone()));
                check(&id("transpose"), &f::transpose(x));
            }

            #[test]
            fn grads_through_complex_intermediates() {
                let r = real_array::<$r>(R);
                let cases: [(
                    &str,
                    fn(Array<$r, 8>) -> $r,
                    fn(Array<$r, 8>) -> Array<$r, 8>,
                ); 6] = [
                    ("abs_exp", g::abs_exp, g::abs_exp::grad),
                    ("real_conj", g::real_conj, g::real_conj::grad),
                    ("angle", g::angle, g::angle::grad),
                    ("poly", g::poly, g::poly::grad),
                    ("imag_log", g::imag_log, g::imag_log::grad),
                    ("trig", g::trig, g::trig::grad),
                ];
                for (name, value, grad) in cases {
                    check(
                        &id(&format!("value_{name}")),
                        &Array::<$r>::from(value(r.clone())),
                    );
                    check(&id(&format!("grad_{name}")), &grad(r.clone()));
                }
            }

            #[test]
            fn grads_with_respect_to_complex_arguments() {
                let x = complex_array::<$c>(X);
                check(&id("cgrad_abs2"), &cg::abs2::grad(x.clone()));
                check(&id("cgrad_abs_exp"), &cg::abs_exp::grad(x.clone()));
                check(&id("cgrad_imag_div"), &cg::imag_div::grad(x.clone()));
            }

            #[test]
            fn jvp_and_vjp_of_a_complex_function() {
                let x = complex_array::<$c>(X);
                let y = y_array::<$c>();
                let (_, t) = cg::holo::jvp((x.clone(),), (y.clone(),));
                check(&id("jvp"), &t);
                let (_, pullback) = cg::holo::vjp(x);
                check(&id("vjp"), &pullback(y).0);
            }
        }
    };
}

complex_cases!(c64, Complex<f32>, f32, "c64");
complex_cases!(c128, Complex<f64>, f64, "c128");
