//! Reading the fixtures that real JAX produced (`tests/fixtures/*.json`).
#![allow(dead_code)]

use jax::{ArrayType, Element};
use serde_json::Value;

pub mod linalg;

/// All cases of a fixture file, e.g. `cases("seed_examples")`.
pub fn cases(file: &str) -> Vec<Value> {
    let path = format!("{}/tests/fixtures/{file}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: Value = serde_json::from_str(&text).unwrap();
    json["cases"].as_array().unwrap().clone()
}

/// The case with this `id` (or `name`, for files without ids).
pub fn case(file: &str, id: &str) -> Value {
    cases(file)
        .into_iter()
        .find(|c| c.get("id").and_then(Value::as_str) == Some(id) || c["name"] == id)
        .unwrap_or_else(|| panic!("no case {id} in {file}"))
}

/// The `output` of a seed example, by name.
pub fn seed_output(name: &str) -> Value {
    case("seed_examples", name)["output"].clone()
}

/// The `repr` of a seed example, by name.
pub fn seed_repr(name: &str) -> String {
    case("seed_examples", name)["repr"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The exact bits of an element, widened to u64, for comparing floats bit for bit.
pub fn element_bits<T: Element>(x: T) -> u64 {
    match T::DTYPE {
        jax::DType::F32 => (x.to_f64() as f32).to_bits() as u64,
        jax::DType::F64 => x.to_f64().to_bits(),
        jax::DType::F16 => jax::f16::from_f64(x.to_f64()).to_bits() as u64,
        jax::DType::BF16 => jax::bf16::from_f64(x.to_f64()).to_bits() as u64,
        _ => x.to_f64().to_bits(),
    }
}

fn json_element_bits(dtype: jax::DType, data: &Value, bits: Option<&Value>) -> u64 {
    if let Some(b) = bits {
        let s = b.as_str().unwrap();
        return u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    }
    let v = match data {
        Value::Bool(b) => *b as u8 as f64,
        Value::Number(n) => n.as_f64().unwrap(),
        other => panic!("unexpected fixture value {other} for {dtype:?}"),
    };
    v.to_bits()
}

/// Asserts that `got` equals a fixture array exactly: dtype, shape, every
/// element (floats by their bits), and the weak-type flag.
#[track_caller]
pub fn assert_matches<A: ArrayType>(got: &A, expected: &Value) {
    let dtype = <A::Elem as Element>::DTYPE;
    assert_eq!(dtype.name(), expected["dtype"].as_str().unwrap(), "dtype");
    let shape: Vec<usize> = expected["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, &shape[..], "shape");
    let data = expected["data"].as_array().unwrap();
    let bits = expected.get("bits").and_then(Value::as_array);
    assert_eq!(got.data().len(), data.len(), "size");
    for (i, (&g, e)) in got.data().iter().zip(data).enumerate() {
        let want = json_element_bits(dtype, e, bits.map(|b| &b[i]));
        let have = element_bits(g);
        assert_eq!(have, want, "element {i}: got {g:?}, expected {e}");
    }
    if let Some(w) = expected.get("weak_type").and_then(Value::as_bool) {
        assert_eq!(got.is_weak(), w, "weak_type");
    }
}

/// A fixture id for the configuration these tests are built in:
/// `name@x64_on` with the `x64` feature, else `name@x64_off`.
pub fn config_id(name: &str) -> String {
    let config = if cfg!(feature = "x64") {
        "x64_on"
    } else {
        "x64_off"
    };
    format!("{name}@{config}")
}

/// A fixture array (`{"data": [..]}`, NaN and infinities as `"nan"`,
/// `"inf"`, `"-inf"`) as an array of type `A`.
pub fn array_arg<A: ArrayType>(v: &Value) -> A {
    A::from_data(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                A::Elem::from_f64(match d.as_str() {
                    Some("nan") => f64::NAN,
                    Some("inf") => f64::INFINITY,
                    Some("-inf") => f64::NEG_INFINITY,
                    _ => d.as_f64().unwrap(),
                })
            })
            .collect(),
    )
}

/// A case of fixture `$file`: the jitted body, the eager expression on the same arguments,
/// and with `grads` the jvp and vjp of the jitted function.
#[macro_export]
macro_rules! fixture_case {
    ($file:literal, $kind:ident, $name:ident, |$($x:ident: $t:ty),+| -> $r:ty { $jit:expr }, $eager:expr) => {
        mod $name {
            use super::*;

            #[jax::jit]
            pub fn jitted($($x: $t),+) -> $r {
                $jit
            }

            #[allow(unused_assignments)]
            pub fn check() {
                let c = common::case($file, stringify!($name));
                let mut k = 0;
                $(let $x: $t = common::array_arg(&c["args"][k]); k += 1;)+
                let eager: $r = $eager;
                common::assert_matches(&eager, &c["output"]);
                let jit = jitted($($x.clone()),+);
                common::assert_matches(&jit, &c["output"]);
                $crate::fixture_case!(@$kind c, $($x: $t),+);
            }
        }
    };
    (@values $c:ident, $($x:ident: $t:ty),+) => {};
    (@grads $c:ident, $($x:ident: $t:ty),+) => {{
        let mut k = 0;
        let tangents = ($({
            let t: $t = common::array_arg(&$c["tangents"][k]);
            k += 1;
            t
        },)+);
        let (_, ty) = jitted::jvp(($($x.clone(),)+), tangents);
        common::assert_matches(&ty, &$c["jvp"]);
        let (_, pullback) = jitted::vjp($($x.clone()),+);
        let ($($x,)+) = pullback(common::array_arg(&$c["cotangent"]));
        let mut k = 0;
        $(
            common::assert_matches(&$x, &$c["vjp"]["items"][k]);
            k += 1;
        )+
    }};
}
