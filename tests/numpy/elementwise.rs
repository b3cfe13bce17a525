//! Every elementwise `jnp`/`lax` function and operator against the outputs of
//! JAX 0.10.2 in `tests/fixtures/elementwise.json` (generator:
//! `tests/fixtures/gen/elementwise.py`).
//!
//! Exact operations (arithmetic, rounding, comparisons, selection, integer
//! math) must match bit for bit. Transcendental functions must be within a
//! stated number of ulps of JAX's result: XLA uses its own polynomial
//! approximations where we call the platform's libm, so neither is exact.
//! NaN matches any NaN (payloads and signs of NaN are not compared).
//!
//! XLA's CPU backend flushes f32/f64 subnormals to zero (inputs and
//! results); we keep IEEE gradual underflow. So elements whose input is a
//! subnormal f32/f64/bf16 value are skipped, and a subnormal result where
//! JAX has zero is accepted. (f16 is computed through f32, where its
//! subnormals are normal numbers, so nothing is flushed there.)

use crate::common;

use std::collections::BTreeSet;

use common::cases;
use jax::element::Value as Scalar;
use jax::ops::ToNumeric;
use jax::prelude::*;
use jax::{ArrayType, Element};
use serde_json::Value;

const UN: usize = 24;
const BN: usize = 144;

/// The fixture cases of one function.
fn named(name: &str) -> Vec<Value> {
    let all = cases("elementwise");
    let v: Vec<Value> = all.into_iter().filter(|c| c["name"] == name).collect();
    assert!(!v.is_empty(), "no fixture cases for {name}");
    v
}

fn float_of_bits(dtype: DType, bits: u64) -> f64 {
    match dtype {
        DType::F64 => f64::from_bits(bits),
        DType::F32 => f32::from_bits(bits as u32) as f64,
        DType::F16 => f16::from_bits(bits as u16).to_f64(),
        DType::BF16 => bf16::from_bits(bits as u16).to_f64(),
        _ => unreachable!(),
    }
}

/// A fixture array as an array type `A`; its dtype and size must be `A`'s.
fn input<A: ArrayType>(v: &Value) -> A {
    let dtype = <A::Elem as Element>::DTYPE;
    assert_eq!(v["dtype"].as_str().unwrap(), dtype.name(), "input dtype");
    let data = v["data"].as_array().unwrap();
    assert_eq!(data.len(), A::SIZE, "input length");
    let elems = (0..A::SIZE)
        .map(|i| {
            if let Some(bits) = v.get("bits") {
                let b = u64::from_str_radix(bits[i].as_str().unwrap().trim_start_matches("0x"), 16)
                    .unwrap();
                A::Elem::from_f64(float_of_bits(dtype, b))
            } else if let Some(b) = data[i].as_bool() {
                A::Elem::from_value(Scalar::Bool(b))
            } else if let Some(n) = data[i].as_i64() {
                A::Elem::from_value(Scalar::Int(n as i128))
            } else {
                A::Elem::from_value(Scalar::Int(data[i].as_u64().unwrap() as i128))
            }
        })
        .collect();
    A::from_data(elems)
}

/// A float's position on a line where adjacent floats differ by one.
fn ordered(dtype: DType, bits: u64) -> i64 {
    let sign = match dtype {
        DType::F64 => 1u64 << 63,
        DType::F32 => 1 << 31,
        _ => 1 << 15,
    };
    let mag = (bits & (sign - 1)) as i64;
    if bits & sign != 0 {
        -mag
    } else {
        mag
    }
}

/// Whether XLA's CPU backend flushes this value to zero: a subnormal in the
/// type it computes in (f32 for everything but f64).
fn flushed(dtype: DType, v: f64) -> bool {
    let min = if dtype == DType::F64 {
        f64::MIN_POSITIVE
    } else {
        f32::MIN_POSITIVE as f64
    };
    v != 0.0 && v.abs() < min
}

/// Which elements of an input XLA flushes to zero.
fn flushed_inputs<A: ArrayType>(x: &A) -> Vec<bool> {
    x.data()
        .iter()
        .map(|v| flushed(<A::Elem as Element>::DTYPE, v.to_f64()))
        .collect()
}

