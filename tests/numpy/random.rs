//! `jax::random` against JAX (`tests/fixtures/prng.json`). Every case whose
//! name starts with a tested prefix is checked, so cases added to the file
//! later are picked up by name.

use crate::common;

use jax::random;
use jax::Array;
use serde_json::Value;

fn u32s(v: &Value) -> Vec<u32> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as u32)
        .collect()
}

/// Every case (both configs) whose name starts with `prefix`.
fn cases(prefix: &str) -> Vec<Value> {
    let all: Vec<Value> = common::cases("prng")
        .into_iter()
        .filter(|c| c["name"].as_str().unwrap().starts_with(prefix))
        .collect();
    assert!(!all.is_empty(), "no cases named {prefix}*");
    all
}

/// The inputs of each case are written beside its name (they are the
/// source's literals); a new case without them fails, asking for them.
#[test]
fn threefry2x32_primitive_matches_jax() {
    // (key, x0, x1) of each case, in the order of its source.
    // (name, key, x0, x1)
    type Inputs = (&'static str, [u32; 2], Vec<u32>, Vec<u32>);
    let inputs: &[Inputs] = &[
        ("threefry2x32_p_zero_key_zero_ctr", [0, 0], vec![0], vec![0]),
        (
            "threefry2x32_p_ones_key_ones_ctr",
            [u32::MAX, u32::MAX],
            vec![u32::MAX],
            vec![u32::MAX],
        ),
        (
            "threefry2x32_p_pi_key_pi_ctr",
            [0x13198a2e, 0x03707344],
            vec![0x243f6a88],
            vec![0x85a308d3],
        ),
        (
            "threefry2x32_p_key0_counter_hi0_lo_iota8",
            [0, 0],
            vec![0; 8],
            (0..8).collect(),
        ),
    ];
    let fixtures = cases("threefry2x32_p_");
    for case in &fixtures {
        let name = case["name"].as_str().unwrap();
        let (_, key, x0, x1) = inputs
            .iter()
            .find(|(n, ..)| *n == name)
            .unwrap_or_else(|| panic!("{name}: add its inputs to this test"));
        let items = &case["output"]["items"];
        let (want0, want1) = (u32s(&items[0]), u32s(&items[1]));
        for i in 0..x0.len() {
            let got = jax::random::threefry2x32(*key, [x0[i], x1[i]]);
            assert_eq!(got, [want0[i], want1[i]], "{name} element {i}");
        }
    }
}

#[test]
fn threefry_2x32_wrapper_matches_jax() {
    let inputs: &[(&str, [u32; 2], Vec<u32>)] = &[
        ("threefry_2x32_key0_count_2", [0, 0], (0..2).collect()),
        ("threefry_2x32_key0_count_iota4", [0, 0], (0..4).collect()),
        (
            "threefry_2x32_key0_count_iota5_odd",
            [0, 0],
            (0..5).collect(),
        ),
        ("threefry_2x32_key0_count_iota10", [0, 0], (0..10).collect()),
        (
            "threefry_2x32_key_0_42_count_2x3",
            [0, 42],
            (0..6).collect(),
        ),
        (
            "threefry_2x32_ones_key_ones_count",
            [u32::MAX, u32::MAX],
            vec![u32::MAX, u32::MAX],
        ),
        (
            "threefry_2x32_pi_key_pi_count",
            [0x13198a2e, 0x03707344],
            vec![0x243f6a88, 0x85a308d3],
        ),
        ("threefry_2x32_fold_in_equivalent", [0, 0], vec![0, 1]),
    ];
    for case in &cases("threefry_2x32_") {
        let name = case["name"].as_str().unwrap();
        let (_, key, count) = inputs
            .iter()
            .find(|(n, ..)| *n == name)
            .unwrap_or_else(|| panic!("{name}: add its inputs to this test"));
        assert_eq!(
            jax::random::threefry_2x32(*key, count),
            u32s(&case["output"]),
            "{name}"
        );
    }
}

/// This build's fixture config: the `x64` feature is JAX_ENABLE_X64.
fn config() -> &'static str {
    if cfg!(feature = "x64") {
        "x64_on"
    } else {
        "x64_off"
    }
}

fn words(k: random::Key) -> Vec<u64> {
    random::key_data(k)
        .to_vec()
        .into_iter()
        .map(u64::from)
        .collect()
}

fn wide<T: Copy + Into<u64>>(v: Vec<T>) -> Vec<u64> {
    v.into_iter().map(Into::into).collect()
}

