//! `jax::random`'s samplers against JAX (`tests/fixtures/prng_samplers.json`,
//! made by `tests/fixtures/gen/prng.py`): normal, exponential, gumbel,
//! truncated_normal in every float type, categorical, choice, and
//! checksums over every input the f32 transforms can see. Every case of the
//! file is checked; a case added to the generator fails here until it is
//! added to `ours`.

use crate::common;

use half::{bf16, f16};
use jax::random::{self, Continuous, Key, Uniform};
use jax::{Array, ArrayType, DefaultFloat as F, DefaultInt as I};
use rayon::prelude::*;
use serde_json::Value;

/// What a sampler gave: float bit patterns or integers.
#[derive(Debug, PartialEq)]
enum Got {
    Bits(Vec<u64>),
    Ints(Vec<i64>),
}

fn bits<T: Copy>(a: impl ArrayType<Elem = T>, to: fn(T) -> u64) -> Got {
    Got::Bits(a.data().iter().map(|&v| to(v)).collect())
}

fn f32s<A: ArrayType<Elem = f32>>(a: A) -> Got {
    bits(a, |v| v.to_bits() as u64)
}

fn f64s<A: ArrayType<Elem = f64>>(a: A) -> Got {
    bits(a, f64::to_bits)
}

fn f16s<A: ArrayType<Elem = f16>>(a: A) -> Got {
    bits(a, |v| v.to_bits() as u64)
}

fn bf16s<A: ArrayType<Elem = bf16>>(a: A) -> Got {
    bits(a, |v| v.to_bits() as u64)
}

fn defaults<A: ArrayType<Elem = F>>(a: A) -> Got {
    bits(a, common::element_bits)
}

fn ints<A: ArrayType>(a: A) -> Got
where
    A::Elem: Into<i64>,
{
    Got::Ints(a.data().iter().map(|&v| v.into()).collect())
}

fn key(seed: i64) -> Key {
    random::key(seed)
}

