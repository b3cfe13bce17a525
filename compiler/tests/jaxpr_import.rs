//! Jaxpr text read back (`#[jax::jit(import = ..)]`'s parser): JAX's own
//! printed programs (tests/fixtures/jaxpr.json) print back byte for byte.

use serde_json::Value;

#[test]
fn jax_printed_programs_read_back() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/jaxpr.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut bad = Vec::new();
    for case in json["cases"].as_array().unwrap() {
        let text = case["jaxpr"].as_str().unwrap();
        let id = case["id"].as_str().unwrap();
        match jax_compiler::reprint_jaxpr(text) {
            Ok(t) if t == text => {}
            Ok(t) => bad.push(format!("{id}: reprinted differently:\n{t}\n---\n{text}")),
            Err(e) => bad.push(format!("{id}: {e}")),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
