//! Printed jaxprs of `jnp::select` (conditions stacked behind an all-false
//! one with `stack`, `argmax`, `select_n`) and of `jnp::stack` against
//! `jax.make_jaxpr` (tests/fixtures/jnp_select.json, made by
//! tests/fixtures/gen/jnp_select.py).

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "select_i32",
        "fn f(x: Array<i32, 8>) -> Array<i32, 8> { jnp::select([jnp::less(&x, -1), jnp::greater(&x, 2)], [&x * 10, &x * 100], 0) }",
    ),
    (
        "select_first_wins",
        "fn f(x: Array<f32, 2, 4>) -> Array<f32, 2, 4> { jnp::select([jnp::greater(&x, 0.0), jnp::greater(&x, 0.5)], [&x + 1.0, &x * 0.0 - 7.0], -1.0) }",
    ),
    (
        "select_broadcast",
        "fn f(x: Array<f32, 2, 3>, d: Array<f32, 3>) -> Array<f32, 2, 3> { jnp::select([jnp::greater(&x, 0.5), jnp::less(&x, -0.5)], [&x * &x, jnp::sin(&x)], &d) }",
    ),
    (
        "select_cond_rows",
        "fn f(x: Array<f32, 4, 3>, r: Array<f32, 3>) -> Array<f32, 4, 3> { jnp::select([jnp::greater(&x, 0.0), jnp::greater(&r, 0.0)], (x.clone(), &r * 2.0), 0.0) }",
    ),
    (
        "select_promoted",
        "fn f(x: Array<i32, 6>) -> Array<f32, 6> { jnp::select([jnp::greater(&x, 1)], [x.clone()], 0.5) }",
    ),
    (
        "stack_axis1",
        "fn f(a: Array<f32, 3>, b: Array<f32, 3>) -> Array<f32, 3, 2> { jnp::stack([a, b], 1) }",
    ),
    (
        "stack_promoted",
        "fn f(a: Array<i32, 2, 2>, b: Array<f32, 2, 2>) -> Array<f32, 2, 2, 2> { jnp::stack((a, b), -1) }",
    ),
];

#[test]
fn select_and_stack_jaxprs_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("jnp_select", "jaxpr", CASES);
}
