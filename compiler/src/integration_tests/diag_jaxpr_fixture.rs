//! Printed jaxprs of `jnp::tril`, `triu`, `trace`, `diag` and `diagonal`
//! (a `gather`) against `jax.make_jaxpr` under `jax.disable_jit()`
//! (tests/fixtures/diag.json, made by tests/fixtures/gen/diag.py).

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "tril",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::tril(&x, 0) }",
    ),
    (
        "tril_k1_3d",
        "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 2, 3, 4> { jnp::tril(&x, 1) }",
    ),
    (
        "tril_neg_i32",
        "fn f(x: Array<i32, 4, 3>) -> Array<i32, 4, 3> { jnp::tril(&x, -1) }",
    ),
    (
        "triu",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::triu(&x, 0) }",
    ),
    (
        "triu_k2_3d",
        "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 2, 3, 4> { jnp::triu(&x, 2) }",
    ),
    (
        "trace",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32> { jnp::trace(&x, 0, 0, 1) }",
    ),
    (
        "trace_3d",
        "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 3> { jnp::trace(&x, -1, 0, 2) }",
    ),
    (
        "diag_vec",
        "fn f(v: Array<f32, 3>) -> Array<f32, 3, 3> { jnp::diag(&v, 0) }",
    ),
    (
        "diag_vec_neg",
        "fn f(v: Array<f32, 3>) -> Array<f32, 5, 5> { jnp::diag(&v, -2) }",
    ),
    (
        "diag_mat",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3> { jnp::diag(&x, 1) }",
    ),
    (
        "diag_mat_neg_i32",
        "fn f(x: Array<i32, 3, 4>) -> Array<i32, 1> { jnp::diag(&x, -2) }",
    ),
    (
        "diagonal",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3> { jnp::diagonal(&x, 0, 0, 1) }",
    ),
    (
        "diagonal_3d",
        "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 3, 1> { jnp::diagonal(&x, 1, 2, 0) }",
    ),
    (
        "diagonal_neg_i32",
        "fn f(x: Array<i32, 4, 3>) -> Array<i32, 3> { jnp::diagonal(&x, -1, 0, 1) }",
    ),
];

#[test]
fn diag_jaxprs_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("diag", "jaxpr", CASES);
}
