//! Derivatives and `vmap` of gathers and scatters, eagerly and in
//! `#[jax::jit]`, against JAX's values (tests/fixtures/gather.json, made by
//! tests/fixtures/gen/gather.py): the gradient of a lookup is a scatter-add,
//! scatters' derivatives in each mode, and batched indices and operands.

use super::gather::{arg, case, check};
use jax::prelude::*;
use serde_json::Value;

#[jax::jit]
fn lookup_loss(e: &Array<f32, 5, 3>, i: &Array<i32, 4>, w: &Array<f32, 4, 3>) -> Array<f32> {
    jnp::sum(e.at(i).get() * w)
}

#[jax::jit]
fn grad_lookup_in_body(
    e: Array<f32, 5, 3>,
    i: Array<i32, 4>,
    w: Array<f32, 4, 3>,
) -> Array<f32, 5, 3> {
    jax::grad(|e: Array<f32, 5, 3>| jnp::sum(e.at(i).get() * w))(e)
}

#[jax::jit]
fn jvp_gather(
    x: Array<f32, 5, 3>,
    t: Array<f32, 5, 3>,
    i: Array<i32, 3>,
) -> (Array<f32, 3, 3>, Array<f32, 3, 3>) {
    jax::jvp(|x: Array<f32, 5, 3>| x.at(i).get() * 2.0, (x,), (t,))
}

#[jax::jit]
fn vjp_take_along_axis(
    x: Array<f32, 5, 3>,
    i: Array<i32, 5, 2>,
    ct: Array<f32, 5, 2>,
) -> Array<f32, 5, 3> {
    let (_y, pullback) = jax::vjp(|x: Array<f32, 5, 3>| jnp::take_along_axis(x, i, 1), x);
    let (g,) = pullback(ct);
    g
}

#[jax::jit(argnums = (0, 1))]
fn scatter_add_loss(x: &Array<f32, 5, 3>, v: &Array<f32, 3, 3>, i: &Array<i32, 3>) -> Array<f32> {
    jnp::sum(jnp::sin(x.at(i).add(v)))
}

#[jax::jit(argnums = (0, 1))]
fn set_position_loss(x: &Array<f32, 5, 3>, v: &Array<f32, 3>, k: i32) -> Array<f32> {
    jnp::sum(x.at(k).set(v).powi(2))
}

fn items(v: &Value) -> Vec<Value> {
    v["items"].as_array().unwrap().clone()
}

