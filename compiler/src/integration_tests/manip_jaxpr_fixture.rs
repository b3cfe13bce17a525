//! Printed jaxprs of the shape functions against `jax.make_jaxpr` under
//! `jax.disable_jit()` (tests/fixtures/manip_jit.json, made by
//! tests/fixtures/gen/manip_jit.py). Checked by value only
//! (tests/manip_jit.rs): `linspace_7`, whose bound -0.7 JAX prints as the float32 value's double
//! digits (`-0.699999988079071:f32[]`).

use super::jaxpr_cases;

/// (fixture name, the same function in Rust).
const CASES: &[(&str, &str)] = &[
    ("pad_jnp", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 5, 4> { jnp::pad(&x, &[(1, 2), (0, 1)]) }"),
    ("pad_lax", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 4, 5> { lax::pad(&x, -1.5, &[(1, 0, 1), (-1, 1, 1)]) }"),
    ("pad_value_operand", "fn f(x: Array<f32, 2, 3>, v: Array<f32>) -> Array<f32, 6, 4> { lax::pad(&x, v, &[(1, 2, 1), (0, 1, 0)]) }"),
    ("pad_vmap", "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 5> { jax::vmap(|r| jnp::pad(&r, &[(1, 1)]))(x) }"),
    ("flip", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jnp::flip(&x, 1) }"),
    ("flip_all", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jnp::flip_all(&x) }"),
    ("rev", "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 2, 3, 4> { lax::rev(&x, &[0, 2]) }"),
    ("rev_vmap", "fn f(x: Array<f32, 3, 4>) -> Array<f32, 4, 3> { jax::vmap(|r| lax::rev(&r, &[0]), 1)(x) }"),
    ("roll", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jnp::roll(&x, 1, 1) }"),
    ("roll_negative", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 3> { jnp::roll(&x, -4, 1) }"),
    ("tile", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 4, 3> { jnp::tile(&x, &[2, 1]) }"),
    ("tile_longer", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 2, 4, 3> { jnp::tile(&x, &[2, 2, 1]) }"),
    ("tile_vmap", "fn f(x: Array<f32, 4, 3>) -> Array<f32, 4, 6> { jax::vmap(|r| jnp::tile(&r, &[2]))(x) }"),
    ("repeat", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 4, 3> { jnp::repeat(&x, 2, Some(0)) }"),
    ("repeat_flat", "fn f(x: Array<f32, 2, 3>) -> Array<f32, 12> { jnp::repeat(&x, 2, None) }"),
    ("meshgrid", "fn f(x: Array<f32, 3>, y: Array<f32, 4>) -> (Array<f32, 4, 3>, Array<f32, 4, 3>) { jnp::meshgrid(&x, &y) }"),
    ("outer", "fn f(a: Array<f32, 3>, b: Array<f32, 4>) -> Array<f32, 3, 4> { jnp::outer(&a, &b) }"),
    ("vdot", "fn f(a: Array<f32, 3>, b: Array<f32, 3>) -> Array<f32> { jnp::vdot(&a, &b) }"),
    ("inner", "fn f(a: Array<f32, 3>, b: Array<f32, 3>) -> Array<f32> { jnp::inner(&a, &b) }"),
    ("swapaxes", "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 4, 3, 2> { jnp::swapaxes(&x, 0, 2) }"),
    ("moveaxis", "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 3, 4, 2> { jnp::moveaxis(&x, 0, 2) }"),
    ("transpose_axes", "fn f(x: Array<f32, 2, 3, 4>) -> Array<f32, 3, 2, 4> { jnp::transpose_axes(&x, &[1, 0, 2]) }"),
    ("squeeze_axis", "fn f(x: Array<f32, 2, 1, 3>) -> Array<f32, 2, 3> { jnp::squeeze_axis(&x, 1) }"),
    ("lax_slice", "fn f(x: Array<f32, 4, 5>) -> Array<f32, 2, 2> { lax::slice(&x, &[1, 0], &[3, 4], Some(&[1, 2])) }"),
    ("broadcast_in_dim", "fn f(x: Array<f32, 3>) -> Array<f32, 2, 3> { lax::broadcast_in_dim(&x, &[1]) }"),
    ("batch_matmul", "fn f(a: Array<f32, 2, 3, 4>, b: Array<f32, 2, 4, 5>) -> Array<f32, 2, 3, 5> { jnp::batch_matmul(&a, &b) }"),
    ("vstack", "fn f(a: Array<f32, 3>, b: Array<f32, 3>) -> Array<f32, 2, 3> { jnp::vstack((&a, &b)) }"),
    ("hstack", "fn f(a: Array<f32, 2, 3>, b: Array<f32, 2, 3>) -> Array<f32, 2, 6> { jnp::hstack((&a, &b)) }"),
    ("atleast_1d", "fn f(s: Array<f32>) -> Array<f32, 1> { jnp::atleast_1d(&s) }"),
    ("eye", "fn f() -> Array<f32, 3, 4> { jnp::eye() }"),
    ("linspace", "fn f() -> Array<f32, 5> { Array::<f32, 5>::linspace(0.0, 1.0) }"),
];

#[test]
fn shape_functions_print_as_jax() {
    jaxpr_cases::assert_print_as_jax("manip_jit", "jaxpr", CASES);
}
