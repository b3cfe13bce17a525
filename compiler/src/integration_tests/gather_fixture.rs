//! Printed jaxprs of indexing with index arrays and traced positions,
//! `jnp::take`/`take_along_axis`, the gradient of a lookup and `vmap` of
//! gathers and scatters, against `jax.make_jaxpr` under `jax.disable_jit()`
//! (tests/fixtures/gather.json, made by tests/fixtures/gen/gather.py;
//! `jaxpr_flat`, which inlines the `jit` JAX wraps `jnp.take` in, as the
//! Rust tracer does); updates through stepped slices against `jaxpr`.

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "get_rows",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 4>) -> Array<f32, 4, 3> { x.at(i).get() }",
    ),
    (
        "get_cols",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 5, 3> { x.at((.., i)).get() }",
    ),
    (
        "get_int_then_array",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 2>) -> Array<f32, 2> { x.at((1, i)).get() }",
    ),
    (
        "get_array_then_int",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3> { x.at((i, -1)).get() }",
    ),
    (
        "get_index_matrix",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 2, 2>) -> Array<f32, 2, 2, 3> { x.at(i).get() }",
    ),
    (
        "get_broadcast_arrays",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 2, 1>, j: Array<i32, 3>) -> Array<f32, 2, 3> { x.at((i, j)).get() }",
    ),
    (
        "get_separated_arrays",
        "fn f(x: Array<f32, 4, 3, 5>, i: Array<i32, 2>, j: Array<i32, 2>) -> Array<f32, 2, 3> { x.at((i, .., j)).get() }",
    ),
    (
        "get_slice_then_array",
        "fn f(x: Array<f32, 4, 5>, i: Array<i32, 3>) -> Array<f32, 2, 3> { x.at((1..3, i)).get() }",
    ),
    (
        "get_traced_int_and_array",
        "fn f(x: Array<f32, 5, 3>, k: Array<i32>, i: Array<i32, 2>) -> Array<f32, 2> { x.at((k, i)).get() }",
    ),
    (
        "get_clip",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3, 3> { x.at(i).get_with(Mode::Clip) }",
    ),
    (
        "get_fill",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3, 3> { x.at(i).get_fill(-1.0) }",
    ),
    (
        "get_fill_default",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3, 3> { x.at(i).get_with(Mode::FillOrDrop) }",
    ),
    (
        "get_points",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 6>, j: Array<i32, 6>) -> Array<f32, 6> { x.at((i, j)).get() * 2.0 }",
    ),
    (
        "get_points_fill",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 6>, j: Array<i32, 6>) -> Array<f32, 6> { x.at((i, j)).get_fill(-1.0) * 2.0 }",
    ),
    (
        "add_duplicates",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 4>, v: Array<f32, 4, 3>) -> Array<f32, 5, 3> { x.at(i).add(v) }",
    ),
    (
        "add_scalar",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 5, 3> { x.at(i).add(1.0) }",
    ),
    (
        "add_cols",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 2>, v: Array<f32, 5, 2>) -> Array<f32, 5, 3> { x.at((.., i)).add(v) }",
    ),
    (
        "add_clip",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> { x.at(i).add_with(v, Mode::Clip) }",
    ),
    (
        "mul_duplicates",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> { x.at(i).mul(v) }",
    ),
    (
        "min_duplicates",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> { x.at(i).min(v) }",
    ),
    (
        "max_duplicates",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> { x.at(i).max(v) }",
    ),
    (
        "set_unique",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> { x.at(i).set(v) }",
    ),
    (
        "set_traced_position",
        "fn f(x: Array<f32, 5, 3>, k: Array<i32>, v: Array<f32, 3>) -> Array<f32, 5, 3> { x.at(k).set(v) }",
    ),
    (
        "add_traced_position_2d",
        "fn f(x: Array<f32, 5, 3>, k: Array<i32>, v: Array<f32>) -> Array<f32, 5, 3> { x.at((1, k)).add(v) }",
    ),
    (
        "set_whole",
        "fn f(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> { x.at(s![..]).set(2.0) }",
    ),
    (
        "set_rows_slice",
        "fn f(x: Array<f32, 5, 3>, v: Array<f32>) -> Array<f32, 5, 3> { x.at(s![1..4]).set(v) }",
    ),
    (
        "take_axis1",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 2, 2>) -> Array<f32, 5, 2, 2> { jnp::take(x, i, 1) }",
    ),
    (
        "take_axis0_int",
        "fn f(x: Array<i32, 5, 3>, i: Array<i32, 3>) -> Array<i32, 3, 3> { jnp::take(x, i, 0) }",
    ),
    (
        "take_along_axis1",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 5, 2>) -> Array<f32, 5, 2> { jnp::take_along_axis(x, i, 1) }",
    ),
    (
        "take_along_axis0",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 2, 3>) -> Array<f32, 2, 3> { jnp::take_along_axis(x, i, 0) }",
    ),
    (
        "take_along_axis_broadcast_indices",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 1, 2>) -> Array<f32, 5, 2> { jnp::take_along_axis(x, i, 1) }",
    ),
    (
        "take_along_axis_broadcast_array",
        "fn f(x: Array<f32, 1, 3>, i: Array<i32, 4, 3>) -> Array<f32, 4, 3> { jnp::take_along_axis(x, i, 1) }",
    ),
    (
        "grad_lookup",
        "fn f(e: Array<f32, 5, 3>, i: Array<i32, 4>, w: Array<f32, 4, 3>) -> Array<f32, 5, 3> { jax::grad(|e| jnp::sum(e.at(i).get() * w))(e) }",
    ),
    (
        "vmap_get_both_batched",
        "fn f(x: Array<f32, 4, 5, 3>, i: Array<i32, 4, 2>) -> Array<f32, 4, 2, 3> { jax::vmap(|x, i| x.at(i).get())(x, i) }",
    ),
    (
        "vmap_get_operand_batched",
        "fn f(x: Array<f32, 4, 5, 3>, i: Array<i32, 2>) -> Array<f32, 4, 2, 3> { jax::vmap(|x, i| x.at(i).get(), (0, None))(x, i) }",
    ),
    (
        "vmap_get_indices_batched",
        "fn f(x: Array<f32, 5, 3>, i: Array<i32, 4, 2>) -> Array<f32, 4, 2, 3> { jax::vmap(|x, i| x.at(i).get(), (None, 0))(x, i) }",
    ),
    (
        "vmap_add_indices_batched",
        "fn f(x: Array<f32, 4, 5>, i: Array<i32, 4, 2>, v: Array<f32, 4, 2>) -> Array<f32, 4, 5> { jax::vmap(|x, i, v| x.at(i).add(v))(x, i, v) }",
    ),
    (
        "vmap_set_traced_position",
        "fn f(x: Array<f32, 4, 5>, k: Array<i32, 4>, v: Array<f32, 4>) -> Array<f32, 4, 5> { jax::vmap(|x, k, v| x.at(k).set(v))(x, k, v) }",
    ),
];