/// Our result for a case, or None for an explicit `float64` case without
/// x64 (JAX then truncates to float32; our `f64` is always f64).
fn ours(name: &str) -> Option<Got> {
    let x64 = cfg!(feature = "x64");
    if !x64 && name.contains("_f64") {
        return None;
    }
    let k0 = key(0);
    let logits_4x5 = || Array::<F, 20>::arange().reshape::<Array<F, 4, 5>>() / (7.0 as F);
    Some(match name {
        "normal_key0_1000_f32" => f32s(random::normal::<Array<f32, 1000>>(k0)),
        "normal_key0_1000_f64" => f64s(random::normal::<Array<f64, 1000>>(k0)),
        "normal_key0_1000_f16" => f16s(random::normal::<Array<f16, 1000>>(k0)),
        "normal_key0_1000_bf16" => bf16s(random::normal::<Array<bf16, 1000>>(k0)),
        "normal_key7_2x3_f32" => f32s(random::normal::<Array<f32, 2, 3>>(key(7))),
        "normal_key42_1000_default" => defaults(random::normal::<Array<F, 1000>>(key(42))),
        "exponential_key0_1000_f32" => f32s(random::exponential::<Array<f32, 1000>>(k0)),
        "exponential_key0_1000_f64" => f64s(random::exponential::<Array<f64, 1000>>(k0)),
        "exponential_key0_1000_f16" => f16s(random::exponential::<Array<f16, 1000>>(k0)),
        "exponential_key0_1000_bf16" => bf16s(random::exponential::<Array<bf16, 1000>>(k0)),
        "exponential_key3_default_5" => defaults(random::exponential::<Array<F, 5>>(key(3))),
        "gumbel_key0_1000_f32" => f32s(random::gumbel::<Array<f32, 1000>>(k0)),
        "gumbel_key0_1000_f64" => f64s(random::gumbel::<Array<f64, 1000>>(k0)),
        "gumbel_key0_1000_f16" => f16s(random::gumbel::<Array<f16, 1000>>(k0)),
        "gumbel_key0_1000_bf16" => bf16s(random::gumbel::<Array<bf16, 1000>>(k0)),
        "gumbel_key3_default_5" => defaults(random::gumbel::<Array<F, 5>>(key(3))),
        "truncated_normal_key0_1000_m2_2_f32" => {
            f32s(random::truncated_normal::<Array<f32, 1000>>(k0, -2.0, 2.0))
        }
        "truncated_normal_key0_1000_0_1_f32" => {
            f32s(random::truncated_normal::<Array<f32, 1000>>(k0, 0.0, 1.0))
        }
        "truncated_normal_key0_1000_m1_3_f64" => {
            f64s(random::truncated_normal::<Array<f64, 1000>>(k0, -1.0, 3.0))
        }
        "truncated_normal_key0_1000_m3_3_f64" => {
            f64s(random::truncated_normal::<Array<f64, 1000>>(k0, -3.0, 3.0))
        }
        "truncated_normal_key0_1000_1p5_inf_f32" => f32s(random::truncated_normal::<
            Array<f32, 1000>,
        >(k0, 1.5, f64::INFINITY)),
        "truncated_normal_key0_1000_minf_m0p5_f32" => f32s(random::truncated_normal::<
            Array<f32, 1000>,
        >(k0, f64::NEG_INFINITY, -0.5)),
        "truncated_normal_key0_1000_m2_2_f16" => {
            f16s(random::truncated_normal::<Array<f16, 1000>>(k0, -2.0, 2.0))
        }
        "truncated_normal_key0_1000_m2_2_bf16" => {
            bf16s(random::truncated_normal::<Array<bf16, 1000>>(k0, -2.0, 2.0))
        }
        "truncated_normal_key5_default_5" => {
            defaults(random::truncated_normal::<Array<F, 5>>(key(5), -1.0, 1.0))
        }
        "uniform_key0_100_m2_3_f16" => {
            f16s(random::uniform_range::<Array<f16, 100>>(k0, -2.0, 3.0))
        }
        "uniform_key0_100_m2_3_bf16" => {
            bf16s(random::uniform_range::<Array<bf16, 100>>(k0, -2.0, 3.0))
        }
        "uniform_key0_100_0p1_0p2_bf16" => {
            bf16s(random::uniform_range::<Array<bf16, 100>>(k0, 0.1, 0.2))
        }
        "categorical_key0_logits3_20" => {
            let logits = jax::jnp::log(&Array::<F, 3>::from([0.2, 0.3, 0.5]));
            ints(random::categorical::<Array<I, 20>, _>(k0, &logits, -1))
        }
        "categorical_key0_logits3_20_f64" => {
            let logits = jax::jnp::log(&Array::<f64, 3>::from([0.2, 0.3, 0.5]));
            ints(random::categorical::<Array<I, 20>, _>(k0, &logits, -1))
        }
        "categorical_key0_batch4x5" => {
            ints(random::categorical::<Array<I, 4>, _>(k0, &logits_4x5(), -1))
        }
        "categorical_key0_axis0" => {
            ints(random::categorical::<Array<I, 5>, _>(k0, &logits_4x5(), 0))
        }
        "categorical_key1_batch_shape_3x4" => ints(random::categorical::<Array<I, 3, 4>, _>(
            key(1),
            &logits_4x5(),
            -1,
        )),
        "choice_key0_a10_5" => ints(random::choice::<Array<I, 5>>(k0, 10, true)),
        "choice_key0_a10_5_noreplace" => ints(random::choice::<Array<I, 5>>(k0, 10, false)),
        "choice_key0_a10_10_noreplace" => ints(random::choice::<Array<I, 10>>(k0, 10, false)),
        "choice_key0_scalar" => ints(random::choice::<Array<I>>(k0, 10, true)),
        "choice_key0_array_6" => {
            let a = Array::<F, 10>::arange() * (3.0 as F);
            defaults(random::choice_rows::<Array<F, 6>, _>(k0, &a, true))
        }
        "choice_key0_2d_rows_3" => {
            let a = Array::<I, 12>::arange().reshape::<Array<I, 4, 3>>();
            ints(random::choice_rows::<Array<I, 3, 3>, _>(k0, &a, true))
        }
        "choice_key0_p_8" => {
            let p = Array::<F, 4>::from([0.1, 0.2, 0.3, 0.4]);
            ints(random::choice_weighted::<Array<I, 8>, _>(k0, &p, true))
        }
        "choice_key0_p_noreplace_3" => {
            let p = Array::<F, 4>::from([0.1, 0.2, 0.3, 0.4]);
            ints(random::choice_weighted::<Array<I, 3>, _>(k0, &p, false))
        }
        _ => panic!("{name}: a new case; add it to this test"),
    })
}

/// The expected value of a case, as bits for floats and integers otherwise.
fn expected(out: &Value) -> Got {
    if let Some(bits) = out["bits"].as_array() {
        Got::Bits(
            bits.iter()
                .map(|b| u64::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16))
                .map(Result::unwrap)
                .collect(),
        )
    } else {
        Got::Ints(
            out["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_i64().unwrap())
                .collect(),
        )
    }
}

