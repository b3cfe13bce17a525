//! `lax::dynamic_slice`, `lax::dynamic_update_slice` and their one-axis
//! forms, eagerly and in `#[jax::jit]`, against JAX's values
//! (tests/fixtures/dynamic_slice.json, made by
//! tests/fixtures/gen/dynamic_slice.py): starts past either end clamped,
//! negative starts counted from the end, jvp and vjp in jit, a
//! `fori_loop` writing row `i` at the loop index and its gradient, and
//! `vmap` with starts every lane shares and with a start per lane (a
//! `scatter`, as JAX batches it).

use crate::common;

use jax::prelude::*;
use jax::{ArrayType, Element};
use serde_json::Value;

fn case(name: &str) -> Value {
    common::case("dynamic_slice", name)
}

/// Argument `k` of a case, as an array.
fn arg<A: ArrayType>(name: &str, k: usize) -> A {
    A::from_data(
        case(name)["args"][k]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| A::Elem::from_f64(d.as_f64().unwrap()))
            .collect(),
    )
}

/// Argument `k` of a case, a start index.
fn start(name: &str, k: usize) -> i32 {
    case(name)["args"][k]["data"][0].as_i64().unwrap() as i32
}

/// The case's output, or item `k` of it.
fn output(name: &str, item: Option<usize>) -> Value {
    let out = case(name)["output"].clone();
    match item {
        Some(k) => out["items"][k].clone(),
        None => out,
    }
}

/// Bit for bit JAX's value.
#[track_caller]
fn exact<A: ArrayType>(name: &str, item: Option<usize>, got: &A) {
    common::assert_matches(got, &output(name, item));
}

