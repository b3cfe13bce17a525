//! Printed jaxprs of functions vmapping the primitives beyond the
//! elementwise family, reductions and contractions, against
//! `jax.make_jaxpr` under `jax.disable_jit()` (tests/fixtures/vmap_prims.json,
//! made by tests/fixtures/gen/vmap_prims.py; `jaxpr_flat`, which inlines
//! the `jit` JAX wraps `jnp.where` in, as the Rust tracer does). Cases
//! checked by value only, in tests/vmap_prims.rs: `dynamic_index_*` (JAX's
//! rule goes through `gather`, a primitive not implemented here; ours is a
//! `dynamic_slice` taking every lane), `random_*` (JAX's samplers are
//! compositions of `random_bits`; ours are primitives), `custom_jvp*` (ours
//! prints the function's body), `clip` (JAX prints the f32 bounds as
//! doubles under `disable_jit`), `clamp_*` (no Rust spelling of `lax.clamp`),
//! `where_scalar_predicate` (the Rust `jnp::where_` broadcasts a scalar
//! condition inside the lane; JAX 0.10.2's `jnp.where` passes it to
//! `select_n` as a scalar, whose batching places it along the lanes).

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "where_all_batched",
        "fn f(p: Array<bool, 5, 3>, x: Array<f32, 5, 3>, y: Array<f32, 5, 3>) -> Array<f32, 5, 3> { jax::vmap(|p, x, y| jnp::where_(p, x, y))(p, x, y) }",
    ),
    (
        "where_unbatched_predicate",
        "fn f(p: Array<bool, 3>, x: Array<f32, 5, 3>) -> Array<f32, 5, 3> { jax::vmap(|p, x| jnp::where_(p, x, 0.0), (None, 0))(p, x) }",
    ),
    (
        "where_batched_predicate_other_axis",
        "fn f(p: Array<bool, 3, 5>, x: Array<f32, 5, 3>) -> Array<f32, 5, 3> { jax::vmap(|p, x| jnp::where_(p, x, -x), (1, 0))(p, x) }",
    ),
    (
        "where_predicate_from_lanes",
        "fn f(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> { jax::vmap(|x| jnp::where_(x.gt(0.5), x, 1.0 - x))(x) }",
    ),
    (
        "squeeze",
        "fn f(x: Array<f32, 5, 1, 3>) -> Array<f32, 5, 3> { jax::vmap(|a| jnp::squeeze(a, 0))(x) }",
    ),
    (
        "squeeze_mapped_axis_1",
        "fn f(x: Array<f32, 3, 5, 1>) -> Array<f32, 5, 3> { jax::vmap(|a| jnp::squeeze(a, 1), 1)(x) }",
    ),
    (
        "slice_rows",
        "fn f(x: Array<f32, 5, 4>) -> Array<f32, 5, 2> { jax::vmap(|a| a.slice(s![1..3]))(x) }",
    ),
    (
        "slice_strided_mapped_axis_1",
        "fn f(x: Array<f32, 4, 5, 3>) -> Array<f32, 5, 2, 2> { jax::vmap(|a| a.slice(s![..;2, 1..]), 1)(x) }",
    ),
    (
        "index_static",
        "fn f(x: Array<f32, 5, 4>) -> Array<f32, 5> { jax::vmap(|a| a.at(1).get())(x) }",
    ),
    (
        "concatenate_batched_and_not",
        "fn f(x: Array<f32, 5, 3>, y: Array<f32, 2>) -> Array<f32, 5, 5> { jax::vmap(|a, b| jnp::concatenate((a, b), 0), (0, None))(x, y) }",
    ),
    (
        "concatenate_axis_1",
        "fn f(x: Array<f32, 5, 2, 3>, y: Array<f32, 2, 1, 5>) -> Array<f32, 5, 2, 4> { jax::vmap(|a, b| jnp::concatenate((a, b), 1), (0, 2))(x, y) }",
    ),
    (
        "at_set_scalar",
        "fn f(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> { jax::vmap(|a| a.at(1).set(0.0))(x) }",
    ),
    (
        "at_set_batched_update",
        "fn f(x: Array<f32, 5, 3, 2>, v: Array<f32, 5, 2>) -> Array<f32, 5, 3, 2> { jax::vmap(|a, v| a.at(1).set(v))(x, v) }",
    ),
    (
        "at_set_unbatched_operand",
        "fn f(x: Array<f32, 4, 2>, v: Array<f32, 5, 2>) -> Array<f32, 5, 4, 2> { jax::vmap(|a, v| a.at(2).set(v), (None, 0))(x, v) }",
    ),
    (
        "at_add_mapped_axis_1",
        "fn f(x: Array<f32, 3, 5>, v: Array<f32, 5>) -> Array<f32, 5, 3> { jax::vmap(|a, v| a.at(0).add(v), (1, 0))(x, v) }",
    ),
    (
        "argmax",
        "fn f(x: Array<f32, 5, 3>) -> Array<i32, 5> { jax::vmap(|a| jnp::argmax(a))(x) }",
    ),
    (
        "argmin_axis_mapped_1",
        "fn f(x: Array<f32, 3, 5, 4>) -> Array<i32, 5, 3> { jax::vmap(|a| jnp::argmin(a, 1), 1)(x) }",
    ),
];

#[test]
fn vmapped_primitives_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("vmap_prims", "jaxpr_flat", CASES);
}
