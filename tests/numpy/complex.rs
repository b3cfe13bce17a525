//! Complex element types against real JAX (`tests/fixtures/complex.json`,
//! from `tests/fixtures/gen/complex.py`): creation, printing, arithmetic,
//! promotion, the named complex functions, reductions and conversions.

use crate::common;

use jax::prelude::*;
use serde_json::Value;

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

fn complex_array<T: Element>(v: [(f64, f64); 8]) -> Array<T, 8> {
    Array::from(v.map(|(re, im)| T::from_parts(re, im)))
}

fn real_array<T: Element>(v: [f64; 8]) -> Array<T, 8> {
    Array::from(v.map(T::from_f64))
}

/// The bit patterns of an element: both parts for complex types.
fn bits<T: Element>(x: T) -> Vec<u64> {
    let z = x.cast::<Complex<f64>>();
    match T::DTYPE {
        DType::C64 => vec![
            (z.re as f32).to_bits() as u64,
            (z.im as f32).to_bits() as u64,
        ],
        DType::C128 => vec![z.re.to_bits(), z.im.to_bits()],
        DType::F32 => vec![(z.re as f32).to_bits() as u64],
        DType::F64 => vec![z.re.to_bits()],
        d => panic!("no bits for {d:?}"),
    }
}

fn expected_bits(case: &Value) -> Vec<u64> {
    case["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| u64::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap())
        .collect()
}

/// Asserts bit-for-bit equality with the fixture, or within `ulps` units in
/// the last place for transcendental functions (XLA's and Rust's libm differ).
#[track_caller]
fn check<T: Element, A: ArrayType<Elem = T>>(id: &str, got: &A, ulps: u64) {
    let case = common::case("complex", id);
    assert_eq!(
        case["dtype"].as_str().unwrap(),
        T::DTYPE.name(),
        "{id}: dtype"
    );
    let want = expected_bits(&case);
    let got: Vec<u64> = got.data().iter().flat_map(|&x| bits(x)).collect();
    assert_eq!(got.len(), want.len(), "{id}: length");
    for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
        let dist = if T::DTYPE == DType::C64 || T::DTYPE == DType::F32 {
            (g as u32 as i32 as i64 - w as u32 as i32 as i64).unsigned_abs()
        } else {
            (g as i64).wrapping_sub(w as i64).unsigned_abs()
        };
        assert!(
            dist <= ulps,
            "{id}[{k}]: got {g:#x}, JAX {w:#x} ({dist} ulps apart)"
        );
    }
}

