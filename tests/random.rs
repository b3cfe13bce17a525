//! `jax::random` against JAX (`tests/fixtures/prng.json`). Every case whose
//! name starts with a tested prefix is checked, so cases added to the file
//! later are picked up by name.

mod common;

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
