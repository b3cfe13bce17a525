//! Printed jaxprs of `lax::dynamic_slice`, `lax::dynamic_update_slice`,
//! their one-axis forms, their derivatives and a `fori_loop` writing rows,
//! against `jax.make_jaxpr` (tests/fixtures/dynamic_slice.json, made by
//! tests/fixtures/gen/dynamic_slice.py). The `_index_in_dim` forms compare
//! with `jaxpr_flat` (under `jax.disable_jit()`, which inlines the `jit` JAX
//! wraps them in, as the Rust tracer does). Checked by value only, in
//! tests/dynamic_slice.rs: `jvp_ds` (JAX's rule binds the tangent's slice
//! before the primal's; here the primal comes first), `vjp_dus` (the
//! printed vjp here repeats the primal computation of the starts),
//! `grad_in_dim` (JAX's `mul` broadcasts a size-1 axis itself),
//! `fori_rows` and `grad_fori_rows` (JAX's loop index is weakly typed, so
//! its `i + n` converts it first, and JAX prints a body this long as a
//! `let jaxpr = ..` binding) and `vmap_*` (JAX batches through `gather` and
//! `scatter`; here a window over every lane). A start per lane prints as
//! JAX's `scatter` (`VMAP_CASES`); its gradient is checked by value.

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "ds_2d",
        "fn f(x: Array<f32, 4, 5>, i: i32, j: i32) -> Array<f32, 2, 3> { lax::dynamic_slice(&x, &[i, j]) }",
    ),
    (
        "ds_static_start",
        "fn f(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 2, 2> { let y: Array<f32, 2, 2> = lax::dynamic_slice(&x, &[i, -2]); y }",
    ),
    (
        "ds_unsigned_start",
        "fn f(x: Array<f32, 10>, i: u32) -> Array<f32, 3> { lax::dynamic_slice(&x, &[i]) }",
    ),
    (
        "ds_int",
        "fn f(x: Array<i32, 10>, i: i32) -> Array<i32, 3> { lax::dynamic_slice::<Array<i32, 3>, _, _>(&x, &[i]) }",
    ),
    (
        "dus_2d",
        "fn f(x: Array<f32, 4, 5>, u: Array<f32, 2, 3>, i: i32, j: i32) -> Array<f32, 4, 5> { lax::dynamic_update_slice(&x, &u, &[i, j]) }",
    ),
    (
        "dus_int",
        "fn f(x: Array<i32, 6>, u: Array<i32, 2>, i: i32) -> Array<i32, 6> { lax::dynamic_update_slice(x, u, &[i]) }",
    ),
    (
        "ds_in_dim",
        "fn f(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 4, 2> { lax::dynamic_slice_in_dim(&x, i, 2, 1) }",
    ),
    (
        "dus_in_dim",
        "fn f(x: Array<f32, 4, 5>, u: Array<f32, 4, 2>, i: i32) -> Array<f32, 4, 5> { lax::dynamic_update_slice_in_dim(&x, &u, i, 1) }",
    ),
    (
        "jvp_dus",
        "fn f(x: Array<f32, 4, 5>, u: Array<f32, 2, 3>, tx: Array<f32, 4, 5>, tu: Array<f32, 2, 3>, i: i32, j: i32) -> (Array<f32, 4, 5>, Array<f32, 4, 5>) { jax::jvp(|x, u| lax::dynamic_update_slice(&x, &u, &[i, j]), (x, u), (tx, tu)) }",
    ),
    (
        "grad_ds",
        "fn f(x: Array<f32, 4, 5>, w: Array<f32, 2, 3>, i: i32, j: i32) -> Array<f32, 4, 5> { jax::grad(|x| { let y: Array<f32, 2, 3> = lax::dynamic_slice(&x, &[i, j]); (y * w).sum() })(x) }",
    ),
];

/// The `_index_in_dim` forms, against the jaxprs with JAX's `jit` inlined.
const FLAT_CASES: &[(&str, &str)] = &[
    (
        "di_in_dim",
        "fn f(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 4> { lax::dynamic_index_in_dim(&x, i, 1, false) }",
    ),
    (
        "di_in_dim_keepdims",
        "fn f(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 1, 5> { lax::dynamic_index_in_dim(&x, i, 0, true) }",
    ),
    (
        "dui_in_dim",
        "fn f(x: Array<f32, 4, 5>, u: Array<f32, 4>, i: i32) -> Array<f32, 4, 5> { lax::dynamic_update_index_in_dim(&x, &u, i, 1) }",
    ),
    (
        "dui_in_dim_keepdims",
        "fn f(x: Array<f32, 4, 5>, u: Array<f32, 1, 5>, i: i32) -> Array<f32, 4, 5> { lax::dynamic_update_index_in_dim(&x, &u, i, 0) }",
    ),
];

#[test]
fn dynamic_slices_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("dynamic_slice", "jaxpr", CASES);
}

#[test]
fn index_in_dim_forms_print_as_jax_inlined() {
    jaxpr_cases::assert_print_as_jax("dynamic_slice", "jaxpr_flat", FLAT_CASES);
}

/// `vmap` with a start per lane: the starts joined into an index array and
/// a `scatter`, as JAX's batching rule.
const VMAP_CASES: &[(&str, &str)] = &[
    (
        "vmap_dus_batched_start",
        "fn f(x: Array<f32, 3, 5, 4>, u: Array<f32, 3, 2, 4>, i: Array<i32, 3>) -> Array<f32, 3, 5, 4> { jax::vmap(|x, u, i| lax::dynamic_update_slice(&x, &u, &[i, 0]), (0, 0, 0))(x, u, i) }",
    ),
    (
        "vmap_dus_batched_start_shared_operand",
        "fn f(x: Array<f32, 5, 4>, u: Array<f32, 3, 2, 4>, i: Array<i32, 3>) -> Array<f32, 3, 5, 4> { jax::vmap(|x, u, i| lax::dynamic_update_slice(&x, &u, &[i, 0]), (None, 0, 0))(x, u, i) }",
    ),
    (
        "vmap_dus_batched_start_shared_update",
        "fn f(x: Array<f32, 3, 5, 4>, u: Array<f32, 2, 4>, i: Array<i32, 3>) -> Array<f32, 3, 5, 4> { jax::vmap(|x, u, i| lax::dynamic_update_slice(&x, &u, &[i, 0]), (0, None, 0))(x, u, i) }",
    ),
    (
        "vmap_dus_two_batched_starts",
        "fn f(x: Array<f32, 3, 4, 5>, u: Array<f32, 3, 2, 3>, i: Array<i32, 3>, j: Array<i32, 3>) -> Array<f32, 3, 4, 5> { jax::vmap(|x, u, i, j| lax::dynamic_update_slice(&x, &u, &[i, j]), (0, 0, 0, 0))(x, u, i, j) }",
    ),
    (
        "vmap_dus_batched_start_int",
        "fn f(x: Array<i32, 2, 6>, u: Array<i32, 2, 2>, i: Array<i32, 2>) -> Array<i32, 2, 6> { jax::vmap(|x, u, i| lax::dynamic_update_slice(&x, &u, &[i]), (0, 0, 0))(x, u, i) }",
    ),
];

#[test]
fn start_per_lane_prints_as_jax_scatter() {
    jaxpr_cases::assert_print_as_jax("dynamic_slice", "jaxpr", VMAP_CASES);
}
