//! Comparing the printed jaxprs of Rust functions with the text
//! `jax.make_jaxpr` printed for the same functions (a fixture file's cases,
//! found by `name`).

use serde_json::Value;

/// Asserts that each `(fixture name, Rust source)` prints as the case's
/// `key` text in `tests/fixtures/{file}.json`, listing every difference.
#[track_caller]
pub fn assert_print_as_jax(file: &str, key: &str, cases: &[(&str, &str)]) {
    let path = format!(
        "{}/../tests/fixtures/{file}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut failures = Vec::new();
    for (name, src) in cases {
        let case = json["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == *name)
            .unwrap_or_else(|| panic!("no case {name} in {file}"));
        let want = case[key].as_str().unwrap();
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let got = jax_compiler::jaxpr_text(&f).unwrap_or_else(|e| format!("error: {e}"));
        if got != want {
            failures.push(format!("{name}:\n--- ours\n{got}\n--- jax\n{want}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
