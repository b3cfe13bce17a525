//! `examples/sharp_bits.rs` against real JAX: each snippet's printed value
//! equals the `repr` of its case in `seed_examples.json` (made without x64,
//! so this runs in that configuration); each error it raises is JAX's; each
//! snippet it rejects is rejected by JAX too (with the same error class where
//! JAX's is one of its own), and the error quoted in the example's comments
//! is the UI test's.

#![cfg(not(feature = "x64"))]

use crate::common;

#[path = "../../examples/sharp_bits.rs"]
#[allow(dead_code)]
mod example;

use example::Shown;

/// Snippets JAX runs without an error where Rust rejects them: the impure
/// functions (JAX prints while tracing, caches a global, leaks a tracer)
/// and the iterator that JAX silently reads as 0.
const ACCEPTED_BY_JAX: [&str; 4] = [
    "impure_print_side_effect",
    "impure_uses_globals",
    "impure_saves_global",
    "fori_loop_iterator_unexpected",
];

#[test]
fn every_snippet_shows_what_jax_shows() {
    let mut failures = Vec::new();
    let snippets = example::snippets();
    for (name, shown) in &snippets {
        let case = common::case("seed_examples", name);
        let jax_error = &case["error"];
        // `jax.errors.TracerBoolConversionError` -> `TracerBoolConversionError`.
        let jax_class = jax_error["type"]
            .as_str()
            .map(|t| t.rsplit('.').next().unwrap());
        match shown {
            Shown::Value(got) => {
                let want = case["repr"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{name} has a repr"));
                if got != want {
                    failures.push(format!("{name}:\n  ours {got}\n  JAX  {want}"));
                }
            }
            Shown::Raised(got) => {
                let want = format!(
                    "{}: {}",
                    jax_class.unwrap_or_else(|| panic!("{name}: JAX raised nothing")),
                    jax_error["message"].as_str().unwrap()
                );
                if !got.starts_with(&want) {
                    failures.push(format!("{name}:\n  ours {got}\n  JAX  {want}"));
                }
            }
            Shown::Rejected { ui, stderr } => {
                let ours = stderr.lines().next().unwrap_or_default();
                match jax_class {
                    None if !ACCEPTED_BY_JAX.contains(name) => {
                        failures.push(format!("{name}: JAX accepts it, we reject it ({ui})"))
                    }
                    Some(class)
                        if jax_error["type"]
                            .as_str()
                            .unwrap()
                            .starts_with("jax.errors.")
                            && !ours.starts_with(&format!("error: {class}:")) =>
                    {
                        failures.push(format!("{name}: JAX raises {class}, we say {ours}"))
                    }
                    _ => {}
                }
            }
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

/// The error quoted above each `reject!` in the example is the first line
/// of that UI test's `.stderr`, so the comments cannot drift from what the
/// compiler says.
#[test]
fn quoted_errors_match_the_ui_tests() {
    let source = include_str!("../../examples/sharp_bits.rs");
    let lines: Vec<&str> = source.lines().collect();
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if !trimmed.starts_with("reject!(") {
            continue;
        }
        // The call may span lines: its second string literal is the UI test.
        let call: String = lines[i..]
            .iter()
            .take_while(|l| !l.trim_end().ends_with(");"))
            .chain(lines[i..].iter().find(|l| l.trim_end().ends_with(");")))
            .map(|l| l.trim())
            .collect();
        let ui = call.split('"').nth(3).expect("reject!(name, ui)");
        // The comment block right above the call, from its `// error:` line.
        let comment: Vec<&str> = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.trim_start().starts_with("//"))
            .map(|l| l.trim_start().trim_start_matches("//").trim())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .skip_while(|l| !l.starts_with("error:"))
            .collect();
        let quoted = comment.join(" ");
        let path = format!("{}/ui-tests/fail/{ui}.stderr", env!("CARGO_MANIFEST_DIR"));
        let stderr = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let first = stderr.lines().next().unwrap();
        assert_eq!(quoted, first, "the comment above reject!(.., {ui:?})");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} rejected snippets found");
}
