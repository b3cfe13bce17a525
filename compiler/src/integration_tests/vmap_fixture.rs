//! Printed jaxprs of functions using `jax::vmap` against `jax.make_jaxpr`
//! (tests/fixtures/vmap.json, made by tests/fixtures/gen/vmap.py): the
//! batched program is the one JAX's batching rules build, byte for byte.
//! (`per_example_gradients` and `grad_of_vmapped_mean` are checked by value
//! in tests/vmap.rs: their unbatched gradients already print differently
//! from JAX's, whose tanh and dot_general transposes are written another
//! way.)

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "matvec_none_0",
        "fn f(a: Array<f32, 4, 3>, xs: Array<f32, 5, 3>) -> Array<f32, 5, 4> { jax::vmap(jnp::dot, (None, 0))(a, xs) }",
    ),
    (
        "add_unbatched_vector",
        "fn f(x: Array<f32, 5, 3>, v: Array<f32, 3>) -> Array<f32, 5, 3> { jax::vmap(|a, b| a + b, (0, None))(x, v) }",
    ),
    (
        "mixed_axes",
        "fn f(x: Array<f32, 3, 5>, y: Array<f32, 5, 3>) -> Array<f32, 5, 3> { jax::vmap(|a, b| a * b + 1.0, (1, 0))(x, y) }",
    ),
    (
        "sum_of_squares",
        "fn f(x: Array<f32, 5, 3>) -> Array<f32, 5> { jax::vmap(|a| jnp::sum(a * a))(x) }",
    ),
    (
        "out_axes_1",
        "fn f(x: Array<f32, 5, 3>) -> Array<f32, 3, 5> { jax::vmap(|a| jnp::sin(a) * 2.0, 0, 1)(x) }",
    ),
    (
        "negative_in_axis",
        "fn f(x: Array<f32, 5, 3>) -> Array<f32, 3, 5> { jax::vmap(|a| a * 2.0, -1)(x) }",
    ),
    (
        "max_over_mapped_columns",
        "fn f(x: Array<f32, 3, 5>) -> Array<f32, 5> { jax::vmap(|a| jnp::max(a, 0, false), 1)(x) }",
    ),
    (
        "softmax_rows",
        "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { jax::vmap(|a| jnp::exp(a) / jnp::sum(jnp::exp(a)))(x) }",
    ),
    (
        "pairwise_distances",
        "fn f(xs: Array<f32, 4, 3>, ys: Array<f32, 5, 3>) -> Array<f32, 4, 5> {
            jax::vmap(|a| jax::vmap(|b| jnp::sum(jnp::power(a - b, 2)))(ys))(xs)
        }",
    ),
    (
        "batched_gram",
        "fn f(x: Array<f32, 4, 3, 2>) -> Array<f32, 4, 2, 2> { jax::vmap(|a| a.t().matmul(a))(x) }",
    ),
    (
        "tuple_arguments_and_results",
        "fn f(p: (Array<f32, 3>, Array<f32, 4, 3>), x: Array<f32, 4, 3>) -> (Array<f32, 4, 3>, Array<f32, 4, 3>) {
            jax::vmap(|p: (Array<f32, 3>, Array<f32, 3>), x| (p.0 * x, p.1 + x), ((None, 0), 0))(p, x)
        }",
    ),
    (
        "reshape_lanes",
        "fn f(x: Array<f32, 4, 6>) -> Array<f32, 4, 3, 2> { jax::vmap(|a| { let r: Array<f32, 3, 2> = a.reshape(); r * 2.0 })(x) }",
    ),
    (
        "unbatched_scalar_times_batched_scalar",
        "fn f(a: Array<f32, 3>, s: Array<f32, 4>) -> Array<f32, 4, 3> { jax::vmap(|a, s| a * s, (None, 0))(a, s) }",
    ),
];

#[test]
fn vmap_jaxprs_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("vmap", "jaxpr", CASES);
}

/// The cases of JAX's tests/batching_test.py whose jaxpr this syntax
/// writes the same way (tests/fixtures/vmap_batching_test.json).
const BATCHING_TEST: &[(&str, &str)] = &[
    (
        "constant_function",
        "fn f(x: Array<f32, 4>) -> Array<i32, 4> { jax::vmap(|x| 3)(x) }",
    ),
    (
        // JAX's test also checks that this is one equation.
        "nested_batching_mat_mat",
        "fn f(a: Array<f32, 4, 3>, b: Array<f32, 3, 2>) -> Array<f32, 4, 2> {
            jax::vmap(jax::vmap(jnp::dot, (0, None)), (None, 1), 1)(a, b)
        }",
    ),
    (
        "np_maximum",
        "fn f(x: Array<f32, 10, 5, 3, 7>) -> Array<f32, 10, 5, 3, 7> { jax::vmap(|x| jnp::maximum(x, 0.0))(x) }",
    ),
    (
        "np_greater_than",
        "fn f(x: Array<f32, 10, 5, 3, 7>) -> Array<bool, 10, 5, 3, 7> { jax::vmap(|x| jnp::greater(x, 1.0))(x) }",
    ),
    (
        "dot2",
        "fn f(x: Array<f32, 10, 3>, y: Array<f32, 10, 3>) -> Array<f32, 10> { jax::vmap(jnp::dot)(x, y) }",
    ),
    (
        "dot3",
        "fn f(x: Array<f32, 5, 8, 10>, y: Array<f32, 10, 1>) -> Array<f32, 8, 5, 1> { jax::vmap(jnp::dot, (1, None))(x, y) }",
    ),
    (
        "dot4",
        "fn f(x: Array<f32, 3, 2>, y: Array<f32, 3>) -> Array<f32, 2> { jax::vmap(jnp::dot, (1, None))(x, y) }",
    ),
    (
        "any",
        "fn f(x: Array<bool, 2, 2>) -> Array<bool, 2> { jax::vmap(jnp::any)(x) }",
    ),
];

#[test]
fn batching_test_jaxprs_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("vmap_batching_test", "jaxpr", BATCHING_TEST);
}
