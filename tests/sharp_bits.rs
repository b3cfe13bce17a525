//! `examples/sharp_bits.rs` against real JAX: each snippet's printed value
//! equals the `repr` of its case in `seed_examples.json` (made without x64,
//! so this runs in that configuration).

#![cfg(not(feature = "x64"))]

mod common;

#[path = "../examples/sharp_bits.rs"]
#[allow(dead_code)]
mod sharp_bits;

#[test]
fn every_snippet_prints_what_jax_prints() {
    let mut failures = Vec::new();
    let snippets = sharp_bits::snippets();
    for (name, got) in &snippets {
        let case = common::case("seed_examples", name);
        let want = case["repr"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} has a repr"));
        if got != want {
            failures.push(format!("{name}:\n  ours {got}\n  JAX  {want}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        snippets.len(),
        failures.join("\n")
    );
}