#[track_caller]
fn check_bools<A: ArrayType<Elem = bool>>(id: &str, got: &A) {
    let case = common::case("complex", id);
    let want: Vec<bool> = case["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_bool().unwrap())
        .collect();
    assert_eq!(got.data(), &want[..], "{id}");
}

#[test]
fn creation_and_equality() {
    let z = Array::<Complex<f32>, 3>::zeros();
    assert_eq!(z.dtype(), DType::C64);
    assert_eq!(z.to_vec(), [Complex::new(0.0, 0.0); 3]);
    let o = Array::<Complex<f64>, 2>::ones();
    assert_eq!(o.dtype(), DType::C128);
    assert_eq!(o.to_vec(), [Complex::new(1.0, 0.0); 2]);
    let a = Array::<Complex<f32>, 2>::from([Complex::new(1.0, 2.0), Complex::new(3.0, -1.0)]);
    let b =
        Array::<Complex<f32>, 2>::from_data(vec![Complex::new(1.0, 2.0), Complex::new(3.0, -1.0)]);
    assert_eq!(a, b);
    assert_ne!(
        a,
        Array::from([Complex::new(1.0, 2.0), Complex::new(3.0, 1.0)])
    );
}

#[test]
fn printing_matches_jax() {
    let pr = |id: &str, repr: String, s: String| {
        let case = common::case("complex", id);
        assert_eq!(repr, case["repr"].as_str().unwrap(), "{id}: repr");
        assert_eq!(s, case["str"].as_str().unwrap(), "{id}: str");
    };
    let c = |re: f32, im: f32| Complex::new(re, im);
    let a = Array::from([c(1.0, 2.0), c(3.0, 0.0)]);
    pr("print_basic", format!("{a:?}"), a.to_string());
    for (id, v) in [
        ("print_scalar", c(1.0, 2.0)),
        ("print_scalar_neg_zero", c(-0.0, -1.0)),
        ("print_scalar_zero", c(0.0, 0.0)),
        ("print_scalar_real", c(2.5, 0.0)),
    ] {
        let a = Array::from(v);
        pr(id, format!("{a:?}"), a.to_string());
    }
    let a = Array::from([
        c(f32::NAN, 1.0),
        c(1.0, f32::INFINITY),
        c(f32::NEG_INFINITY, -2.5),
    ]);
    pr("print_nonfinite", format!("{a:?}"), a.to_string());
    let a = Array::from([[c(1e-5, 1.0), c(100.0, 2.5)]]);
    pr("print_exp_notation", format!("{a:?}"), a.to_string());
    let a = Array::from([c(0.1, 0.2)]);
    pr("print_tenths", format!("{a:?}"), a.to_string());
    let a = Array::from([[c(1.0, 2.0), c(-3.5, 0.25)], [c(0.1, -0.7), c(-0.0, -1.0)]]);
    pr("print_matrix", format!("{a:?}"), a.to_string());
    let a = complex_array::<Complex<f32>>(X);
    pr("print_inputs", format!("{a:?}"), a.to_string());
    let a = complex_array::<Complex<f64>>(X);
    pr("print_inputs_c128", format!("{a:?}"), a.to_string());
}

macro_rules! arithmetic_cases {
    ($name:ident, $c:ty, $r:ty, $tag:literal) => {
        #[test]
        fn $name() {
            let x = complex_array::<$c>(X);
            let y = complex_array::<$c>(Y);
            let r = real_array::<$r>(R);
            let id = |op: &str| format!("{op}_{}", $tag);
            check(&id("add"), &(&x + &y), 0);
            check(&id("sub"), &(&x - &y), 0);
            check(&id("mul"), &(&x * &y), 0);
            check(&id("div"), &(&x / &y), 1);
            check(&id("neg"), &(-&x), 0);
            check(&id("mul_weak"), &(&x * 2.5), 0);
            check(&id("add_real"), &(&x + &r), 0);
            let mixed: Array<$c, 8> = Array::from_data(
                (0..8)
                    .map(|k| if k % 2 == 0 { X[k] } else { Y[k] })
                    .map(|(a, b)| <$c>::from_parts(a, b))
                    .collect(),
            );
            check_bools(&id("eq"), &x.eq_(&mixed));
            check_bools(&id("ne"), &x.ne_(&mixed));
            check_bools(&id("eq"), &jnp::equal::<_, _, Array<bool, 8>>(&x, &mixed));
            check_bools(
                &id("ne"),
                &jnp::not_equal::<_, _, Array<bool, 8>>(&x, &mixed),
            );
            check(&id("to_real"), &x.astype::<$r>(), 0);
            check(&id("from_real"), &r.astype::<$c>(), 0);
        }
    };
}
arithmetic_cases!(arithmetic_c64, Complex<f32>, f32, "c64");
arithmetic_cases!(arithmetic_c128, Complex<f64>, f64, "c128");

#[test]
fn promotion_matches_jax() {
    let x = complex_array::<Complex<f32>>(X);
    check("c64_to_c128", &x.astype::<Complex<f64>>(), 0);
    let x128 = Array::<Complex<f64>, 8>::from(
        X.map(|(a, b)| Complex::new(a * (1.0 + 1e-9), b * (1.0 + 1e-9))),
    );
    check("c128_to_c64", &x128.astype::<Complex<f32>>(), 0);
    let i = Array::<i32, 8>::from([0, 1, 2, 3, 4, 5, 6, 7]);
    check("i32_plus_c64", &(&i + &x), 0);
    check("f32_plus_c64", &(&real_array::<f32>(R) + &x), 0);
    check("f64_plus_c64", &(&real_array::<f64>(R) + &x), 0);
}

macro_rules! function_cases {
    ($name:ident, $c:ty, $r:ty, $tag:literal) => {
        #[test]
        fn $name() {
            let x = complex_array::<$c>(X);
            let y = complex_array::<$c>(Y);
            let r = real_array::<$r>(R);
            let id = |op: &str| format!("{op}_{}", $tag);
            check(&id("real"), &jnp::real(&x), 0);
            check(&id("imag"), &jnp::imag(&x), 0);
            check(&id("conj"), &jnp::conj(&x), 0);
            check(&id("conj"), &jnp::conjugate(&x), 0);
            check(&id("abs"), &jnp::abs(&x), 1);
            check(&id("angle"), &jnp::angle(&x), 1);
            check(&id("exp"), &jnp::exp(&x), 2);
            check(&id("log"), &jnp::log(&x), 2);
            check(&id("sqrt"), &jnp::sqrt(&x), 2);
            check(&id("sum"), &jnp::sum(&x), 0);
            check(&id("prod"), &jnp::prod(&x), 1);
            let rev: Array<$r, 8> =
                Array::from_data(R.iter().rev().map(|&v| <$r>::from_f64(v)).collect());
            check(&id("complex"), &lax::complex(&r, &rev), 0);
            let m: Array<$c, 2, 4> = Array::from_data(x.to_vec());
            let n: Array<$c, 4, 2> = Array::from_data(y.to_vec());
            // XLA accumulates complex64 products in its own order: 2 ulps.
            check(&id("matmul"), &m.matmul(&n), 2);
            let idx = Array::<i32, 3>::from([0, 2, 2]);
            let upd: Array<$c, 3> = Array::from_data(y.to_vec()[..3].to_vec());
            check(&id("scatter_add"), &x.at(&idx).add(&upd), 0);
        }
    };
}
function_cases!(functions_c64, Complex<f32>, f32, "c64");
function_cases!(functions_c128, Complex<f64>, f64, "c128");

#[test]
fn real_arrays_keep_their_parts() {
    let x = Array::<i32, 3>::from([-1, 0, 5]);
    assert_eq!(jnp::real(&x).to_vec(), [-1, 0, 5]);
    assert_eq!(jnp::imag(&x).to_vec(), [0, 0, 0]);
    assert_eq!(jnp::conj(&x).to_vec(), [-1, 0, 5]);
    let f = Array::<f32, 2>::from([-2.0, 3.0]);
    assert_eq!(jnp::angle(&f).to_vec(), [std::f32::consts::PI, 0.0]);
    assert_eq!(jnp::abs(&f).to_vec(), [2.0, 3.0]);
}