/// Checks `got` against a fixture array: dtype, shape, weak type, and every
/// element exactly, or within `ulps` for floats, skipping elements marked in
/// `skip` (subnormal inputs). Returns the largest ulp distance seen.
#[track_caller]
fn check<A: ArrayType>(what: &str, got: &A, expected: &Value, ulps: u64) -> u64 {
    check_skip(what, got, expected, ulps, &[])
}

#[track_caller]
fn check_skip<A: ArrayType>(
    what: &str,
    got: &A,
    expected: &Value,
    ulps: u64,
    skip: &[bool],
) -> u64 {
    let dtype = <A::Elem as Element>::DTYPE;
    assert_eq!(
        dtype.name(),
        expected["dtype"].as_str().unwrap(),
        "{what}: dtype"
    );
    let shape: Vec<usize> = expected["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "{what}: shape");
    assert_eq!(
        got.is_weak(),
        expected["weak_type"].as_bool().unwrap(),
        "{what}: weak_type"
    );
    if !dtype.is_float() {
        let data = expected["data"].as_array().unwrap();
        assert_eq!(data.len(), got.data().len(), "{what}: size");
        for (i, (&g, e)) in got.data().iter().zip(data).enumerate() {
            if skip.get(i) == Some(&true) {
                continue;
            }
            let want = match e {
                Value::Bool(b) => Scalar::Bool(*b),
                n => Scalar::Int(
                    n.as_i64()
                        .map(i128::from)
                        .unwrap_or_else(|| n.as_u64().unwrap() as i128),
                ),
            };
            assert_eq!(g.to_value(), want, "{what}: element {i}");
        }
        return 0;
    }
    let bits = expected["bits"].as_array().unwrap();
    let mut worst = 0;
    for (i, &g) in got.data().iter().enumerate() {
        let want_bits =
            u64::from_str_radix(bits[i].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
        let want = float_of_bits(dtype, want_bits);
        let have = g.to_f64();
        if (want.is_nan() && have.is_nan()) || skip.get(i) == Some(&true) {
            continue;
        }
        if want == 0.0 && flushed(dtype, have) && dtype != DType::F16 {
            continue;
        }
        let have_bits = common::element_bits(g);
        let d = if want.is_nan() || have.is_nan() || want.is_infinite() || have.is_infinite() {
            if have_bits == want_bits {
                0
            } else {
                u64::MAX
            }
        } else {
            ordered(dtype, have_bits).abs_diff(ordered(dtype, want_bits))
        };
        assert!(d <= ulps, "{what}: element {i}: got {have:e} ({have_bits:#x}), JAX gives {want:e} ({want_bits:#x}), {d} ulps apart (allowed {ulps})");
        worst = worst.max(d);
    }
    worst
}

/// Runs the closures for the dtypes listed and checks that together they
/// cover every dtype JAX accepts for this function.
macro_rules! unary {
    (lax $name:literal, ulps $ulps:expr, |$x:ident| $body:expr, [$($t:ty),*]) => {
        unary!(@ false, $name, $ulps, |$x| $body, [$($t),*])
    };
    ($name:literal, ulps $ulps:expr, |$x:ident| $body:expr, [$($t:ty),*]) => {
        unary!(@ true, $name, $ulps, |$x| $body, [$($t),*])
    };
    (@ $strict:expr, $name:literal, $ulps:expr, |$x:ident| $body:expr, [$($t:ty),*]) => {{
        let mut covered = BTreeSet::new();
        let mut accepted = BTreeSet::new();
        let mut worst = 0;
        for c in named($name) {
            let dtype = c["inputs"][0]["dtype"].as_str().unwrap().to_string();
            if c.get("error").is_none() {
                accepted.insert(dtype.clone());
            }
            $(
                if dtype == <$t as Element>::DTYPE.name() {
                    let $x: Array<$t, UN> = input(&c["inputs"][0]);
                    let what = format!("{}({dtype}, {})", $name, c["input_set"]);
                    let skip = flushed_inputs(&$x);
                    worst = worst.max(check_skip(&what, &$body, &c["output"], $ulps, &skip));
                    covered.insert(dtype.clone());
                }
            )*
        }
        if $strict {
            assert_eq!(covered, accepted, "{}: dtypes covered vs dtypes JAX accepts", $name);
        } else {
            assert!(!covered.is_empty() && covered.is_subset(&accepted), "{}: {covered:?}", $name);
        }
        worst
    }};
}

#[test]
#[cfg_attr(feature = "x64", ignore = "the fixture was made with x64 off")]
fn exact_unary_functions() {
    unary!("abs", ulps 0, |x| jnp::abs(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("sign", ulps 0, |x| jnp::sign(&x), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    unary!("floor", ulps 0, |x| jnp::floor(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("ceil", ulps 0, |x| jnp::ceil(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("round", ulps 0, |x| jnp::round(&x), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    unary!("trunc", ulps 0, |x| jnp::trunc(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("square", ulps 0, |x| jnp::square(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("negative", ulps 0, |x| jnp::negative(&x), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    unary!("negative", ulps 0, |x| -&x, [f32, f64, f16, bf16, i32, i8, u8, u32]);
    unary!(lax "negative", ulps 0, |x| lax::neg(&x), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    unary!("isnan", ulps 0, |x| jnp::isnan(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("isinf", ulps 0, |x| jnp::isinf(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("isfinite", ulps 0, |x| jnp::isfinite(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("logical_not", ulps 0, |x| jnp::logical_not(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!("invert", ulps 0, |x| !&x, [i32, i8, u8, u32, bool]);
    unary!(lax "invert", ulps 0, |x| lax::bitwise_not(&x), [i32, i8, u8, u32, bool]);
    unary!("sqrt", ulps 0, |x| jnp::sqrt(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!(lax "sqrt", ulps 0, |x| lax::sqrt(&x), [f32, f64, f16, bf16]);
    unary!("reciprocal", ulps 0, |x| jnp::reciprocal(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    unary!(lax "lax.round_away", ulps 0, |x| lax::round(&x, lax::RoundingMethod::AwayFromZero), [f32, f64, f16, bf16]);
    unary!(lax "lax.round_even", ulps 0, |x| lax::round(&x, lax::RoundingMethod::ToNearestEven), [f32, f64, f16, bf16]);
    unary!(lax "floor", ulps 0, |x| lax::floor(&x), [f32, f64, f16, bf16]);
    unary!(lax "ceil", ulps 0, |x| lax::ceil(&x), [f32, f64, f16, bf16]);
    unary!(lax "abs", ulps 0, |x| lax::abs(&x), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    unary!(lax "sign", ulps 0, |x| lax::sign(&x), [f32, f64, f16, bf16, i32, i8, u8, u32]);
}

#[test]
fn integer_pow() {
    for (name, n) in [
        ("lax.integer_pow2", 2),
        ("lax.integer_pow3", 3),
        ("lax.integer_pow0", 0),
        ("lax.integer_pow7", 7),
    ] {
        let mut covered = BTreeSet::new();
        for c in named(name) {
            let dtype = c["inputs"][0]["dtype"].as_str().unwrap();
            macro_rules! run {
                ($($t:ty),*) => {$(
                    if dtype == <$t as Element>::DTYPE.name() {
                        let x: Array<$t, UN> = input(&c["inputs"][0]);
                        check(name, &lax::integer_pow(&x, n), &c["output"], 0);
                        covered.insert(dtype.to_string());
                    }
                )*};
            }
            run!(f32, f64, f16, bf16, i32, i8, u8, u32);
        }
        assert_eq!(covered.len(), 8, "{name}");
    }
    let mut floats = 0;
    for c in named("lax.integer_pow-2") {
        let dtype = c["inputs"][0]["dtype"].as_str().unwrap();
        if dtype == "float32" {
            let x: Array<f32, UN> = input(&c["inputs"][0]);
            check(
                "integer_pow(-2)",
                &lax::integer_pow(&x, -2),
                &c["output"],
                0,
            );
            floats += 1;
        }
        if dtype == "int32" {
            let msg = c["error"]["message"].as_str().unwrap();
            let x: Array<i32, UN> = input(&c["inputs"][0]);
            let err = std::panic::catch_unwind(|| lax::integer_pow(&x, -2)).unwrap_err();
            assert_eq!(err.downcast_ref::<String>().unwrap(), &msg);
        }
    }
    assert_eq!(floats, 2);
}

#[test]
fn transcendental_unary_functions() {
    // Allowed distance from JAX, in ulps of the result type. 2 ulps
    // everywhere except where XLA's own approximation is further from the
    // exact value (checked with mpmath at 200 bits): exp2 (JAX is 35 ulps
    // off in f32 at x = -100, and 27% off in bf16 at x = 100, where it
    // multiplies by ln 2 in bf16), sinh/cosh (23 ulps at x = 88), erfc (7 ulps
    // in f64 at 0.9), expm1 (3 ulps). erf_inv is XLA's own polynomial: 0.
    let mut report = Vec::new();
    macro_rules! t {
        ($name:literal, $ulps:expr, $f:path) => {
            report.push(($name, unary!($name, ulps $ulps, |x| $f(&x), [f32, f64, f16, bf16, i32, i8, u8, u32, bool])));
        };
    }
    t!("exp", 2, jnp::exp);
    t!("exp2", 70, jnp::exp2);
    t!("log", 2, jnp::log);
    t!("log1p", 2, jnp::log1p);
    t!("log2", 2, jnp::log2);
    t!("log10", 2, jnp::log10);
    t!("expm1", 3, jnp::expm1);
    t!("sin", 2, jnp::sin);
    t!("cos", 2, jnp::cos);
    t!("tan", 2, jnp::tan);
    t!("tanh", 2, jnp::tanh);
    t!("sinh", 24, jnp::sinh);
    t!("cosh", 24, jnp::cosh);
    t!("arcsin", 2, jnp::arcsin);
    t!("arccos", 2, jnp::arccos);
    t!("arctan", 2, jnp::arctan);
    t!("arcsinh", 2, jnp::arcsinh);
    t!("arccosh", 2, jnp::arccosh);
    t!("arctanh", 2, jnp::arctanh);
    t!("cbrt", 2, jnp::cbrt);
    t!("rsqrt", 2, jnp::rsqrt);
    t!("erf", 2, jnp::erf);
    t!("erfc", 8, jnp::erfc);
    t!("erf_inv", 0, jnp::erf_inv);
    report.push((
        "logistic",
        unary!("logistic", ulps 2, |x| jnp::logistic(&x), [f32, f64, f16, bf16]),
    ));
    report.push((
        "sigmoid",
        unary!("logistic", ulps 2, |x| jnp::sigmoid(&x), [f32, f64, f16, bf16]),
    ));
    macro_rules! l {
        ($name:literal, $ulps:expr, $f:path) => {
            report.push(($name, unary!(lax $name, ulps $ulps, |x| $f(&x), [f32, f64, f16, bf16])));
        };
    }
    l!("exp", 2, lax::exp);
    l!("log", 2, lax::log);
    l!("log1p", 2, lax::log1p);
    l!("expm1", 3, lax::expm1);
    l!("tanh", 2, lax::tanh);
    l!("sin", 2, lax::sin);
    l!("cos", 2, lax::cos);
    l!("rsqrt", 2, lax::rsqrt);
    l!("logistic", 2, lax::logistic);
    l!("erf", 2, lax::erf);
    eprintln!("largest ulp distance from JAX per function: {report:?}");
}

type Inexact<T> = <T as jax::element::ToInexact>::Out;
type Num<T> = <T as ToNumeric>::Out;

/// Like `unary!` for the 144-element grids of two operands; `$Out` names the
/// result element type as a function of the input type.
macro_rules! binary {
    ($name:literal, ulps $ulps:expr, $Out:ident, |$x:ident, $y:ident| $body:expr, [$($t:ty),*]) => {{
        let mut covered = BTreeSet::new();
        let mut accepted = BTreeSet::new();
        let mut worst = 0;
        for c in named($name) {
            let dtype = c["inputs"][0]["dtype"].as_str().unwrap().to_string();
            if c.get("error").is_none() {
                accepted.insert(dtype.clone());
            }
            $(
                if dtype == <$t as Element>::DTYPE.name() {
                    let $x: Array<$t, BN> = input(&c["inputs"][0]);
                    let $y: Array<$t, BN> = input(&c["inputs"][1]);
                    let skip: Vec<bool> = flushed_inputs(&$x).iter().zip(flushed_inputs(&$y)).map(|(a, b)| *a || b).collect();
                    let got: Array<out_type!($Out, $t), BN> = $body;
                    worst = worst.max(check_skip(&format!("{}({dtype})", $name), &got, &c["output"], $ulps, &skip));
                    covered.insert(dtype.clone());
                }
            )*
        }
        assert_eq!(covered, accepted, "{}: dtypes covered vs dtypes JAX accepts", $name);
        worst
    }};
}
macro_rules! out_type {
    (Same, $t:ty) => { $t };
    (Bool, $t:ty) => { bool };
    (Inexact, $t:ty) => { Inexact<$t> };
    (Num, $t:ty) => { Num<$t> };
}

macro_rules! all { ($m:ident!($($a:tt)*)) => { $m!($($a)* [f32, f64, f16, bf16, i32, i8, u8, u32, bool]) }; }

#[test]
#[cfg_attr(feature = "x64", ignore = "the fixture was made with x64 off")]
fn exact_binary_functions() {
    binary!("add", ulps 0, Same, |x, y| jnp::add(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("add", ulps 0, Same, |x, y| &x + &y, [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("add", ulps 0, Same, |x, y| lax::add(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("subtract", ulps 0, Same, |x, y| jnp::subtract(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    binary!("subtract", ulps 0, Same, |x, y| &x - &y, [f32, f64, f16, bf16, i32, i8, u8, u32]);
    binary!("subtract", ulps 0, Same, |x, y| lax::sub(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    binary!("multiply", ulps 0, Same, |x, y| jnp::multiply(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("multiply", ulps 0, Same, |x, y| x * y, [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("multiply", ulps 0, Same, |x, y| lax::mul(x, y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("divide", ulps 0, Inexact, |x, y| jnp::divide(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("floor_divide", ulps 0, Num, |x, y| jnp::floor_divide(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("remainder", ulps 0, Num, |x, y| jnp::remainder(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("maximum", ulps 0, Same, |x, y| jnp::maximum(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("minimum", ulps 0, Same, |x, y| jnp::minimum(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("lax.max", ulps 0, Same, |x, y| lax::max(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("lax.min", ulps 0, Same, |x, y| lax::min(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    binary!("lax.div", ulps 0, Same, |x, y| lax::div(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    binary!("lax.div", ulps 0, Same, |x, y| &x / &y, [f32, f64, f16, bf16, i32, i8, u8, u32]);
    binary!("lax.rem", ulps 0, Same, |x, y| lax::rem(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32]);
    binary!("lax.rem", ulps 0, Same, |x, y| &x % &y, [f32, f64, f16, bf16, i32, i8, u8, u32]);
    binary!("bitwise_and", ulps 0, Same, |x, y| &x & &y, [i32, i8, u8, u32, bool]);
    binary!("bitwise_or", ulps 0, Same, |x, y| &x | &y, [i32, i8, u8, u32, bool]);
    binary!("bitwise_xor", ulps 0, Same, |x, y| &x ^ &y, [i32, i8, u8, u32, bool]);
    binary!("bitwise_and", ulps 0, Same, |x, y| lax::bitwise_and(&x, &y), [i32, i8, u8, u32, bool]);
    binary!("bitwise_or", ulps 0, Same, |x, y| lax::bitwise_or(&x, &y), [i32, i8, u8, u32, bool]);
    binary!("bitwise_xor", ulps 0, Same, |x, y| lax::bitwise_xor(&x, &y), [i32, i8, u8, u32, bool]);
    all!(binary!("logical_and", ulps 0, Bool, |x, y| jnp::logical_and(&x, &y),));
    all!(binary!("logical_or", ulps 0, Bool, |x, y| jnp::logical_or(&x, &y),));
    all!(binary!("logical_xor", ulps 0, Bool, |x, y| jnp::logical_xor(&x, &y),));
    all!(binary!("less", ulps 0, Bool, |x, y| jnp::less(&x, &y),));
    all!(binary!("less_equal", ulps 0, Bool, |x, y| jnp::less_equal(&x, &y),));
    all!(binary!("greater", ulps 0, Bool, |x, y| jnp::greater(&x, &y),));
    all!(binary!("greater_equal", ulps 0, Bool, |x, y| jnp::greater_equal(&x, &y),));
    all!(binary!("equal", ulps 0, Bool, |x, y| jnp::equal(&x, &y),));
    all!(binary!("not_equal", ulps 0, Bool, |x, y| jnp::not_equal(&x, &y),));
    all!(binary!("less", ulps 0, Bool, |x, y| x.lt(&y),));
    all!(binary!("less_equal", ulps 0, Bool, |x, y| x.le(&y),));
    all!(binary!("greater", ulps 0, Bool, |x, y| x.gt(&y),));
    all!(binary!("greater_equal", ulps 0, Bool, |x, y| x.ge(&y),));
    all!(binary!("equal", ulps 0, Bool, |x, y| x.eq_(&y),));
    all!(binary!("not_equal", ulps 0, Bool, |x, y| x.ne_(&y),));
    all!(binary!("less", ulps 0, Bool, |x, y| lax::lt(&x, &y),));
    all!(binary!("less_equal", ulps 0, Bool, |x, y| lax::le(&x, &y),));
    all!(binary!("greater", ulps 0, Bool, |x, y| lax::gt(&x, &y),));
    all!(binary!("greater_equal", ulps 0, Bool, |x, y| lax::ge(&x, &y),));
    all!(binary!("equal", ulps 0, Bool, |x, y| lax::eq(&x, &y),));
    all!(binary!("not_equal", ulps 0, Bool, |x, y| lax::ne(&x, &y),));
}

#[test]
#[cfg_attr(feature = "x64", ignore = "the fixture was made with x64 off")]
fn power_and_arctan2() {
    let p = binary!("power", ulps 1, Num, |x, y| jnp::power(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    let l = binary!("lax.pow", ulps 1, Same, |x, y| lax::pow(&x, &y), [f32, f64, f16, bf16]);
    let a = binary!("arctan2", ulps 2, Inexact, |x, y| jnp::arctan2(&x, &y), [f32, f64, f16, bf16, i32, i8, u8, u32, bool]);
    eprintln!("largest ulp distance: power {p}, lax.pow {l}, arctan2 {a}");
}

#[test]
fn where_and_clip() {
    macro_rules! run {
        ($($t:ty),*) => {{
            let mut n = 0;
            for c in named("where") {
                let dtype = c["inputs"][1]["dtype"].as_str().unwrap();
                $(
                    if dtype == <$t as Element>::DTYPE.name() {
                        let cond: Array<bool, BN> = input(&c["inputs"][0]);
                        let x: Array<$t, BN> = input(&c["inputs"][1]);
                        let y: Array<$t, BN> = input(&c["inputs"][2]);
                        let got: Array<$t, BN> = jnp::where_(&cond, &x, &y);
                        check("where", &got, &c["output"], 0);
                        check("select", &lax::select(&cond, &x, &y), &c["output"], 0);
                        n += 1;
                    }
                )*
            }
            for c in named("clip") {
                let dtype = c["inputs"][0]["dtype"].as_str().unwrap();
                $(
                    if dtype == <$t as Element>::DTYPE.name() {
                        let x: Array<$t, BN> = input(&c["inputs"][0]);
                        let lo: Array<$t, BN> = input(&c["inputs"][1]);
                        let hi: Array<$t, BN> = input(&c["inputs"][2]);
                        let got: Array<$t, BN> = jnp::clip(&x, &lo, &hi);
                        check("clip", &got, &c["output"], 0);
                        n += 1;
                    }
                )*
            }
            n
        }};
    }
    assert_eq!(run!(f32, f64, f16, bf16, i32, i8, u8, u32, bool), 18);
}

/// The `mixed:`, `weak:` and `bcast:` cases: promotion between dtypes, with
/// Rust scalars (weak literals) and broadcasting.
#[test]
#[cfg_attr(feature = "x64", ignore = "the fixture was made with x64 off")]
fn promotion_and_broadcasting_cases() {
    fn get(name: &str) -> Value {
        named(name).remove(0)
    }
    macro_rules! case {
        ($name:literal, |$($a:ident: $t:ty),*| $body:expr) => {{
            let c = get($name);
            let mut k = 0;
            $(
                let $a: $t = input(&c["inputs"][k]);
                k += 1;
            )*
            let _ = k;
            if c.get("error").is_some() {
                panic!("{} is an error case", $name);
            }
            check($name, &$body, &c["output"], 0);
        }};
    }
    type A<T> = Array<T, 4>;
    case!("mixed:i32+f32", |x: A<i32>, y: A<f32>| {
        let r: A<f32> = jnp::add(&x, &y);
        r
    });
    case!("mixed:u8+i8", |x: A<u8>, y: A<i8>| &x + &y);
    case!("mixed:bf16+f16", |x: A<bf16>, y: A<f16>| &x + &y);
    case!("mixed:f16*f32", |x: A<f16>, y: A<f32>| &x * &y);
    case!("mixed:bool+i32", |x: A<bool>, y: A<i32>| &x + &y);
    case!("mixed:i8-u8", |x: A<i8>, y: A<u8>| &x - &y);
    case!("mixed:u8/i8", |x: A<u8>, y: A<i8>| {
        let r: A<f32> = jnp::divide(&x, &y);
        r
    });
    case!("mixed:i32_max_f32", |x: A<i32>, y: A<f32>| {
        let r: A<f32> = jnp::maximum(&x, &y);
        r
    });
    case!("mixed:i32_lt_f32", |x: A<i32>, y: A<f32>| x.lt(&y));
    case!("mixed:u8_floor_divide_i8", |x: A<u8>, y: A<i8>| {
        let r: A<i16> = jnp::floor_divide(&x, &y);
        r
    });
    case!("mixed:i8_remainder_u8", |x: A<i8>, y: A<u8>| {
        let r: A<i16> = jnp::remainder(&x, &y);
        r
    });
    case!("mixed:where_i32_f16", |c: A<bool>, x: A<i32>, y: A<f16>| {
        let r: A<f16> = jnp::where_(&c, &x, &y);
        r
    });
    case!("weak:f32+1.0", |x: A<f32>| &x + 1.0);
    case!("weak:2.0*f32", |x: A<f32>| {
        let r: A<f32> = 2.0 * &x;
        r
    });
    case!("weak:i32+1.0", |x: A<i32>| &x + 1.0);
    case!("weak:u8+300", |x: A<u8>| &x + 300);
    case!("weak:i8*3", |x: A<i8>| &x * 3);
    case!("weak:f16-1.5", |x: A<f16>| &x - 1.5);
    case!("weak:bf16*0.1", |x: A<bf16>| &x * 0.1);
    case!("weak:1.0-f32", |x: A<f32>| {
        let r: A<f32> = 1.0 - &x;
        r
    });
    case!("weak:bool+1", |x: A<bool>| &x + 1);
    case!("weak:bool*True", |x: A<bool>| &x * true);
    case!("weak:i32_and_6", |x: A<i32>| &x & 6);
    case!("weak:u8_xor_255", |x: A<u8>| &x ^ 255);
    case!("weak:i32_pow_3", |x: A<i32>| jnp::power(&x, 3));
    case!("weak:f32_pow_-2", |x: A<f32>| jnp::power(&x, -2));
    case!("weak:f32_pow_0.5", |x: A<f32>| jnp::power(&x, 0.5));
    case!("weak:i32_pow_0.5", |x: A<i32>| jnp::power(&x, 0.5));
    case!("weak:f32_max_0", |x: A<f32>| jnp::maximum(&x, 0.0));
    case!("weak:i32_max_0.5", |x: A<i32>| jnp::maximum(&x, 0.5));
    case!("weak:i32_floor_divide_0", |x: A<i32>| jnp::floor_divide(
        &x, 0
    ));
    case!("weak:i32_remainder_0", |x: A<i32>| jnp::remainder(&x, 0));
    case!("weak:i32_remainder_-3", |x: A<i32>| jnp::remainder(&x, -3));
    case!("weak:f32_remainder_-1.25", |x: A<f32>| jnp::remainder(
        &x, -1.25
    ));
    case!("weak:i32_gt_0", |x: A<i32>| x.gt(0));
    case!("weak:u8_lt_-1", |x: A<u8>| x.lt(-1));
    case!("weak:where_f32_0", |x: A<f32>| {
        let r: A<f32> = jnp::where_(x.gt(0), &x, 0);
        r
    });
    case!("weak:where_i32_0.0", |x: A<i32>| {
        let r: A<DefaultFloat> = jnp::where_(x.gt(0), &x, 0.0);
        r
    });
    // JAX: jnp.clip(x_i32, 0, 5.5) is f32; here both bounds must promote with
    // x to the same type, so the float bound is written as a float for both.
    case!("weak:clip_i32_0_5.5", |x: A<i32>| jnp::clip(&x, 0.0, 5.5));
    case!(
        "bcast:add_3x1_1x4",
        |x: Array<f32, 3, 1>, y: Array<f32, 1, 4>| {
            let r: Array<f32, 3, 4> = jnp::add(&x, &y);
            r
        }
    );
    case!("bcast:max_3_2x1", |x: Array<i8, 3>, y: Array<i8, 2, 1>| {
        let r: Array<i8, 2, 3> = jnp::maximum(&x, &y);
        r
    });
    case!(
        "bcast:where_3x1_1x4_scalar",
        |c: Array<bool, 3, 1>, x: Array<f32, 1, 4>| {
            let r: Array<f32, 3, 4> = jnp::where_(&c, &x, -1.0);
            r
        }
    );
    case!(
        "bcast:less_2x3_3",
        |x: Array<i32, 2, 3>, y: Array<i32, 3>| x.lt(&y)
    );
    let c = get("weak:i32_pow_-1");
    let x: A<i32> = input(&c["inputs"][0]);
    let err = std::panic::catch_unwind(|| jnp::power(&x, -1)).unwrap_err();
    assert_eq!(
        err.downcast_ref::<String>().unwrap(),
        c["error"]["message"].as_str().unwrap()
    );
}

/// `jnp::where_` broadcasts its operands against each other (a `[3, 1]`
/// condition, a `[1, 4]` array, a scalar) in a jitted body as eagerly: one
/// text (`jax_core::jnp::where_`) serves both.
#[jax::jit]
fn where_bcast_jit(c: &Array<bool, 3, 1>, x: &Array<f32, 1, 4>) -> Array<f32, 3, 4> {
    jnp::where_(c, x, -1.0)
}

#[test]
fn where_broadcasts_when_jitted() {
    let c = named("bcast:where_3x1_1x4_scalar").remove(0);
    let cond: Array<bool, 3, 1> = input(&c["inputs"][0]);
    let x: Array<f32, 1, 4> = input(&c["inputs"][1]);
    check("where (jit)", &where_bcast_jit(&cond, &x), &c["output"], 0);
}

/// `mixed64:` cases: explicit 64-bit types promote as with x64 on, whatever
/// the `x64` feature says (build.rs generates `Promote` that way).
#[test]
fn explicit_64_bit_promotion() {
    fn get(name: &str) -> Value {
        named(name).remove(0)
    }
    let c = get("mixed64:u32+i32");
    let (x, y): (Array<u32, 4>, Array<i32, 4>) = (input(&c["inputs"][0]), input(&c["inputs"][1]));
    check("u32+i32", &(&x + &y), &c["output"], 0);
    let c = get("mixed64:f32+f64");
    let (x, y): (Array<f32, 4>, Array<f64, 4>) = (input(&c["inputs"][0]), input(&c["inputs"][1]));
    check("f32+f64", &(&x + &y), &c["output"], 0);
    let c = get("mixed64:i32*f64");
    let (x, y): (Array<i32, 4>, Array<f64, 4>) = (input(&c["inputs"][0]), input(&c["inputs"][1]));
    check("i32*f64", &(&x * &y), &c["output"], 0);
    let c = get("mixed64:u32/i32");
    let (x, y): (Array<u32, 4>, Array<i32, 4>) = (input(&c["inputs"][0]), input(&c["inputs"][1]));
    let q: Array<f64, 4> = jnp::divide(&x, &y);
    check("u32/i32", &q, &c["output"], 0);
}
