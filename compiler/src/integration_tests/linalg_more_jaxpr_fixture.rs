//! Printed jaxprs of `jnp::linalg::matrix_rank` and `norm_with` (ord 2 of
//! a matrix, inf of a vector) against `jax.make_jaxpr` under
//! `jax.disable_jit()` without x64 (tests/fixtures/linalg_more.json, made
//! by tests/fixtures/gen/linalg_more.py); and the compile errors of bad
//! options.

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "jaxpr_norm_ord2",
        "fn f(a: Array<f32, 3, 2>) -> Array<f32> { jnp::linalg::norm_with(&a, NormOptions { ord: NormOrd::P(2.0), ..Default::default() }) }",
    ),
    (
        "jaxpr_norm_vec_inf",
        "fn f(a: Array<f32, 4>) -> Array<f32> { jnp::linalg::norm_with(&a, NormOptions { ord: NormOrd::Inf, ..Default::default() }) }",
    ),
];

#[test]
fn norm_prints_as_jax() {
    jaxpr_cases::assert_print_as_jax("linalg_more", "jaxpr", CASES);
}

/// `matrix_rank`'s equations are JAX's; one literal prints differently:
/// JAX prints the f32 constant `finfo(float32).eps` (a NumPy scalar) with
/// Python's float64 repr, `1.1920928955078125e-07`, where this crate
/// prints every f32 literal with f32's shortest digits, `1.1920929e-07`
/// (the same value). The fixture's text is compared with that one
/// spelling replaced.
#[test]
fn matrix_rank_prints_as_jax() {
    let path = format!(
        "{}/../tests/fixtures/linalg_more.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let want = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "jaxpr_matrix_rank")
        .unwrap()["jaxpr"]
        .as_str()
        .unwrap()
        .replace("1.1920928955078125e-07:f32[]", "1.1920929e-07:f32[]");
    let f: syn::ItemFn =
        syn::parse_str("fn f(a: Array<f32, 3, 3>) -> Array<i32> { jnp::linalg::matrix_rank(&a) }")
            .unwrap();
    let got = jax_compiler::jaxpr_text(&f).unwrap();
    assert_eq!(got.trim(), want.trim());
}

fn error_of(src: &str) -> String {
    let f: syn::ItemFn = syn::parse_str(src).unwrap();
    jax_compiler::jaxpr_text(&f).unwrap_err().to_string()
}

#[test]
fn bad_options_are_compile_errors() {
    let e = error_of(
        "fn f(a: Array<f32, 3, 3>) -> Array<f32> { jnp::linalg::norm_with(&a, NormOptions { ord: NormOrd::P(3.0), ..Default::default() }) }",
    );
    assert!(e.starts_with("Invalid order '3' for matrix norm"), "{e}");
    let e = error_of(
        "fn f(a: Array<f32, 3>) -> Array<f32> { jnp::linalg::norm_with(&a, NormOptions { ord: NormOrd::Nuc, ..Default::default() }) }",
    );
    assert!(e.starts_with("Invalid order 'nuc' for vector norm"), "{e}");
    let e = error_of(
        "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> { let o = PinvOptions::default(); jnp::linalg::pinv_with(&a, o) }",
    );
    assert!(
        e.contains("is read from the literal written in the call"),
        "{e}"
    );
    let e = error_of(
        "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> { jnp::linalg::pinv_with(&a, OPTS) }",
    );
    assert!(
        e.starts_with("the options must be written literally here"),
        "{e}"
    );
    let e = error_of("fn f(a: Array<f32, 3>) -> Array<f32, 3> { jnp::linalg::pinv(&a) }");
    assert!(e.contains("takes a matrix or a batch of them"), "{e}");
    let e = error_of(
        "fn f(a: Array<f32, 3, 2>) -> (Array<f32, 3, 3>, Array<f32, 2>, Array<f32, 2, 2>) { jnp::linalg::svd_with(&a, SvdOptions { compute_uv: false, ..Default::default() }) }",
    );
    assert!(e.contains("call `jnp::linalg::svdvals(a)`"), "{e}");
}