/// Within a few float32 ulps of JAX's value (derivatives through `sin`).
#[track_caller]
fn close<A: ArrayType>(name: &str, item: Option<usize>, got: &A) {
    let want = output(name, item);
    let want: Vec<f64> = want["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_f64().unwrap())
        .collect();
    assert_eq!(got.data().len(), want.len(), "{name}: length");
    for (i, (g, w)) in got.data().iter().zip(&want).enumerate() {
        let g = g.to_f64();
        let tol = 4.0 * f32::EPSILON as f64 * w.abs().max(1e-3);
        assert!((g - w).abs() <= tol, "{name}[{i}]: ours {g:e}, JAX {w:e}");
    }
}

#[jax::jit]
fn ds_2d(x: Array<f32, 4, 5>, i: i32, j: i32) -> Array<f32, 2, 3> {
    lax::dynamic_slice(&x, &[i, j])
}

#[test]
fn dynamic_slice_clamps_and_counts_from_the_end() {
    for name in [
        "ds_2d",
        "ds_2d_clamped",
        "ds_2d_negative",
        "ds_2d_very_negative",
    ] {
        let x: Array<f32, 4, 5> = arg(name, 0);
        let (i, j) = (start(name, 1), start(name, 2));
        exact(name, None, &ds_2d(x.clone(), i, j));
        let eager: Array<f32, 2, 3> = lax::dynamic_slice(&x, &[i, j]);
        exact(name, None, &eager);
    }
}

#[jax::jit]
fn ds_static_start(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 2, 2> {
    let y: Array<f32, 2, 2> = lax::dynamic_slice(&x, &[i, -2]);
    y
}

#[jax::jit]
fn ds_unsigned_start(x: Array<f32, 10>, i: u32) -> Array<f32, 3> {
    lax::dynamic_slice(&x, &[i])
}

#[jax::jit]
fn ds_int(x: Array<i32, 10>, i: i32) -> Array<i32, 3> {
    lax::dynamic_slice::<Array<i32, 3>, _, _>(&x, &[i])
}

#[test]
fn dynamic_slice_mixed_static_start_and_integers() {
    let x: Array<f32, 4, 5> = arg("ds_static_start", 0);
    let i = start("ds_static_start", 1);
    exact("ds_static_start", None, &ds_static_start(x.clone(), i));
    let eager: Array<f32, 2, 2> = lax::dynamic_slice(&x, &[i, -2]);
    exact("ds_static_start", None, &eager);
    // An unsigned start is never negative: 4e9 clamps to the end.
    let n = "ds_unsigned_start";
    let x: Array<f32, 10> = arg(n, 0);
    let i = case(n)["args"][1]["data"][0].as_u64().unwrap() as u32;
    exact(n, None, &ds_unsigned_start(x.clone(), i));
    let eager: Array<f32, 3> = lax::dynamic_slice(&x, &[i]);
    exact(n, None, &eager);
    let x: Array<i32, 10> = arg("ds_int", 0);
    let i = start("ds_int", 1);
    exact("ds_int", None, &ds_int(x.clone(), i));
    exact(
        "ds_int",
        None,
        &lax::dynamic_slice::<Array<i32, 3>, _, _>(&x, &[i]),
    );
}

#[jax::jit]
fn dus_2d(x: Array<f32, 4, 5>, u: Array<f32, 2, 3>, i: i32, j: i32) -> Array<f32, 4, 5> {
    lax::dynamic_update_slice(&x, &u, &[i, j])
}

#[jax::jit]
fn dus_int(x: Array<i32, 6>, u: Array<i32, 2>, i: i32) -> Array<i32, 6> {
    lax::dynamic_update_slice(x, u, &[i])
}

#[test]
fn dynamic_update_slice_clamps_and_counts_from_the_end() {
    for name in [
        "dus_2d",
        "dus_2d_clamped",
        "dus_2d_negative",
        "dus_2d_out_of_bounds",
    ] {
        let x: Array<f32, 4, 5> = arg(name, 0);
        let u: Array<f32, 2, 3> = arg(name, 1);
        let (i, j) = (start(name, 2), start(name, 3));
        exact(name, None, &dus_2d(x.clone(), u.clone(), i, j));
        exact(name, None, &lax::dynamic_update_slice(&x, &u, &[i, j]));
    }
    let x: Array<i32, 6> = arg("dus_int", 0);
    let u: Array<i32, 2> = arg("dus_int", 1);
    let i = start("dus_int", 2);
    exact("dus_int", None, &dus_int(x.clone(), u.clone(), i));
    exact("dus_int", None, &lax::dynamic_update_slice(&x, &u, &[i]));
}

#[jax::jit]
fn ds_in_dim(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 4, 2> {
    lax::dynamic_slice_in_dim(&x, i, 2, 1)
}

#[jax::jit]
fn di_in_dim(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 4> {
    lax::dynamic_index_in_dim(&x, i, 1, false)
}

#[jax::jit]
fn di_in_dim_keepdims(x: Array<f32, 4, 5>, i: i32) -> Array<f32, 1, 5> {
    lax::dynamic_index_in_dim(&x, i, 0, true)
}

#[jax::jit]
fn dus_in_dim(x: Array<f32, 4, 5>, u: Array<f32, 4, 2>, i: i32) -> Array<f32, 4, 5> {
    lax::dynamic_update_slice_in_dim(&x, &u, i, 1)
}

#[jax::jit]
fn dui_in_dim(x: Array<f32, 4, 5>, u: Array<f32, 4>, i: i32) -> Array<f32, 4, 5> {
    lax::dynamic_update_index_in_dim(&x, &u, i, 1)
}

#[jax::jit]
fn dui_in_dim_keepdims(x: Array<f32, 4, 5>, u: Array<f32, 1, 5>, i: i32) -> Array<f32, 4, 5> {
    lax::dynamic_update_index_in_dim(&x, &u, i, 0)
}

#[test]
fn one_axis_forms() {
    let x: Array<f32, 4, 5> = arg("ds_in_dim", 0);
    let i = start("ds_in_dim", 1);
    exact("ds_in_dim", None, &ds_in_dim(x.clone(), i));
    let eager: Array<f32, 4, 2> = lax::dynamic_slice_in_dim(&x, i, 2, 1);
    exact("ds_in_dim", None, &eager);

    let i = start("di_in_dim", 1);
    exact("di_in_dim", None, &di_in_dim(x.clone(), i));
    let eager: Array<f32, 4> = lax::dynamic_index_in_dim(&x, i, 1, false);
    exact("di_in_dim", None, &eager);

    let i = start("di_in_dim_keepdims", 1);
    exact(
        "di_in_dim_keepdims",
        None,
        &di_in_dim_keepdims(x.clone(), i),
    );
    let eager: Array<f32, 1, 5> = lax::dynamic_index_in_dim(&x, i, 0, true);
    exact("di_in_dim_keepdims", None, &eager);

    let u: Array<f32, 4, 2> = arg("dus_in_dim", 1);
    let i = start("dus_in_dim", 2);
    exact("dus_in_dim", None, &dus_in_dim(x.clone(), u.clone(), i));
    exact(
        "dus_in_dim",
        None,
        &lax::dynamic_update_slice_in_dim(&x, &u, i, 1),
    );

    let u: Array<f32, 4> = arg("dui_in_dim", 1);
    let i = start("dui_in_dim", 2);
    exact("dui_in_dim", None, &dui_in_dim(x.clone(), u.clone(), i));
    exact(
        "dui_in_dim",
        None,
        &lax::dynamic_update_index_in_dim(&x, &u, i, 1),
    );

    let u: Array<f32, 1, 5> = arg("dui_in_dim_keepdims", 1);
    let i = start("dui_in_dim_keepdims", 2);
    exact(
        "dui_in_dim_keepdims",
        None,
        &dui_in_dim_keepdims(x.clone(), u.clone(), i),
    );
    exact(
        "dui_in_dim_keepdims",
        None,
        &lax::dynamic_update_index_in_dim(&x, &u, i, 0),
    );
}

#[jax::jit]
fn jvp_ds(
    x: Array<f32, 4, 5>,
    t: Array<f32, 4, 5>,
    i: i32,
    j: i32,
) -> (Array<f32, 2, 3>, Array<f32, 2, 3>) {
    jax::jvp(
        |x| {
            let y: Array<f32, 2, 3> = lax::dynamic_slice(&x, &[i, j]);
            y
        },
        (x,),
        (t,),
    )
}

#[jax::jit]
fn jvp_dus(
    x: Array<f32, 4, 5>,
    u: Array<f32, 2, 3>,
    tx: Array<f32, 4, 5>,
    tu: Array<f32, 2, 3>,
    i: i32,
    j: i32,
) -> (Array<f32, 4, 5>, Array<f32, 4, 5>) {
    jax::jvp(
        |x, u| lax::dynamic_update_slice(&x, &u, &[i, j]),
        (x, u),
        (tx, tu),
    )
}

#[jax::jit]
fn grad_ds(x: Array<f32, 4, 5>, w: Array<f32, 2, 3>, i: i32, j: i32) -> Array<f32, 4, 5> {
    jax::grad(|x| {
        let y: Array<f32, 2, 3> = lax::dynamic_slice(&x, &[i, j]);
        (y * w).sum()
    })(x)
}

#[jax::jit]
fn vjp_dus(
    x: Array<f32, 4, 5>,
    u: Array<f32, 2, 3>,
    ct: Array<f32, 4, 5>,
    i: i32,
    j: i32,
) -> (Array<f32, 4, 5>, Array<f32, 2, 3>) {
    let (_y, pullback) = jax::vjp(|x, u| lax::dynamic_update_slice(&x, &u, &[i, j]), x, u);
    pullback(ct)
}

#[jax::jit]
fn grad_in_dim(
    x: Array<f32, 4, 5>,
    u: Array<f32, 5>,
    one: Array<f32>,
    i: i32,
) -> (Array<f32, 4, 5>, Array<f32, 5>) {
    let (_y, pullback) = jax::vjp(
        |x, u| {
            let row: Array<f32, 1, 5> = lax::dynamic_index_in_dim(&x, i, 0, true);
            (jnp::sin(lax::dynamic_update_index_in_dim(&x, &u, i, 0)) * row).sum()
        },
        x,
        u,
    );
    // The seed as an f32 array: a literal is f64 under x64.
    pullback(one)
}

#[jax::jit]
fn jvp_ds_in_dim(
    x: Array<f32, 4, 5>,
    t: Array<f32, 4, 5>,
    i: i32,
) -> (Array<f32, 4, 2>, Array<f32, 4, 2>) {
    jax::jvp(|x| lax::dynamic_slice_in_dim(&x, i, 2, 1), (x,), (t,))
}

#[jax::jit]
fn vjp_dus_in_dim(
    x: Array<f32, 4, 5>,
    u: Array<f32, 2, 5>,
    ct: Array<f32, 4, 5>,
    i: i32,
) -> (Array<f32, 4, 5>, Array<f32, 2, 5>) {
    let (_y, pullback) = jax::vjp(|x, u| lax::dynamic_update_slice_in_dim(&x, &u, i, 0), x, u);
    pullback(ct)
}

#[test]
fn derivatives_in_jit() {
    let n = "jvp_ds";
    let (y, ty) = jvp_ds(arg(n, 0), arg(n, 1), start(n, 2), start(n, 3));
    exact(n, Some(0), &y);
    exact(n, Some(1), &ty);

    let n = "jvp_dus";
    let (y, ty) = jvp_dus(
        arg(n, 0),
        arg(n, 1),
        arg(n, 2),
        arg(n, 3),
        start(n, 4),
        start(n, 5),
    );
    exact(n, Some(0), &y);
    exact(n, Some(1), &ty);

    let n = "grad_ds";
    exact(
        n,
        None,
        &grad_ds(arg(n, 0), arg(n, 1), start(n, 2), start(n, 3)),
    );

    let n = "vjp_dus";
    let (cx, cu) = vjp_dus(arg(n, 0), arg(n, 1), arg(n, 2), start(n, 3), start(n, 4));
    exact(n, Some(0), &cx);
    exact(n, Some(1), &cu);

    let n = "jvp_ds_in_dim";
    let (y, ty) = jvp_ds_in_dim(arg(n, 0), arg(n, 1), start(n, 2));
    exact(n, Some(0), &y);
    exact(n, Some(1), &ty);

    let n = "vjp_dus_in_dim";
    let (cx, cu) = vjp_dus_in_dim(arg(n, 0), arg(n, 1), arg(n, 2), start(n, 3));
    exact(n, Some(0), &cx);
    exact(n, Some(1), &cu);

    let n = "grad_in_dim";
    let (cx, cu) = grad_in_dim(
        arg(n, 0),
        arg(n, 1),
        Array::from_data(vec![1.0]),
        start(n, 2),
    );
    close(n, Some(0), &cx);
    close(n, Some(1), &cu);
}

#[jax::jit]
fn fori_rows(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    lax::fori_loop(
        0,
        4,
        |i, acc| {
            let row: Array<f32, 1, 3> = lax::dynamic_slice(&x, &[i, 0]);
            lax::dynamic_update_slice(&acc, &(row * row), &[i, 0])
        },
        jnp::zeros_like(&x),
    )
}

#[jax::jit]
fn grad_fori_rows(x: Array<f32, 4, 3>) -> Array<f32, 4, 3> {
    jax::grad(|x: Array<f32, 4, 3>| {
        let rows = lax::fori_loop(
            0,
            4,
            |i, acc| {
                let row: Array<f32, 1, 3> = lax::dynamic_slice(&x, &[i, 0]);
                lax::dynamic_update_slice(&acc, &(jnp::sin(row) * 2.0), &[i, 0])
            },
            jnp::zeros_like(&x),
        );
        (rows * x).sum()
    })(x)
}

#[test]
fn fori_loop_writes_rows_at_the_loop_index() {
    let x: Array<f32, 4, 3> = arg("fori_rows", 0);
    exact("fori_rows", None, &fori_rows(x.clone()));
    let mut eager: Array<f32, 4, 3> = Array::zeros();
    for i in 0..4 {
        let row: Array<f32, 1, 3> = lax::dynamic_slice(&x, &[i, 0]);
        eager = lax::dynamic_update_slice(&eager, &(&row * &row), &[i, 0]);
    }
    exact("fori_rows", None, &eager);
    close(
        "grad_fori_rows",
        None,
        &grad_fori_rows(arg("grad_fori_rows", 0)),
    );
}

#[jax::jit]
fn vmap_ds(x: Array<f32, 3, 4, 5>, i: i32) -> Array<f32, 3, 2, 2> {
    jax::vmap(
        |x| {
            let y: Array<f32, 2, 2> = lax::dynamic_slice(&x, &[i, 1]);
            y
        },
        0,
    )(x)
}

#[jax::jit]
fn vmap_dus(x: Array<f32, 3, 4, 5>, u: Array<f32, 2, 3, 2>, i: i32) -> Array<f32, 3, 4, 5> {
    jax::vmap(|x, u| lax::dynamic_update_slice(&x, &u, &[i, -2]), (0, 1))(x, u)
}

#[jax::jit]
fn vmap_dus_unbatched_update(x: Array<f32, 3, 5>, u: Array<f32, 2>, i: i32) -> Array<f32, 3, 5> {
    jax::vmap(|x| lax::dynamic_update_slice(&x, &u, &[i]), 0)(x)
}

#[test]
fn vmap_with_starts_every_lane_shares() {
    let n = "vmap_ds";
    exact(n, None, &vmap_ds(arg(n, 0), start(n, 1)));
    let n = "vmap_dus";
    exact(n, None, &vmap_dus(arg(n, 0), arg(n, 1), start(n, 2)));
    let n = "vmap_dus_unbatched_update";
    exact(
        n,
        None,
        &vmap_dus_unbatched_update(arg(n, 0), arg(n, 1), start(n, 2)),
    );
}

// A start per lane: JAX's batching rule makes `dynamic_update_slice` a
// `scatter` with the starts as a `[lanes, rank]` index, clamped.

#[jax::jit]
fn vmap_dus_batched_start(
    x: Array<f32, 3, 5, 4>,
    u: Array<f32, 3, 2, 4>,
    i: Array<i32, 3>,
) -> Array<f32, 3, 5, 4> {
    jax::vmap(
        |x, u, i| lax::dynamic_update_slice(&x, &u, &[i, 0]),
        (0, 0, 0),
    )(x, u, i)
}

#[jax::jit]
fn vmap_dus_batched_start_shared_operand(
    x: Array<f32, 5, 4>,
    u: Array<f32, 3, 2, 4>,
    i: Array<i32, 3>,
) -> Array<f32, 3, 5, 4> {
    jax::vmap(
        |x, u, i| lax::dynamic_update_slice(&x, &u, &[i, 0]),
        (None, 0, 0),
    )(x, u, i)
}

#[jax::jit]
fn vmap_dus_batched_start_shared_update(
    x: Array<f32, 3, 5, 4>,
    u: Array<f32, 2, 4>,
    i: Array<i32, 3>,
) -> Array<f32, 3, 5, 4> {
    jax::vmap(
        |x, u, i| lax::dynamic_update_slice(&x, &u, &[i, 0]),
        (0, None, 0),
    )(x, u, i)
}

#[jax::jit]
fn vmap_dus_two_batched_starts(
    x: Array<f32, 3, 4, 5>,
    u: Array<f32, 3, 2, 3>,
    i: Array<i32, 3>,
    j: Array<i32, 3>,
) -> Array<f32, 3, 4, 5> {
    jax::vmap(
        |x, u, i, j| lax::dynamic_update_slice(&x, &u, &[i, j]),
        (0, 0, 0, 0),
    )(x, u, i, j)
}

#[jax::jit]
fn vmap_dus_batched_start_int(
    x: Array<i32, 2, 6>,
    u: Array<i32, 2, 2>,
    i: Array<i32, 2>,
) -> Array<i32, 2, 6> {
    jax::vmap(|x, u, i| lax::dynamic_update_slice(&x, &u, &[i]), (0, 0, 0))(x, u, i)
}

#[jax::jit]
fn grad_vmap_dus_batched_start(
    x: Array<f32, 3, 5, 4>,
    u: Array<f32, 3, 2, 4>,
    i: Array<i32, 3>,
    one: Array<f32>,
) -> (Array<f32, 3, 5, 4>, Array<f32, 3, 2, 4>) {
    let (_y, pullback) = jax::vjp(
        |x: Array<f32, 3, 5, 4>, u: Array<f32, 3, 2, 4>| {
            let y = jax::vmap(
                |x, u, i| lax::dynamic_update_slice(&x, &u, &[i, 0]),
                (0, 0, 0),
            )(x.clone(), u, i.clone());
            (jnp::sin(y) * x).sum()
        },
        x,
        u,
    );
    // The seed as an f32 array: a literal is f64 under x64.
    pullback(one)
}

#[test]
fn vmap_with_a_start_per_lane_is_a_scatter() {
    let n = "vmap_dus_batched_start";
    exact(
        n,
        None,
        &vmap_dus_batched_start(arg(n, 0), arg(n, 1), arg(n, 2)),
    );
    let n = "vmap_dus_batched_start_shared_operand";
    exact(
        n,
        None,
        &vmap_dus_batched_start_shared_operand(arg(n, 0), arg(n, 1), arg(n, 2)),
    );
    let n = "vmap_dus_batched_start_shared_update";
    exact(
        n,
        None,
        &vmap_dus_batched_start_shared_update(arg(n, 0), arg(n, 1), arg(n, 2)),
    );
    let n = "vmap_dus_two_batched_starts";
    exact(
        n,
        None,
        &vmap_dus_two_batched_starts(arg(n, 0), arg(n, 1), arg(n, 2), arg(n, 3)),
    );
    let n = "vmap_dus_batched_start_int";
    exact(
        n,
        None,
        &vmap_dus_batched_start_int(arg(n, 0), arg(n, 1), arg(n, 2)),
    );
}

#[test]
fn gradient_through_a_start_per_lane() {
    let n = "grad_vmap_dus_batched_start";
    let (gx, gu) =
        grad_vmap_dus_batched_start(arg(n, 0), arg(n, 1), arg(n, 2), Array::from_data(vec![1.0]));
    close(n, Some(0), &gx);
    close(n, Some(1), &gu);
}