fn config() -> &'static str {
    if cfg!(feature = "x64") {
        "x64_on"
    } else {
        "x64_off"
    }
}

/// Cases checked elsewhere: the kernels (unit tests of the crate, which
/// cannot be reached from here) and the checksums (below).
fn elsewhere(name: &str) -> bool {
    name.ends_with("_all_uniform_inputs")
        || ["log_f", "log1p_f", "erf_inv_f", "erf_bounds_f"]
            .iter()
            .any(|p| name.starts_with(p))
}

#[test]
fn samplers_match_jax_bit_for_bit() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in common::cases("prng_samplers") {
        let name = case["name"].as_str().unwrap();
        if case["config"] != config() || elsewhere(name) {
            continue;
        }
        let Some(got) = ours(name) else { continue };
        let want = expected(&case["output"]);
        if got != want {
            let detail = match (&got, &want) {
                (Got::Bits(g), Got::Bits(w)) => {
                    let bad: Vec<_> = (0..g.len().min(w.len()))
                        .filter(|&i| g[i] != w[i])
                        .collect();
                    format!(
                        "{} of {} differ, first at {:?}: ours {:#x}, JAX {:#x}",
                        bad.len(),
                        w.len(),
                        bad.first(),
                        bad.first().map_or(0, |&i| g[i]),
                        bad.first().map_or(0, |&i| w[i])
                    )
                }
                _ => format!("ours {got:?}\nJAX  {want:?}"),
            };
            failures.push(format!("{name}: {detail}"));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 30, "only {checked} cases checked");
}

/// `sum over m of bits(y_m) * (m + 1)` (mod 2^64) over the 2^23 uniform
/// values an f32 sampler can draw, with `u` made from `m` as JAX's uniform
/// makes it.
fn checksum(lo: f32, hi: f32, transform: fn(f32) -> f32) -> u64 {
    let span = hi - lo;
    (0u32..1 << 23)
        .into_par_iter()
        .map(|m| {
            let unit = f32::from_bits(0x3f80_0000 | m) - 1.0;
            let v = Uniform::mul_add(unit, span, lo);
            let u = if v < lo { lo } else { v };
            (transform(u).to_bits() as u64).wrapping_mul(m as u64 + 1)
        })
        .reduce(|| 0, u64::wrapping_add)
}

#[test]
fn f32_transforms_match_jax_on_every_uniform_value() {
    let expected_checksum = |name: &str| {
        let case = common::case("prng_samplers", &format!("{name}@x64_off"));
        let items = &case["output"]["items"];
        assert_eq!(items[0]["value"], 1 << 23, "{name}: count");
        items[1]["value"].as_u64().unwrap()
    };
    let minus_one_up = f32::from_bits((-1.0f32).to_bits() - 1);
    let sums = [
        (
            "normal_f32_all_uniform_inputs",
            checksum(minus_one_up, 1.0, <f32 as Continuous>::scaled_erf_inv),
        ),
        (
            "exponential_f32_all_uniform_inputs",
            checksum(0.0, 1.0, <f32 as Continuous>::neg_log1p_neg),
        ),
        (
            "gumbel_f32_all_uniform_inputs",
            checksum(f32::MIN_POSITIVE, 1.0, <f32 as Continuous>::neg_log_neg_log),
        ),
    ];
    for (name, sum) in sums {
        assert_eq!(sum, expected_checksum(name), "{name}");
    }
}

/// Large arrays (many parallel chunks, 16-lane groups, a ragged tail) equal
/// the sampler's definition applied element by element, at every SIMD level.
#[test]
fn large_samples_equal_the_elementwise_definition() {
    use jax::__rt::par::Level;
    const N: usize = 100_003;
    let k = random::fold_in(key(0), 5);
    let block = |i: usize| {
        random::threefry2x32(
            random::key_data(k).to_vec().try_into().unwrap(),
            [(i as u64 >> 32) as u32, i as u32],
        )
    };
    let lo = f32::from_bits((-1.0f32).to_bits() - 1);
    let span = 1.0 - lo;
    let want_normal: Vec<f32> = (0..N)
        .map(|i| {
            let v = Uniform::mul_add(<f32 as Uniform>::unit(block(i)), span, lo);
            <f32 as Continuous>::scaled_erf_inv(if v < lo { lo } else { v })
        })
        .collect();
    let want_uniform: Vec<f32> = (0..N).map(|i| <f32 as Uniform>::unit(block(i))).collect();
    let best = Level::supported();
    for level in [Level::Baseline, Level::Avx2, Level::Avx512] {
        if level > best {
            continue;
        }
        Level::set(level);
        let normal = random::normal::<Array<f32, N>>(k).to_vec();
        let uniform = random::uniform::<Array<f32, N>>(k).to_vec();
        Level::set(best);
        assert!(
            normal
                .iter()
                .zip(&want_normal)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "normal at {level:?}"
        );
        assert!(
            uniform
                .iter()
                .zip(&want_uniform)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "uniform at {level:?}"
        );
    }
}

