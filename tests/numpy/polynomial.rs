//! `jnp::polyval` against JAX (tests/fixtures/polynomial.json, made by
//! tests/fixtures/gen/polynomial.py): values exactly, eagerly and in
//! `#[jax::jit]` (floats within a few ulps: see [`check`]), for float and integer coefficients, promotion, and
//! coefficient arrays of more than one axis. Both run the one text of
//! `jax_core::jnp::polyval`.

use crate::common;

use jax::prelude::*;

/// Checks a case: the eager call and the jitted one give the same bits
/// (both run the primitives of the one text), and JAX's values exactly for
/// integers and within `ulps` units in the last place for floats: XLA
/// contracts each step's `y * x + p[i]` into one fused multiply-add on CPUs
/// that have it, and this library rounds the product and the sum apart
/// (as it does everywhere), a difference of at most a few ulps after a few
/// steps.
#[track_caller]
fn check<A: ArrayType>(name: &str, eager: &A, jit: &A, ulps: i64) {
    let bits = |a: &A| {
        a.data()
            .iter()
            .map(|&v| common::element_bits(v))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(eager), bits(jit), "{name}: eager and jit differ");
    let want = &common::case("polynomial", name)["output"];
    if ulps == 0 {
        common::assert_matches(eager, want);
        return;
    }
    let want: Vec<f32> = want["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    for (i, (&g, &w)) in eager.data().iter().zip(&want).enumerate() {
        let g = g.to_f64() as f32;
        let off = (g.to_bits() as i64 - w.to_bits() as i64).abs();
        assert!(
            off <= ulps || (g - w).abs() <= 1e-6,
            "{name}[{i}]: {g} is {off} ulps from JAX's {w}"
        );
    }
}

/// The arguments of a case.
fn args<P: ArrayType, X: ArrayType>(name: &str) -> (P, X) {
    let c = common::case("polynomial", name);
    (
        common::array_arg(&c["args"][0]),
        common::array_arg(&c["args"][1]),
    )
}

#[jax::jit]
fn f32_at(p: &Array<f32, 5>, x: &Array<f32, 7>) -> Array<f32, 7> {
    jnp::polyval(p, x)
}

#[jax::jit]
fn i32_at(p: &Array<i32, 4>, x: &Array<i32, 5>) -> Array<i32, 5> {
    jnp::polyval(p, x)
}

#[jax::jit]
fn mixed_at(p: &Array<i32, 3>, x: &Array<f32, 6>) -> Array<f32, 6> {
    jnp::polyval(p, x)
}

#[jax::jit]
fn columns_at(p: &Array<f32, 3, 4>, x: &Array<f32, 4>) -> Array<f32, 4> {
    jnp::polyval(p, x)
}

#[jax::jit]
fn grid_at(p: &Array<f32, 4, 1, 3>, x: &Array<f32, 2, 1>) -> Array<f32, 2, 3> {
    jnp::polyval(p, x)
}

#[jax::jit]
fn constant_at(p: &Array<f32, 1>, x: &Array<f32, 3>) -> Array<f32, 3> {
    jnp::polyval(p, x)
}

#[test]
fn polyval_against_jax() {
    let (p, x) = args("polyval_f32");
    check("polyval_f32", &jnp::polyval(&p, &x), &f32_at(&p, &x), 4);
    let (p, x) = args("polyval_i32");
    check("polyval_i32", &jnp::polyval(&p, &x), &i32_at(&p, &x), 0);
    let (p, x) = args("polyval_mixed");
    check("polyval_mixed", &jnp::polyval(&p, &x), &mixed_at(&p, &x), 4);
    let (p, x) = args("polyval_columns");
    check(
        "polyval_columns",
        &jnp::polyval(&p, &x),
        &columns_at(&p, &x),
        4,
    );
    let (p, x) = args("polyval_grid");
    check("polyval_grid", &jnp::polyval(&p, &x), &grid_at(&p, &x), 4);
    let (p, x) = args("polyval_constant");
    check(
        "polyval_constant",
        &jnp::polyval(&p, &x),
        &constant_at(&p, &x),
        0,
    );
}

#[test]
fn every_fixture_case_is_written() {
    assert_eq!(common::cases("polynomial").len(), 6);
}

#[test]
#[should_panic(expected = "polyval gives f32[4] but the result type is f32[3]")]
fn polyval_result_type_is_checked() {
    let p = Array::<f32, 2>::from([1.0, 2.0]);
    let _: Array<f32, 3> = jnp::polyval(&p, Array::<f32, 4>::zeros());
}

#[test]
#[should_panic(expected = "Incompatible shapes for broadcasting")]
fn polyval_shapes_must_broadcast() {
    let p = Array::<f32, 2, 3>::ones();
    let _: Array<f32, 4> = jnp::polyval(&p, Array::<f32, 4>::zeros());
}

#[test]
#[should_panic(expected = "polyval: the coefficients must have an axis to run along, got f32[]")]
fn polyval_needs_an_axis_of_coefficients() {
    let _: Array<f32, 3> = jnp::polyval(Array::<f32>::full(2.0), Array::<f32, 3>::zeros());
}