/// What we compute for a case, as (dtype, data) or a string.
fn ours(name: &str) -> Option<Result<(&'static str, Vec<u64>), String>> {
    let k0 = random::key(0);
    let keys = |ks: &[random::Key]| ("uint32", ks.iter().flat_map(|&k| words(k)).collect());
    Some(Ok(match name {
        "key_0_data" => ("uint32", words(k0)),
        "key_1_data" => ("uint32", words(random::key(1))),
        "key_42_data" => ("uint32", words(random::key(42))),
        "key_0_repr" => return Some(Err(format!("{k0:?}"))),
        "key_0_impl" => return Some(Err("threefry2x32".into())),
        "prngkey_legacy_0" => ("uint32", wide(random::PRNGKey(0).to_vec())),
        "split_key0" | "split_legacy_prngkey0" => keys(&random::split::<2>(k0)),
        "split_key0_3" => keys(&random::split::<3>(k0)),
        "split_key0_1" => keys(&random::split::<1>(k0)),
        // A (2, 3) array of keys is six keys in row-major order.
        "split_key0_shape_2x3" => keys(&random::split::<6>(k0)),
        "split_twice_first_child" => {
            let [k1, _k2] = random::split(k0);
            keys(&random::split::<2>(k1))
        }
        "fold_in_key0_1" => ("uint32", words(random::fold_in(k0, 1))),
        "fold_in_key0_123456" => ("uint32", words(random::fold_in(k0, 123456))),
        "bits_key0_8_uint32" => ("uint32", wide(random::bits::<Array<u32, 8>>(k0).to_vec())),
        "bits_key0_3_uint32" => ("uint32", wide(random::bits::<Array<u32, 3>>(k0).to_vec())),
        "bits_key0_10_uint32" => ("uint32", wide(random::bits::<Array<u32, 10>>(k0).to_vec())),
        "bits_key0_2x3_uint32" => (
            "uint32",
            wide(random::bits::<Array<u32, 2, 3>>(k0).to_vec()),
        ),
        "bits_key0_scalar_uint32" => ("uint32", wide(random::bits::<Array<u32>>(k0).to_vec())),
        "bits_key0_8_uint8" => ("uint8", wide(random::bits::<Array<u8, 8>>(k0).to_vec())),
        "bits_key0_5_uint16" => ("uint16", wide(random::bits::<Array<u16, 5>>(k0).to_vec())),
        // Rust's explicit u64 is always 64-bit; JAX without x64 truncates it to uint32.
        "bits_key0_4_uint64" if cfg!(feature = "x64") => {
            ("uint64", random::bits::<Array<u64, 4>>(k0).to_vec())
        }
        "bits_key0_10_uint64" if cfg!(feature = "x64") => {
            ("uint64", random::bits::<Array<u64, 10>>(k0).to_vec())
        }
        "bits_key0_default_dtype_8" if cfg!(feature = "x64") => {
            ("uint64", random::bits::<Array<u64, 8>>(k0).to_vec())
        }
        "bits_key0_default_dtype_8" => ("uint32", wide(random::bits::<Array<u32, 8>>(k0).to_vec())),
        "bits_key0_4_uint64" | "bits_key0_10_uint64" => return None,
        _ => panic!("{name}: a new case; add it to this test"),
    }))
}

