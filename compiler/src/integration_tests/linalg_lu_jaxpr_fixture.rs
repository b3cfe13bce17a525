//! The printed `lu` equation against `jax.make_jaxpr` of
//! `jax.scipy.linalg.lu_factor` under `jax.disable_jit()` (square, batched,
//! wide and tall), from tests/fixtures/linalg_lu.json (made by
//! tests/fixtures/gen/linalg_lu.py).

/// (fixture key, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "lu_factor_3x3",
        "fn f(a: Array<f32, 3, 3>) -> (Array<f32, 3, 3>, Array<i32, 3>) { jax::scipy::linalg::lu_factor(&a) }",
    ),
    (
        "lu_factor_2x4x4",
        "fn f(a: Array<f32, 2, 4, 4>) -> (Array<f32, 2, 4, 4>, Array<i32, 2, 4>) { jax::scipy::linalg::lu_factor(&a) }",
    ),
    (
        "lu_factor_2x3",
        "fn f(a: Array<f32, 2, 3>) -> (Array<f32, 2, 3>, Array<i32, 2>) { jax::scipy::linalg::lu_factor(&a) }",
    ),
    (
        "lu_factor_3x2",
        "fn f(a: Array<f32, 3, 2>) -> (Array<f32, 3, 2>, Array<i32, 2>) { jax::scipy::linalg::lu_factor(&a) }",
    ),
];

#[test]
fn lu_prints_as_jax() {
    let path = format!(
        "{}/../tests/fixtures/linalg_lu.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut failures = Vec::new();
    for (key, src) in CASES {
        let want = json["jaxprs"][key].as_str().unwrap();
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let got = jax_compiler::jaxpr_text(&f).unwrap_or_else(|e| format!("error: {e}"));
        if got != want {
            failures.push(format!("{key}:\n--- ours\n{got}\n--- jax\n{want}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
