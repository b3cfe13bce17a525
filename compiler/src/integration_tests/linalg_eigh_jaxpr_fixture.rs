//! Printed jaxprs of `jnp::linalg::eigh`, `eigvalsh`, `svd`, `svdvals` and
//! `norm` (the `eigh` and `svd` equations) against `jax.make_jaxpr` under
//! `jax.disable_jit()` (tests/fixtures/linalg_eigh.json, made by
//! tests/fixtures/gen/linalg_eigh.py).

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "jaxpr_eigh",
        "fn f(a: Array<f32, 3, 3>) -> (Array<f32, 3>, Array<f32, 3, 3>) { jnp::linalg::eigh(&a) }",
    ),
    (
        "jaxpr_eigh_batched",
        "fn f(a: Array<f32, 2, 3, 3>) -> (Array<f32, 2, 3>, Array<f32, 2, 3, 3>) { jnp::linalg::eigh(&a) }",
    ),
    (
        "jaxpr_eigvalsh",
        "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3> { jnp::linalg::eigvalsh(&a) }",
    ),
    (
        "jaxpr_svd",
        "fn f(a: Array<f32, 3, 2>) -> (Array<f32, 3, 3>, Array<f32, 2>, Array<f32, 2, 2>) { jnp::linalg::svd(&a) }",
    ),
    (
        "jaxpr_svdvals",
        "fn f(a: Array<f32, 2, 4>) -> Array<f32, 2> { jnp::linalg::svdvals(&a) }",
    ),
    (
        "jaxpr_norm",
        "fn f(a: Array<f32, 3, 2>) -> Array<f32> { jnp::linalg::norm(&a) }",
    ),
];

#[test]
fn eigh_and_svd_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("linalg_eigh", "jaxpr", CASES);
}

#[test]
fn eigh_of_a_non_square_matrix_is_jaxs_error() {
    let f: syn::ItemFn =
        syn::parse_str("fn f(a: Array<f32, 2, 3>) -> Array<f32, 2> { jnp::linalg::eigvalsh(&a) }")
            .unwrap();
    let e = jax_compiler::jaxpr_text(&f).unwrap_err().to_string();
    assert_eq!(
        e,
        "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape (2, 3): `jnp::linalg::eigvalsh` needs a square matrix"
    );
}