#[test]
fn the_gradient_of_a_lookup_is_a_scatter_add() {
    let n = "grad_lookup";
    let (e, i, w): (Array<f32, 5, 3>, Array<i32, 4>, Array<f32, 4, 3>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    let out = &case(n)["output"];
    check("grad companion", &lookup_loss::grad(&e, &i, &w), out, 0.0);
    check("grad in a body", &grad_lookup_in_body(e, i, w), out, 0.0);
}

#[test]
fn derivatives_match_jax() {
    let n = "jvp_gather";
    let (x, t, i): (Array<f32, 5, 3>, Array<f32, 5, 3>, Array<i32, 3>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    let (y, ty) = jvp_gather(x, t, i);
    let out = items(&case(n)["output"]);
    check("jvp primal", &y, &out[0], 0.0);
    check("jvp tangent", &ty, &out[1], 0.0);
    let n = "vjp_take_along_axis";
    let (x, i, ct): (Array<f32, 5, 3>, Array<i32, 5, 2>, Array<f32, 5, 2>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    check(n, &vjp_take_along_axis(x, i, ct), &case(n)["output"], 0.0);
    let n = "grad_scatter_add";
    let (x, v, i): (Array<f32, 5, 3>, Array<f32, 3, 3>, Array<i32, 3>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    let (gx, gv) = scatter_add_loss::grad(&x, &v, &i);
    let out = items(&case(n)["output"]);
    check("grad x", &gx, &out[0], 1e-6);
    check("grad v", &gv, &out[1], 1e-6);
    let n = "grad_set_traced_position";
    let (x, v): (Array<f32, 5, 3>, Array<f32, 3>) = (arg(n, 0), arg(n, 1));
    let (gx, gv) = set_position_loss::grad(&x, &v, 3);
    let out = items(&case(n)["output"]);
    check("grad x", &gx, &out[0], 0.0);
    check("grad v", &gv, &out[1], 0.0);
}

#[jax::jit(argnums = (0, 1))]
fn set_duplicates_loss(
    x: &Array<f32, 5, 3>,
    v: &Array<f32, 4, 3>,
    i: &Array<i32, 4>,
) -> Array<f32> {
    jnp::sum(jnp::sin(x.at(i).set(v)))
}

#[jax::jit]
fn mul_operand_loss(x: &Array<f32, 5, 3>, v: &Array<f32, 3, 3>, i: &Array<i32, 3>) -> Array<f32> {
    jnp::sum(x.at(i).mul(v).powi(2))
}

#[jax::jit(argnums = (0, 1))]
fn mul_position_loss(x: &Array<f32, 5, 3>, v: &Array<f32, 3>, k: i32) -> Array<f32> {
    jnp::sum(x.at(k).mul(v).powi(2))
}

#[jax::jit(argnums = (0, 1))]
fn max_loss(
    x: &Array<f32, 5, 3>,
    v: &Array<f32, 3, 3>,
    i: &Array<i32, 3>,
    w: &Array<f32, 5, 3>,
) -> Array<f32> {
    jnp::sum(x.at(i).max(v) * w)
}

#[jax::jit(argnums = (0, 1))]
fn min_loss(
    x: &Array<f32, 5, 3>,
    v: &Array<f32, 3, 3>,
    i: &Array<i32, 3>,
    w: &Array<f32, 5, 3>,
) -> Array<f32> {
    jnp::sum(x.at(i).min(v) * w)
}

#[test]
fn scatter_derivatives_match_jax() {
    let n = "grad_set_duplicates";
    let (x, v, i): (Array<f32, 5, 3>, Array<f32, 4, 3>, Array<i32, 4>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    let (gx, gv) = set_duplicates_loss::grad(&x, &v, &i);
    let out = items(&case(n)["output"]);
    check("set grad x", &gx, &out[0], 1e-6);
    check("set grad v", &gv, &out[1], 1e-6);
    let n = "grad_mul_operand";
    let (x, v, i): (Array<f32, 5, 3>, Array<f32, 3, 3>, Array<i32, 3>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    check(
        n,
        &mul_operand_loss::grad(&x, &v, &i),
        &case(n)["output"],
        0.0,
    );
    let n = "grad_mul_traced_position";
    let (x, v): (Array<f32, 5, 3>, Array<f32, 3>) = (arg(n, 0), arg(n, 1));
    let (gx, gv) = mul_position_loss::grad(&x, &v, 2);
    let out = items(&case(n)["output"]);
    check("mul grad x", &gx, &out[0], 0.0);
    check("mul grad v", &gv, &out[1], 0.0);
    for n in ["grad_max_duplicates", "grad_min_duplicates"] {
        let (x, v, i, w): (
            Array<f32, 5, 3>,
            Array<f32, 3, 3>,
            Array<i32, 3>,
            Array<f32, 5, 3>,
        ) = (arg(n, 0), arg(n, 1), arg(n, 2), arg(n, 3));
        let (gx, gv) = if n == "grad_max_duplicates" {
            max_loss::grad(&x, &v, &i, &w)
        } else {
            min_loss::grad(&x, &v, &i, &w)
        };
        let out = items(&case(n)["output"]);
        check(&format!("{n} x"), &gx, &out[0], 1e-6);
        check(&format!("{n} v"), &gv, &out[1], 1e-6);
    }
}

#[jax::jit]
fn vmap_get_both_batched(x: Array<f32, 4, 5, 3>, i: Array<i32, 4, 2>) -> Array<f32, 4, 2, 3> {
    jax::vmap(|x: Array<f32, 5, 3>, i: Array<i32, 2>| x.at(i).get())(x, i)
}

#[jax::jit]
fn vmap_get_operand_batched(x: Array<f32, 4, 5, 3>, i: Array<i32, 2>) -> Array<f32, 4, 2, 3> {
    jax::vmap(
        |x: Array<f32, 5, 3>, i: Array<i32, 2>| x.at(i).get(),
        (0, None),
    )(x, i)
}

#[jax::jit]
fn vmap_get_indices_batched(x: Array<f32, 5, 3>, i: Array<i32, 4, 2>) -> Array<f32, 4, 2, 3> {
    jax::vmap(
        |x: Array<f32, 5, 3>, i: Array<i32, 2>| x.at(i).get(),
        (None, 0),
    )(x, i)
}

#[jax::jit]
fn vmap_add_indices_batched(
    x: Array<f32, 4, 5>,
    i: Array<i32, 4, 2>,
    v: Array<f32, 4, 2>,
) -> Array<f32, 4, 5> {
    jax::vmap(|x: Array<f32, 5>, i: Array<i32, 2>, v: Array<f32, 2>| x.at(i).add(v))(x, i, v)
}

#[jax::jit]
fn vmap_add_shared_indices(
    x: Array<f32, 4, 5>,
    i: Array<i32, 3>,
    v: Array<f32, 4, 3>,
) -> Array<f32, 4, 5> {
    jax::vmap(|x: Array<f32, 5>, v: Array<f32, 3>| x.at(i).add(v))(x, v)
}

#[jax::jit]
fn vmap_dynamic_index_batched(x: Array<f32, 4, 5, 3>, i: Array<i32, 4>) -> Array<f32, 4, 3> {
    jax::vmap(|x: Array<f32, 5, 3>, i: Array<i32>| x.at(i).get())(x, i)
}

#[jax::jit]
fn vmap_dynamic_index_shared_operand(x: Array<f32, 5, 3>, i: Array<i32, 4>) -> Array<f32, 4> {
    jax::vmap(
        |x: Array<f32, 5, 3>, i: Array<i32>| x.at((i, 1)).get(),
        (None, 0),
    )(x, i)
}

#[jax::jit]
fn vmap_set_traced_position(
    x: Array<f32, 4, 5>,
    k: Array<i32, 4>,
    v: Array<f32, 4>,
) -> Array<f32, 4, 5> {
    jax::vmap(|x: Array<f32, 5>, k: Array<i32>, v: Array<f32>| x.at(k).set(v))(x, k, v)
}

#[test]
fn vmap_of_an_update_at_a_traced_position() {
    let n = "vmap_set_traced_position";
    let got = vmap_set_traced_position(arg(n, 0), arg(n, 1), arg(n, 2));
    check(n, &got, &case(n)["output"], 0.0);
}

/// A dynamic index that differs by lane becomes a gather, as in JAX.
#[test]
fn vmap_of_a_traced_index_is_a_gather() {
    let out = |n: &str| case(n)["output"].clone();
    let n = "vmap_dynamic_index_batched";
    check(
        n,
        &vmap_dynamic_index_batched(arg(n, 0), arg(n, 1)),
        &out(n),
        0.0,
    );
    let n = "vmap_dynamic_index_shared_operand";
    check(
        n,
        &vmap_dynamic_index_shared_operand(arg(n, 0), arg(n, 1)),
        &out(n),
        0.0,
    );
}

#[test]
fn vmap_of_gathers_and_scatters_matches_jax() {
    let out = |n: &str| case(n)["output"].clone();
    let n = "vmap_get_both_batched";
    check(
        n,
        &vmap_get_both_batched(arg(n, 0), arg(n, 1)),
        &out(n),
        0.0,
    );
    let n = "vmap_get_operand_batched";
    check(
        n,
        &vmap_get_operand_batched(arg(n, 0), arg(n, 1)),
        &out(n),
        0.0,
    );
    let n = "vmap_get_indices_batched";
    check(
        n,
        &vmap_get_indices_batched(arg(n, 0), arg(n, 1)),
        &out(n),
        0.0,
    );
    let n = "vmap_add_indices_batched";
    check(
        n,
        &vmap_add_indices_batched(arg(n, 0), arg(n, 1), arg(n, 2)),
        &out(n),
        0.0,
    );
    let n = "vmap_add_shared_indices";
    let i = Array::<i32, 3>::from([1, 1, 3]);
    check(
        n,
        &vmap_add_shared_indices(arg(n, 0), i, arg(n, 1)),
        &out(n),
        0.0,
    );
}

#[jax::jit]
fn add_at_constant_indices(x: Array<f32, 5>) -> Array<f32, 5> {
    x.at(jnp::array([0, 0])).add(1.0)
}

/// An index array written in the body (a constant, as `jnp.array([0, 0])`
/// in JAX): duplicates accumulate.
#[test]
fn constant_index_arrays_accumulate() {
    let x: Array<f32, 5> = Array::arange();
    let eager = x.clone().at(Array::<i32, 2>::from([0, 0])).add(1.0);
    assert_eq!(add_at_constant_indices(x).to_vec(), eager.to_vec());
    assert_eq!(eager.to_vec(), [2.0, 1.0, 2.0, 3.0, 4.0]);
}