#[test]
fn keys_split_fold_in_and_bits_match_jax() {
    let mut checked = 0;
    for prefix in ["key_", "prngkey_", "split_", "fold_in_", "bits_"] {
        for case in cases(prefix) {
            if case["config"] != config() {
                continue;
            }
            let name = case["name"].as_str().unwrap();
            let Some(got) = ours(name) else { continue };
            let out = &case["output"];
            match got {
                Err(text) => assert_eq!(text, out["value"].as_str().unwrap(), "{name}"),
                Ok((dtype, data)) => {
                    let want = if out["key_array"] == true {
                        &out["key_data"]
                    } else {
                        out
                    };
                    assert_eq!(dtype, want["dtype"].as_str().unwrap(), "{name}: dtype");
                    let want: Vec<u64> = want["data"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_u64().unwrap())
                        .collect();
                    assert_eq!(data, want, "{name}");
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} cases checked");
}

fn f32_bits(a: Vec<f32>) -> Vec<u64> {
    a.into_iter().map(|v| v.to_bits() as u64).collect()
}

fn f64_bits(a: Vec<f64>) -> Vec<u64> {
    a.into_iter().map(f64::to_bits).collect()
}

fn default_bits<A: jax::ArrayType<Elem = jax::DefaultFloat>>(a: A) -> Vec<u64> {
    a.data().iter().map(|&v| common::element_bits(v)).collect()
}

/// The bits of our result for a uniform case, or None when the case is
/// JAX truncating an explicit f64 without x64 (our f64 is always f64).
fn ours_uniform(name: &str) -> Option<Vec<u64>> {
    use jax::DefaultFloat as F;
    let k0 = random::key(0);
    let legacy = random::wrap_key_data(&random::PRNGKey(0));
    let x64 = cfg!(feature = "x64");
    Some(match name {
        "uniform_key0_10_f32" | "uniform_jit_equals_eager" => {
            default_bits(random::uniform::<Array<F, 10>>(k0))
        }
        "uniform_legacy_prngkey0_10" => default_bits(random::uniform::<Array<F, 10>>(legacy)),
        "uniform_key0_10_f32_explicit" => f32_bits(random::uniform::<Array<f32, 10>>(k0).to_vec()),
        "uniform_key0_10_f64" if x64 => f64_bits(random::uniform::<Array<f64, 10>>(k0).to_vec()),
        "uniform_legacy_prngkey0_10_f64" if x64 => {
            f64_bits(random::uniform::<Array<f64, 10>>(legacy).to_vec())
        }
        "uniform_key0_10_f64" | "uniform_legacy_prngkey0_10_f64" => return None,
        "uniform_key0_3" => default_bits(random::uniform::<Array<F, 3>>(k0)),
        "uniform_key0_2x3" => default_bits(random::uniform::<Array<F, 2, 3>>(k0)),
        "uniform_key0_scalar" => default_bits(random::uniform::<Array<F>>(k0)),
        "uniform_key0_10_minval_m2_maxval_3" => {
            default_bits(random::uniform_range::<Array<F, 10>>(k0, -2.0, 3.0))
        }
        "uniform_key0_5_minval_10_maxval_10p5" => {
            default_bits(random::uniform_range::<Array<F, 5>>(k0, 10.0, 10.5))
        }
        "uniform_key0_6_f16" => random::uniform::<Array<half::f16, 6>>(k0)
            .to_vec()
            .into_iter()
            .map(|v| v.to_bits() as u64)
            .collect(),
        "uniform_key0_6_bf16" => random::uniform::<Array<half::bf16, 6>>(k0)
            .to_vec()
            .into_iter()
            .map(|v| v.to_bits() as u64)
            .collect(),
        "uniform_of_fold_in" => {
            default_bits(random::uniform::<Array<F, 4>>(random::fold_in(k0, 7)))
        }
        "uniform_vmap_over_split_keys" => random::split::<3>(k0)
            .into_iter()
            .flat_map(|k| default_bits(random::uniform::<Array<F, 2>>(k)))
            .collect(),
        "uniform_after_split" => return None, // a tuple; checked below
        _ => panic!("{name}: a new case; add it to this test"),
    })
}

fn hex_bits(v: &Value) -> Vec<u64> {
    v["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| u64::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap())
        .collect()
}

#[test]
fn uniform_matches_jax_bit_for_bit() {
    let mut checked = 0;
    for case in cases("uniform_") {
        if case["config"] != config() {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let out = &case["output"];
        if name == "uniform_after_split" {
            let [k, sub] = random::split(random::key(0));
            let items = &out["items"];
            assert_eq!(
                default_bits(random::uniform::<Array<jax::DefaultFloat, 3>>(k)),
                hex_bits(&items[0])
            );
            assert_eq!(
                default_bits(random::uniform::<Array<jax::DefaultFloat, 3>>(sub)),
                hex_bits(&items[1])
            );
        } else if let Some(got) = ours_uniform(name) {
            assert_eq!(got, hex_bits(out), "{name}");
        } else {
            continue;
        }
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} cases checked");
}

fn ints<T: Copy + Into<i64>>(a: Vec<T>) -> Vec<i64> {
    a.into_iter().map(Into::into).collect()
}

#[test]
fn randint_and_bernoulli_match_jax() {
    use jax::DefaultFloat as F;
    use jax::DefaultInt as I;
    let k0 = random::key(0);
    let mut checked = 0;
    for prefix in ["randint_", "bernoulli_"] {
        for case in cases(prefix) {
            if case["config"] != config() {
                continue;
            }
            let name = case["name"].as_str().unwrap();
            let out = &case["output"];
            let got: Vec<Value> = match name {
                "randint_key0_10_0_100" => {
                    ints(random::randint::<Array<I, 10>>(k0, 0, 100).to_vec())
                        .into_iter()
                        .map(Value::from)
                        .collect()
                }
                "randint_key0_10_m5_5" => ints(random::randint::<Array<I, 10>>(k0, -5, 5).to_vec())
                    .into_iter()
                    .map(Value::from)
                    .collect(),
                "randint_key0_8_uint8_0_256" => {
                    ints(random::randint::<Array<u8, 8>>(k0, 0, 256).to_vec())
                        .into_iter()
                        .map(Value::from)
                        .collect()
                }
                "randint_key0_5_max_le_min" => {
                    ints(random::randint::<Array<I, 5>>(k0, 3, 3).to_vec())
                        .into_iter()
                        .map(Value::from)
                        .collect()
                }
                "randint_key0_10_intermediate_bits" => {
                    // The two halves of the bits randint draws from.
                    let [k1, k2] = random::split(k0);
                    let items = &out["items"];
                    assert_eq!(
                        wide(random::bits::<Array<u32, 10>>(k1).to_vec()),
                        u32s(&items[0])
                            .into_iter()
                            .map(u64::from)
                            .collect::<Vec<_>>()
                    );
                    assert_eq!(
                        wide(random::bits::<Array<u32, 10>>(k2).to_vec()),
                        u32s(&items[1])
                            .into_iter()
                            .map(u64::from)
                            .collect::<Vec<_>>()
                    );
                    checked += 1;
                    continue;
                }
                "bernoulli_key0_0p3_10" => random::bernoulli::<Array<bool, 10>, F>(k0, 0.3 as F)
                    .to_vec()
                    .into_iter()
                    .map(Value::from)
                    .collect(),
                "bernoulli_key0_default_p_10" => {
                    random::bernoulli::<Array<bool, 10>, F>(k0, 0.5 as F)
                        .to_vec()
                        .into_iter()
                        .map(Value::from)
                        .collect()
                }
                "bernoulli_key0_p_array" => {
                    let p = Array::<F, 5>::from([0.0, 0.25, 0.5, 0.75, 1.0]);
                    random::bernoulli_each(k0, &p)
                        .to_vec()
                        .into_iter()
                        .map(Value::from)
                        .collect()
                }
                _ => panic!("{name}: a new case; add it to this test"),
            };
            assert_eq!(&got, out["data"].as_array().unwrap(), "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} cases checked");
}

#[test]
fn permutation_matches_jax() {
    use jax::DefaultFloat as F;
    use jax::DefaultInt as I;
    let k0 = random::key(0);
    let mut checked = 0;
    for case in cases("permutation_") {
        if case["config"] != config() {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let out = &case["output"];
        let got: Vec<Value> = match name {
            "permutation_key0_10" => ints(random::permutation::<Array<I, 10>>(k0).to_vec())
                .into_iter()
                .map(Value::from)
                .collect(),
            "permutation_key0_array" => {
                let x = Array::<F, 10>::arange() * (2.0 as F);
                random::permutation_of(k0, &x)
                    .to_vec()
                    .into_iter()
                    .map(|v| Value::from(f64::from(v)))
                    .collect()
            }
            "permutation_key0_2d_rows" => {
                let x = Array::<I, 4, 3>::arange();
                ints(random::permutation_of(k0, &x).to_vec())
                    .into_iter()
                    .map(Value::from)
                    .collect()
            }
            "permutation_key0_10_intermediate_sort_keys" => {
                let [_, sub] = random::split(k0);
                wide(random::bits::<Array<u32, 10>>(sub).to_vec())
                    .into_iter()
                    .map(Value::from)
                    .collect()
            }
            _ => panic!("{name}: a new case; add it to this test"),
        };
        assert_eq!(&got, out["data"].as_array().unwrap(), "{name}");
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} cases checked");
}

/// The uniform sample `normal` transforms: [nextafter(-1, 0), 1) in the
/// default float type.
#[test]
fn normal_intermediate_uniform_matches_jax() {
    let case = common::case(
        "prng",
        &format!("normal_key0_10_intermediate_uniform@{}", config()),
    );
    let lo = if cfg!(feature = "x64") {
        f64::from_bits((-1.0f64).to_bits() - 1)
    } else {
        f32::from_bits((-1.0f32).to_bits() - 1) as f64
    };
    let u = random::uniform_range::<Array<jax::DefaultFloat, 10>>(random::key(0), lo, 1.0);
    assert_eq!(default_bits(u), hex_bits(&case["output"]));
}

#[test]
fn normal_matches_jax_bit_for_bit() {
    use jax::DefaultFloat as F;
    let k0 = random::key(0);
    let legacy = random::wrap_key_data(&random::PRNGKey(0));
    let mut checked = 0;
    for case in cases("normal_") {
        if case["config"] != config() {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let got = match name {
            "normal_key0_10" => default_bits(random::normal::<Array<F, 10>>(k0)),
            "normal_key0_10_f64" if cfg!(feature = "x64") => {
                f64_bits(random::normal::<Array<f64, 10>>(k0).to_vec())
            }
            "normal_key0_10_f64" => continue,
            "normal_legacy_prngkey0_5" => default_bits(random::normal::<Array<F, 5>>(legacy)),
            "normal_key0_scalar" => default_bits(random::normal::<Array<F>>(k0)),
            "normal_key0_10_intermediate_uniform" => continue, // its own test
            _ => panic!("{name}: a new case; add it to this test"),
        };
        assert_eq!(got, hex_bits(&case["output"]), "{name}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} cases checked");
}
