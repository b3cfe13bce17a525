//! Printed jaxprs of sorting, `top_k`, cumulative operations and `diff` against
//! `jax.make_jaxpr` under `jax.disable_jit()` (tests/fixtures/sort.json, made
//! by tests/fixtures/gen/sort.py; `jaxpr_flat`, which inlines the `jit`
//! JAX wraps `jnp.sort` etc. in, as the Rust tracer does). Values and
//! derivatives are checked in tests/sort.rs and tests/cumulative_jit.rs;
//! `searchsorted`, `median`, `quantile` and `percentile` by value only
//! (JAX's go through `gather`, a primitive not here: static slices at
//! the ranks and `compare_all`'s comparisons instead).

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "sort_special",
        "fn f(x: Array<f32, 12>) -> Array<f32, 12> { jnp::sort(x, 0) }",
    ),
    (
        "argsort_special",
        "fn f(x: Array<f32, 12>) -> Array<i32, 12> { jnp::argsort(x, 0) }",
    ),
    (
        "sort_ties_axis1",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::sort(x, -1) }",
    ),
    (
        "argsort_ties_axis0",
        "fn f(x: Array<f32, 3, 4>) -> Array<i32, 3, 4> { jnp::argsort(x, 0) }",
    ),
    (
        "sort_int",
        "fn f(x: Array<i32, 2, 5>) -> Array<i32, 2, 5> { jnp::sort(x, 1) }",
    ),
    (
        "argsort_int",
        "fn f(x: Array<i32, 2, 5>) -> Array<i32, 2, 5> { jnp::argsort(x, 1) }",
    ),
    (
        "lax_sort",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { lax::sort(x, 0) }",
    ),
    (
        "sort_key_val",
        "fn f(k: Array<f32, 3, 4>, v: Array<f32, 3, 4>) -> (Array<f32, 3, 4>, Array<f32, 3, 4>) { lax::sort_key_val(k, v, 1) }",
    ),
    (
        "cumsum_axis0",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::cumsum(x, 0) }",
    ),
    (
        "cumsum_axis1",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { x.cumsum(1) }",
    ),
    (
        "cumsum_int",
        "fn f(x: Array<i32, 2, 5>) -> Array<i32, 2, 5> { jnp::cumsum(x, 1) }",
    ),
    (
        "cumsum_bool",
        "fn f(x: Array<i32, 2, 5>) -> Array<i32, 2, 5> { jnp::cumsum(x.gt(0), 1) }",
    ),
    (
        "cumsum_grad_plain",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jax::grad(|x| jnp::sum(jnp::cumsum(x, 1)))(x) }",
    ),
    (
        "cumprod",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::cumprod(x, 1) }",
    ),
    (
        "cummax",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::cummax(x, 1) }",
    ),
    (
        "cummin",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> { jnp::cummin(x, 0) }",
    ),
    (
        "vmap_sort",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 4, 3> { jax::vmap(|x| jnp::sort(x, 0), 1)(x) }",
    ),
    (
        "vmap_argsort",
        "fn f(x: Array<f32, 3, 4>) -> Array<i32, 3, 4> { jax::vmap(|x| jnp::argsort(x, 0))(x) }",
    ),
    (
        "vmap_sort_key_val_shared",
        "fn f(k: Array<f32, 3, 4>, v: Array<f32, 4>) -> (Array<f32, 3, 4>, Array<f32, 3, 4>) { jax::vmap(|k, v| lax::sort_key_val(k, v, 0), (0, None))(k, v) }",
    ),
    (
        "vmap_cumsum",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 4, 3> { jax::vmap(|x| jnp::cumsum(x, 0), 1)(x) }",
    ),
    (
        "vmap_cumsum_2d",
        "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 2, 3, 4> { jax::vmap(|x| jnp::cumsum(x, 1))(x) }",
    ),
    (
        "vmap_cummax",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 4, 3> { jax::vmap(|x| jnp::cummax(x, 0), 1)(x) }",
    ),
    (
        "top_k",
        "fn f(x: Array<f32, 3, 4>) -> (Array<f32, 3, 3>, Array<i32, 3, 3>) { lax::top_k(x, 3) }",
    ),
    (
        "vmap_top_k",
        "fn f(x: Array<f32, 3, 4>) -> (Array<f32, 4, 2>, Array<i32, 4, 2>) { jax::vmap(|x| lax::top_k(x, 2), 1)(x) }",
    ),
    (
        "diff",
        "fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 3> { jnp::diff(x, 1, 1) }",
    ),
    (
        "diff_n2_axis0",
        "fn f(x: Array<f32, 4, 3>) -> Array<f32, 2, 3> { jnp::diff(x, 2, 0) }",
    ),
    (
        "diff_int",
        "fn f(x: Array<i32, 2, 5>) -> Array<i32, 2, 4> { jnp::diff(x, 1, -1) }",
    ),
];

#[test]
fn sorting_and_cumulative_jaxprs_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("sort", "jaxpr_flat", CASES);
}
