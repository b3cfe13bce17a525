//! Reading `tests/fixtures/reduce.json` and comparing results with a stated
//! tolerance (shared by `tests/reduce.rs` and `tests/linalg.rs`).
#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use jax::element::Value as Scalar;
use jax::{bf16, f16, ArrayType, DType, Element};
use serde_json::Value;

/// Floats are compared within `ULPS` units of the result dtype's epsilon,
/// relative to the larger of |expected| and the case's `abs_scale` (the same
/// reduction of |x|, which bounds the error of any summation order). Exactly
/// representable results (ints, bool, max/min, ...) are compared exactly.
pub const ULPS: f64 = 8.0;

/// The fixture's cases by name, and the names a test has checked.
pub struct Fixture {
    pub meta: Value,
    pub cases: BTreeMap<String, Value>,
    visited: RefCell<BTreeSet<String>>,
    failures: RefCell<Vec<String>>,
}

impl Fixture {
    pub fn load() -> Self {
        let path = format!("{}/tests/fixtures/reduce.json", env!("CARGO_MANIFEST_DIR"));
        let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let cases = json["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["name"].as_str().unwrap().to_string(), c.clone()))
            .collect();
        Fixture {
            meta: json["meta"].clone(),
            cases,
            visited: RefCell::new(BTreeSet::new()),
            failures: RefCell::new(Vec::new()),
        }
    }

    /// An input array from `meta.inputs`, as the type the test names.
    #[track_caller]
    pub fn input<A: ArrayType>(&self, name: &str) -> A {
        let v = &self.meta["inputs"][name];
        let shape: Vec<usize> = v["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(A::SHAPE, &shape[..], "input {name}");
        assert_eq!(
            <A::Elem as Element>::DTYPE.name(),
            v["dtype"].as_str().unwrap(),
            "input {name}"
        );
        A::from_data(decode::<A::Elem>(v))
    }

    /// Compares `got` with case `name` (exactly when `exact`); a case where
    /// JAX raised is only marked visited.
    #[track_caller]
    pub fn check<A: ArrayType>(&self, name: &str, got: &A, exact: bool) {
        let case = self
            .cases
            .get(name)
            .unwrap_or_else(|| panic!("no fixture case {name}"));
        self.visited.borrow_mut().insert(name.to_string());
        if case.get("error").is_some() {
            return;
        }
        let scale = case.get("abs_scale").and_then(Value::as_array).cloned();
        if let Err(e) = compare(got, &case["output"], exact, scale.as_deref(), name) {
            self.failures.borrow_mut().push(e);
        }
    }

    /// [`Fixture::check`] of `f()`; where JAX raised, `f` must panic with
    /// JAX's message.
    #[track_caller]
    pub fn check_call<A: ArrayType>(&self, name: &str, exact: bool, f: impl FnOnce() -> A) {
        let case = self
            .cases
            .get(name)
            .unwrap_or_else(|| panic!("no fixture case {name}"));
        let Some(error) = case.get("error") else {
            return self.check(name, &f(), exact);
        };
        self.visited.borrow_mut().insert(name.to_string());
        let want = error["message"].as_str().unwrap();
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let msg = match got {
            Ok(_) => format!("{name}: JAX raises \"{want}\", this returned a value"),
            Err(e) => {
                let got = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                if got.contains(want) {
                    return;
                }
                format!("{name}: JAX raises \"{want}\", this panicked with \"{got}\"")
            }
        };
        self.failures.borrow_mut().push(msg);
    }

    /// Like [`Fixture::assert_no_failures`], except that each case of
    /// `known` must differ (a difference the caller explains): when one
    /// starts to match, it must leave the list.
    #[track_caller]
    pub fn assert_only_failures(&self, known: &[&str]) {
        let f = self.failures.borrow();
        let is_known = |line: &str| known.iter().any(|k| line.starts_with(&format!("{k}:")));
        let other: Vec<&String> = f.iter().filter(|l| !is_known(l)).collect();
        assert!(
            other.is_empty(),
            "{} cases differ from JAX:\n{}",
            other.len(),
            other
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
        for k in known {
            assert!(
                f.iter().any(|l| l.starts_with(&format!("{k}:"))),
                "{k} now matches JAX: take it off the list of known differences"
            );
        }
    }

    /// Panics with every mismatch found by [`Fixture::check`] so far.
    #[track_caller]
    pub fn assert_no_failures(&self) {
        let f = self.failures.borrow();
        assert!(
            f.is_empty(),
            "{} cases differ from JAX:\n{}",
            f.len(),
            f.join("\n")
        );
    }

    /// Panics unless every case whose name starts with one of `prefixes` was checked.
    #[track_caller]
    pub fn assert_all_visited(&self, filter: impl Fn(&Value) -> bool) {
        let visited = self.visited.borrow();
        let missing: Vec<&String> = self
            .cases
            .iter()
            .filter(|(n, c)| filter(c) && !visited.contains(*n))
            .map(|(n, _)| n)
            .collect();
        assert!(
            missing.is_empty(),
            "{} fixture cases not checked, e.g. {:?}",
            missing.len(),
            &missing[..missing.len().min(5)]
        );
    }
}

/// The elements of an encoded array, as `T` (floats through their exact bits).
pub fn decode<T: Element>(v: &Value) -> Vec<T> {
    let data = v["data"].as_array().unwrap();
    match v.get("bits").and_then(Value::as_array) {
        Some(bits) => bits
            .iter()
            .map(|b| T::from_f64(bits_to_f64(T::DTYPE, b)))
            .collect(),
        None => data
            .iter()
            .map(|d| match d {
                Value::Bool(b) => T::from_value(Scalar::Bool(*b)),
                Value::Number(n) if n.is_i64() => {
                    T::from_value(Scalar::Int(n.as_i64().unwrap() as i128))
                }
                Value::Number(n) if n.is_u64() => {
                    T::from_value(Scalar::Int(n.as_u64().unwrap() as i128))
                }
                other => panic!("unexpected value {other}"),
            })
            .collect(),
    }
}

fn bits_to_f64(dtype: DType, b: &Value) -> f64 {
    let u = u64::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    match dtype {
        DType::F16 => f16::from_bits(u as u16).to_f64(),
        DType::BF16 => bf16::from_bits(u as u16).to_f64(),
        DType::F32 => f32::from_bits(u as u32) as f64,
        DType::F64 => f64::from_bits(u),
        d => panic!("bits for {d:?}"),
    }
}

fn epsilon(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => f16::EPSILON.to_f64(),
        DType::BF16 => bf16::EPSILON.to_f64(),
        DType::F32 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

/// Asserts dtype, shape, weak type and values (see [`ULPS`]).
#[track_caller]
pub fn assert_close<A: ArrayType>(
    got: &A,
    want: &Value,
    exact: bool,
    scale: Option<&[Value]>,
    name: &str,
) {
    if let Err(e) = compare(got, want, exact, scale, name) {
        panic!("{e}");
    }
}

/// Compares dtype, shape, weak type and values (see [`ULPS`]).
// A NaN result must fail the tolerance test, hence `!(diff <= tol)`.
#[allow(clippy::neg_cmp_op_on_partial_ord, clippy::eq_op)]
pub fn compare<A: ArrayType>(
    got: &A,
    want: &Value,
    exact: bool,
    scale: Option<&[Value]>,
    name: &str,
) -> Result<(), String> {
    macro_rules! ensure {
        ($c:expr, $($fmt:tt)*) => { if !$c { return Err(format!($($fmt)*)); } };
    }
    let dtype = <A::Elem as Element>::DTYPE;
    ensure!(
        dtype.name() == want["dtype"].as_str().unwrap(),
        "{name}: dtype {} vs {}",
        dtype.name(),
        want["dtype"]
    );
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    ensure!(
        A::SHAPE == &shape[..],
        "{name}: shape {:?} vs {shape:?}",
        A::SHAPE
    );
    ensure!(
        got.is_weak() == want["weak_type"].as_bool().unwrap(),
        "{name}: weak_type"
    );
    let expected = decode::<A::Elem>(want);
    for (i, (&g, &w)) in got.data().iter().zip(&expected).enumerate() {
        if !dtype.is_float() || exact {
            let same = g == w || (g != g && w != w);
            ensure!(same, "{name}: element {i}: got {g:?}, JAX gives {w:?}");
            continue;
        }
        let (g, w) = (g.to_f64(), w.to_f64());
        if w.is_nan() || w.is_infinite() {
            ensure!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "{name}: element {i}: got {g}, JAX gives {w}"
            );
            continue;
        }
        // XLA's CPU backend flushes subnormal results to zero; this library
        // does not (a subnormal in the type computed in: f32 but for f64).
        let min_normal = if dtype == DType::F64 {
            f64::MIN_POSITIVE
        } else {
            f32::MIN_POSITIVE as f64
        };
        if w == 0.0 && g.abs() < min_normal {
            continue;
        }
        let s = scale.map_or(0.0, |s| s[i].as_f64().unwrap());
        let tol = ULPS * epsilon(dtype) * w.abs().max(s);
        ensure!(
            (g - w).abs() <= tol,
            "{name}: element {i}: got {g}, JAX gives {w} (tolerance {tol:e})"
        );
    }
    Ok(())
}
