//! Printed jaxprs of `jnp::linalg::det` of 2×2 and 3×3 matrices (JAX's
//! closed forms: slices, squeezes and products) against `jax.make_jaxpr`
//! under `jax.disable_jit()`, which inlines the `jit[name=det]` JAX wraps
//! them in, as the Rust tracer does (tests/fixtures/linalg_gaps.json, made
//! by tests/fixtures/gen/linalg_gaps.py). Larger determinants, `inv`,
//! `solve` and `slogdet` print differently: JAX's hold `custom_jvp_call`,
//! `custom_linear_solve`, `gather` and a `platform_index` `cond`.

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "det_2x2",
        "fn f(a: Array<f32, 2, 2>) -> Array<f32> { jnp::linalg::det(&a) }",
    ),
    (
        "det_3x3",
        "fn f(a: Array<f32, 3, 3>) -> Array<f32> { jnp::linalg::det(&a) }",
    ),
    (
        "det_2x3x3",
        "fn f(a: Array<f32, 2, 3, 3>) -> Array<f32, 2> { jnp::linalg::det(&a) }",
    ),
];

#[test]
fn small_determinants_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("linalg_gaps", "jaxpr", CASES);
}
