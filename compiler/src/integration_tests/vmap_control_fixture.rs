//! Printed jaxprs of `jax::vmap` over control flow (`lax::cond`, `switch`,
//! `while_loop`, `fori_loop`, `scan`) against `jax.make_jaxpr`
//! (tests/fixtures/vmap_control.json, made by
//! tests/fixtures/gen/vmap_control.py): the batched program is the one JAX's
//! batching rules for control flow build, byte for byte.
//! (`grad_of_vmapped_scan` is checked by value in tests/vmap_control.rs:
//! the scan's linearization already prints differently from JAX's.)

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    (
        "cond_unbatched_pred",
        "fn f(p: Array<f32>, x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
            jax::vmap(|p, x| lax::cond(p.gt(0.0), |x| jnp::sin(x) * 2.0, |x| x * x, x), (None, 0))(p, x)
        }",
    ),
    (
        "cond_batched_pred",
        "fn f(x: Array<f32, 5>) -> Array<f32, 5> {
            jax::vmap(|x| lax::cond(x.gt(0.25), |x| jnp::sin(x), |x| -x, x))(x)
        }",
    ),
    (
        "cond_batched_pred_vector_lanes",
        "fn f(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
            jax::vmap(|x| lax::cond(jnp::sum(x).gt(1.0), |x| x * 2.0, |x| jnp::exp(x), x))(x)
        }",
    ),
    (
        "switch_unbatched_index",
        "fn f(i: Array<i32>, x: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
            jax::vmap(|i, x| lax::switch(i, [|x| x * 2.0, |x| x + 10.0, |x| -x], x), (None, 0))(i, x)
        }",
    ),
    (
        "switch_batched_index",
        "fn f(i: Array<i32, 4>, x: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
            jax::vmap(|i, x| lax::switch(i, [|x| x * 2.0, |x| x + 10.0, |x| -x], x))(i, x)
        }",
    ),
    (
        "while_batched_pred_newton",
        "fn f(a: Array<f32, 5>) -> (Array<f32, 5>, Array<i32, 5>) {
            jax::vmap(|a| lax::while_loop(
                |c: (Array<f32>, Array<i32>)| jnp::abs(c.0 * c.0 - a).gt(0.0009765625),
                |(x, n)| (0.5 * (x + a / x), n + 1),
                (a, 0),
            ))(a)
        }",
    ),
    (
        "while_batched_pred_halvings",
        "fn f(x: Array<f32, 6>) -> Array<i32, 6> {
            jax::vmap(|x| {
                let (_, n) = lax::while_loop(|c: (Array<f32>, Array<i32>)| c.0.gt(1.0), |(x, n)| (x * 0.5, n + 1), (x, 0));
                n
            })(x)
        }",
    ),
    (
        "while_unbatched_pred",
        "fn f(n: Array<i32>, x: Array<f32, 5, 2>) -> Array<f32, 5, 2> {
            jax::vmap(|n, x| lax::fori_loop(0, n, |_i, c| c * 0.5 + 1.0, x), (None, 0))(n, x)
        }",
    ),
    (
        "while_nested_vmap_lane_predicate",
        "fn f(y: Array<f32, 3>, xs: Array<i32, 4>) -> (Array<f32, 3, 4>, Array<i32, 3, 4>) {
            jax::vmap(|y, xs| jax::vmap(|x| lax::while_loop(
                |c: (Array<f32>, Array<i32>)| c.1.lt(x),
                |(v, n)| (v * y, n + 1),
                (1.0, 0),
            ))(xs), (0, None))(y, xs)
        }",
    ),
    (
        "fori_loop_static",
        "fn f(x: Array<f32, 4, 2>) -> Array<f32, 4, 2> {
            jax::vmap(|x| lax::fori_loop(0, 3, |_i, c| c * 0.5 + x, x))(x)
        }",
    ),
    (
        "scan_cumsum",
        "fn f(xs: Array<f32, 4, 6>) -> (Array<f32, 4>, Array<f32, 4, 6>) {
            jax::vmap(|xs| lax::scan(|c, x| (c + x, c + x), 0.0, xs))(xs)
        }",
    ),
    (
        "scan_batched_carry_unbatched_xs",
        "fn f(h: Array<f32, 4, 3>, xs: Array<f32, 6, 3>) -> (Array<f32, 4, 3>, (Array<f32, 4, 6>, Array<f32, 4, 6, 3>)) {
            jax::vmap(|h, xs| lax::scan(|h, x| (jnp::tanh(h * 0.875 + x), (jnp::sum(h), x * 2.0)), h, xs), (0, None))(h, xs)
        }",
    ),
    (
        "scan_xs_on_axis_1",
        "fn f(xs: Array<f32, 6, 4>) -> (Array<f32, 4>, Array<f32, 4, 6>) {
            jax::vmap(|xs| lax::scan(|c, x| (c * x, c), 1.0, xs), 1)(xs)
        }",
    ),
];

#[test]
fn vmap_control_jaxprs_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("vmap_control", "jaxpr", CASES);
}
