//! Printed jaxprs of `jnp::linalg::cholesky` and `jax::scipy::linalg`'s
//! `cholesky`, `cho_factor`, `cho_solve` and `solve_triangular`: the
//! `cholesky` and `triangular_solve` equations and what JAX composes around
//! them, against `jax.make_jaxpr` under `jax.disable_jit()` (which inlines
//! the named `jit` JAX wraps them in, as the Rust tracer does;
//! tests/fixtures/linalg_cholesky.json, made by
//! tests/fixtures/gen/linalg_cholesky.py).

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "cholesky_f32",
        "fn f(a: Array<f32, 4, 4>) -> Array<f32, 4, 4> { jnp::linalg::cholesky(&a) }",
    ),
    (
        "cholesky_batched_f32",
        "fn f(a: Array<f32, 2, 3, 3>) -> Array<f32, 2, 3, 3> { jnp::linalg::cholesky(&a) }",
    ),
    (
        "scipy_cholesky_upper_f32",
        "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> { jax::scipy::linalg::cholesky(&a, false) }",
    ),
    (
        "cho_factor_f32",
        "fn f(a: Array<f32, 3, 3>) -> Array<f32, 3, 3> { jax::scipy::linalg::cho_factor(&a, true).0 }",
    ),
    (
        "cho_solve_lower_f32",
        "fn f(a: Array<f32, 4, 4>, b: Array<f32, 4, 2>) -> Array<f32, 4, 2> {
            jax::scipy::linalg::cho_solve(jax::scipy::linalg::cho_factor(&a, true), &b)
        }",
    ),
    (
        "solve_triangular_lower_f32",
        "fn f(a: Array<f32, 4, 4>, b: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
            jax::scipy::linalg::solve_triangular(&a, &b, true)
        }",
    ),
    (
        "solve_triangular_vec_f32",
        "fn f(a: Array<f32, 4, 4>, b: Array<f32, 4>) -> Array<f32, 4> {
            jax::scipy::linalg::solve_triangular(&a, &b, true)
        }",
    ),
    (
        "solve_triangular_trans_f32",
        "fn f(a: Array<f32, 3, 3>, b: Array<f32, 3, 2>) -> Array<f32, 3, 2> {
            jax::scipy::linalg::solve_triangular_with(&a, &b, SolveTriangularOptions { lower: true, trans: Trans::T, unit_diagonal: false })
        }",
    ),
    (
        "solve_triangular_unit_f32",
        "fn f(a: Array<f32, 3, 3>, b: Array<f32, 3, 2>) -> Array<f32, 3, 2> {
            linalg::solve_triangular_with(&a, &b, linalg::SolveTriangularOptions { lower: true, unit_diagonal: true, ..Default::default() })
        }",
    ),
];

#[test]
fn cholesky_and_triangular_solves_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("linalg_cholesky", "jaxpr", CASES);
}
