//! The formatter against JAX's own repr and str (`tests/fixtures/format.json`,
//! `tests/fixtures/seed_examples.json`).

use super::*;
use serde_json::Value as Json;

fn fixture(file: &str) -> Vec<Json> {
    let path = format!("{}/tests/fixtures/{file}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: Json = serde_json::from_str(&text).unwrap();
    json["cases"].as_array().unwrap().clone()
}

/// The exact element values of a fixture array (floats from their bits).
fn decode(output: &Json) -> (Vec<Value>, Vec<usize>, DType, bool) {
    let dtype = DType::from_name(output["dtype"].as_str().unwrap()).unwrap();
    let shape = output["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let weak = output["weak_type"].as_bool().unwrap_or(false);
    let data = output["data"].as_array().unwrap();
    let values = match output.get("bits").and_then(Json::as_array) {
        Some(bits) => bits
            .iter()
            .map(|b| {
                let b =
                    u64::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
                Value::Float(match dtype {
                    DType::F16 => f16::from_bits(b as u16).to_f64(),
                    DType::BF16 => bf16::from_bits(b as u16).to_f64(),
                    DType::F32 => f32::from_bits(b as u32) as f64,
                    DType::F64 => f64::from_bits(b),
                    other => panic!("bits for {other:?}"),
                })
            })
            .collect(),
        None => data
            .iter()
            .map(|d| match d {
                Json::Bool(b) => Value::Bool(*b),
                Json::Number(n) => Value::Int(
                    n.as_i64()
                        .map(i128::from)
                        .or_else(|| n.as_u64().map(i128::from))
                        .unwrap_or_else(|| panic!("not an integer: {n}")),
                ),
                other => panic!("unexpected value {other}"),
            })
            .collect(),
    };
    (values, shape, dtype, weak)
}

#[test]
fn every_format_fixture_repr_and_str() {
    let cases = fixture("format");
    assert!(cases.len() >= 100);
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let (values, shape, dtype, weak) = decode(&case["output"]);
        let repr = format_repr(&values, &shape, dtype, weak);
        if repr != case["repr"].as_str().unwrap() {
            failures.push(format!(
                "{name} repr:\n got {repr}\nwant {}",
                case["repr"].as_str().unwrap()
            ));
        }
        let s = format_str(&values, &shape, dtype);
        if s != case["str"].as_str().unwrap() {
            failures.push(format!(
                "{name} str:\n got {s}\nwant {}",
                case["str"].as_str().unwrap()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_seed_example_array_repr() {
    let mut checked = 0;
    for case in fixture("seed_examples") {
        let (Some(output), Some(repr)) = (case.get("output"), case["repr"].as_str()) else {
            continue;
        };
        // NumPy values (`array(...)`, `np.int64(6)`) and non-arrays are not JAX's repr.
        if output.get("dtype").is_none() || !repr.starts_with("Array(") {
            continue;
        }
        let (values, shape, dtype, weak) = decode(output);
        assert_eq!(
            format_repr(&values, &shape, dtype, weak),
            repr,
            "{}",
            case["name"]
        );
        checked += 1;
    }
    assert!(checked >= 70, "only {checked} seed arrays");
}

#[test]
fn seed_str_2d_float() {
    // The seed case's source: str(jnp.ones((2, 3))).
    let case = fixture("seed_examples")
        .into_iter()
        .find(|c| c["name"] == "str_2d_float")
        .unwrap();
    let ones = vec![Value::Float(1.0); 6];
    assert_eq!(
        format_str(&ones, &[2, 3], DType::F32),
        case["output"]["value"].as_str().unwrap()
    );
}

#[test]
fn summarization_keeps_edges_only() {
    let data: Vec<i32> = (0..2000).collect();
    let grid = Grid::new(&data, &[40, 50], |x| Value::Int(x as i128));
    assert!(grid.summarized);
    assert_eq!(grid.kept_shape, [6, 6]);
    assert_eq!(grid.values.len(), 36);
    assert_eq!(grid.values[3], Value::Int(47));
    assert_eq!(grid.values[35], Value::Int(1999));
}
