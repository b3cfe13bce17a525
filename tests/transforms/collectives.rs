//! Collectives by axis name inside `jax::vmap(f, in_axes, out_axes,
//! axis_name)`: `lax::psum`, `pmean`, `pmax`, `pmin`, `axis_index`,
//! `all_gather`, `ppermute`, under `grad` and `jvp` too, bit for bit
//! against JAX's `vmap(f, axis_name="i")` (`tests/fixtures/collectives.json`,
//! whose generator also checks that `pmap` over 4 host devices gives the
//! same values).

use crate::common;

use jax::prelude::*;
use serde_json::Value;

fn arg<A: ArrayType<Elem = f32>>(case: &Value, k: usize) -> A {
    A::from_data(
        case["args"][k]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_f64().unwrap() as f32)
            .collect(),
    )
}

#[jax::jit]
fn psum(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|r| lax::psum(r, "i"), 0, 0, "i")(x)
}

#[jax::jit]
fn pmean(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|r| lax::pmean(r, "i"), 0, 0, "i")(x)
}

#[jax::jit]
fn pmax(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|r| lax::pmax(r, "i"), 0, 0, "i")(x)
}

#[jax::jit]
fn pmin(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|r| lax::pmin(r, "i"), 0, 0, "i")(x)
}

#[jax::jit]
fn centered(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|r| r - lax::pmean(r, "i"), 0, 0, "i")(x)
}

#[jax::jit]
fn axis_index(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|r| r * lax::axis_index("i"), 0, 0, "i")(x)
}

#[jax::jit]
fn all_gather(x: &Array<f32, 4, 3>) -> Array<f32, 4, 4, 3> {
    jax::vmap(|r| lax::all_gather(r, "i") * 2.0, 0, 0, "i")(x)
}

#[jax::jit]
fn ppermute_ring(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(
        |r| lax::ppermute(r, "i", &[(0, 1), (1, 2), (2, 3), (3, 0)]),
        0,
        0,
        "i",
    )(x)
}

#[jax::jit]
fn ppermute_swap(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(
        |r| lax::ppermute(r, "i", &[(0, 2), (2, 0), (1, 3), (3, 1)]),
        0,
        0,
        "i",
    )(x)
}

#[jax::jit]
fn psum_unmapped(x: &Array<f32, 4, 3>, y: &Array<f32, 3>) -> Array<f32, 4, 3> {
    jax::vmap(|r, v| r + lax::psum(v, "i"), (0, None), 0, "i")(x, y)
}

#[jax::jit]
fn grad_inside(w: &Array<f32, 3>, x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::vmap(
        jax::grad(|w, r| lax::psum(jnp::sum(jnp::power(r * w - 1.0, 2)), "i")),
        (None, 0),
        0,
        "i",
    )(w, x)
}

#[jax::jit]
fn grad_outside(x: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::grad(|x| jnp::sum(jax::vmap(|r| lax::psum(r, "i") * r, 0, 0, "i")(x)))(x)
}

#[jax::jit]
fn jvp_pmean(x: &Array<f32, 4, 3>, t: &Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    let (_y, dy) = jax::jvp(jax::vmap(|r| lax::pmean(r * r, "i"), 0, 0, "i"), (x,), (t,));
    dy
}

#[test]
fn collectives_equal_jax() {
    let mut seen = 0;
    for c in common::cases("collectives") {
        let name = c["name"].as_str().unwrap();
        let want = &c["output"];
        let x = || arg::<Array<f32, 4, 3>>(&c, 0);
        match name {
            "psum" => common::assert_matches(&psum(&x()), want),
            "pmean" => common::assert_matches(&pmean(&x()), want),
            "pmax" => common::assert_matches(&pmax(&x()), want),
            "pmin" => common::assert_matches(&pmin(&x()), want),
            "centered" => common::assert_matches(&centered(&x()), want),
            "axis_index" => common::assert_matches(&axis_index(&x()), want),
            "all_gather" => common::assert_matches(&all_gather(&x()), want),
            "ppermute_ring" => common::assert_matches(&ppermute_ring(&x()), want),
            "ppermute_swap" => common::assert_matches(&ppermute_swap(&x()), want),
            "psum_unmapped" => common::assert_matches(&psum_unmapped(&x(), &arg(&c, 1)), want),
            "grad_inside" => common::assert_matches(&grad_inside(&arg(&c, 0), &arg(&c, 1)), want),
            "grad_outside" => common::assert_matches(&grad_outside(&x()), want),
            "jvp_pmean" => common::assert_matches(&jvp_pmean(&x(), &arg(&c, 1)), want),
            other => panic!("fixture case {other} has no test"),
        }
        seen += 1;
    }
    assert_eq!(seen, 13);
}

#[test]
fn collective_jaxprs_print_as_jax() {
    let printed = [
        ("psum", psum::jaxpr().to_string()),
        ("pmean", pmean::jaxpr().to_string()),
        ("pmax", pmax::jaxpr().to_string()),
        ("pmin", pmin::jaxpr().to_string()),
        ("centered", centered::jaxpr().to_string()),
        ("psum_unmapped", psum_unmapped::jaxpr().to_string()),
    ];
    for (name, got) in printed {
        let want = common::case("collectives", name)["jaxpr"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(got, want, "{name}");
    }
}