/// `v` sorted.
fn sorted<T: Ord + Copy>(v: &[T]) -> Vec<T> {
    let mut v = v.to_vec();
    v.sort();
    v
}

/// A permutation fills its type up to the largest value: each of `0..n`
/// once. (A type that cannot hold `n - 1` does not compile: see the
/// `compile_fail` example of `random::permutation`.)
#[test]
fn permutations_fill_narrow_types_up_to_their_maximum() {
    let p = random::permutation::<Array<u8, 256>>(key(1)).to_vec();
    assert_eq!(sorted(&p), (0..=255u8).collect::<Vec<_>>());
    let p = random::permutation::<Array<i16, 1000>>(key(1)).to_vec();
    assert_eq!(sorted(&p), (0..1000i16).collect::<Vec<_>>());
    // Few values into many draws of a narrow type.
    let c = random::choice::<Array<u8, 1000>>(key(2), 10, true).to_vec();
    assert!(c.iter().all(|&v| v < 10), "{c:?}");
    let c = random::choice::<Array<u8, 256>>(key(2), 256, false).to_vec();
    assert_eq!(sorted(&c), (0..=255u8).collect::<Vec<_>>());
}

/// Indices `0..1000` do not fit `u8`: a panic, not values that wrap at 256.
#[test]
#[should_panic(expected = "choice: the result type u8 cannot hold the indices 0..1000")]
fn choice_refuses_a_type_that_cannot_hold_the_population() {
    let _ = random::choice::<Array<u8, 5>>(key(0), 1000, true);
}

/// As `choice`: 300 categories do not fit `u8`.
#[test]
#[should_panic(expected = "categorical: the result type u8 cannot hold the indices 0..300")]
fn categorical_refuses_a_type_that_cannot_hold_the_categories() {
    let logits = Array::<f32, 300>::zeros();
    let _: Array<u8, 2> = random::categorical(key(0), &logits, -1);
}

/// JAX's `choice(key, n)` is `randint(key, shape, 0, n)`; past `i32` (JAX
/// needs x64 for such `n`) it is int64's `randint`, so draws cover the
/// whole population.
#[test]
fn choice_draws_from_a_population_beyond_i32() {
    let n: i64 = 5_000_000_000;
    let c = random::choice::<Array<i64, 1000>>(key(0), n as usize, true).to_vec();
    let want = random::randint::<Array<i64, 1000>>(key(0), 0, n).to_vec();
    assert_eq!(c, want);
    assert!(c.iter().all(|v| (0..n).contains(v)));
    // All 1000 uniform draws below 2^31 would have probability
    // (2^31 / 5e9)^1000 < 1e-300.
    assert!(c.iter().any(|&v| v >= 1 << 31), "{c:?}");
    // Up to i32::MAX the draws are int32's (default-int) `randint`, as JAX's.
    let m = i32::MAX as usize;
    let c = random::choice::<Array<I, 100>>(key(0), m, true).to_vec();
    assert_eq!(
        c,
        random::randint::<Array<I, 100>>(key(0), 0, m as i64).to_vec()
    );
}

/// JAX's argmax over an empty axis raises; so does `categorical`.
#[test]
#[should_panic(expected = "categorical: attempt to get argmax of an empty sequence")]
fn categorical_of_no_categories_panics() {
    let logits = Array::<f32, 0>::zeros();
    let _: Array<i32, 3> = random::categorical(key(0), &logits, -1);
}

/// Empty batches with categories give an empty result, as in JAX.
#[test]
fn categorical_of_an_empty_batch_is_empty() {
    let logits = Array::<f32, 0, 4>::zeros();
    let c: Array<i32, 0> = random::categorical(key(0), &logits, -1);
    assert!(c.to_vec().is_empty());
}