#[test]
fn gathers_and_scatters_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("gather", "jaxpr_flat", CASES);
}

/// Updates through stepped slices: the positions `start + step * iota(len)`
/// as `_index_to_gather` builds them (an `iota`, a `mul`, an `add`).
const STEPPED_CASES: &[(&str, &str)] = &[
    (
        "add_stepped_rows",
        "fn f(x: Array<f32, 5, 3>, v: Array<f32, 2, 3>) -> Array<f32, 5, 3> { x.at(s![1..;2]).add(v) }",
    ),
    (
        "set_stepped",
        "fn f(x: Array<f32, 7>, v: Array<f32, 4>) -> Array<f32, 7> { x.at(s![..;2]).set(v) }",
    ),
    (
        "add_stepped_cols",
        "fn f(x: Array<f32, 4, 7>, v: Array<f32, 4, 2>) -> Array<f32, 4, 7> { x.at(s![.., 1..;3]).add(v) }",
    ),
    (
        "set_row_stepped",
        "fn f(x: Array<f32, 4, 7>, v: Array<f32, 3>) -> Array<f32, 4, 7> { x.at(s![-3, 1..6;2]).set(v) }",
    ),
];

#[test]
fn stepped_slice_updates_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("gather", "jaxpr", STEPPED_CASES);
}
