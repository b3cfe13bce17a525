//! Indexing with index arrays and traced positions, eagerly and in
//! `#[jax::jit]`, against JAX's values (tests/fixtures/gather.json, made by
//! tests/fixtures/gen/gather.py): gathers in every mode, scatters with
//! duplicate and out-of-bounds indices, `jnp::take`/`take_along_axis`,
//! their derivatives and `vmap`.

use crate::common;

use jax::index::Mode;
use jax::prelude::*;
use jax::{ArrayType, Element};
use serde_json::Value;

pub(crate) fn case(name: &str) -> Value {
    common::case("gather", name)
}

pub(crate) fn arg<A: ArrayType>(name: &str, k: usize) -> A {
    let v = &case(name)["args"][k];
    A::from_data(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| A::Elem::from_f64(d.as_f64().unwrap()))
            .collect(),
    )
}

/// The values JAX gave, element by element (NaN where JAX's is NaN), as
/// `f64`, with the shape.
pub(crate) fn want(v: &Value) -> (Vec<usize>, Vec<f64>) {
    let shape = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let data = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_f64().unwrap_or(f64::NAN))
        .collect();
    (shape, data)
}

/// `got` equals JAX's output `v` exactly (values are multiples of 1/4), or
/// within `tol` relative error when `tol > 0`.
#[track_caller]
pub(crate) fn check<A: ArrayType>(what: &str, got: &A, v: &Value, tol: f64) {
    let (shape, data) = want(v);
    assert_eq!(A::SHAPE, &shape[..], "{what}: shape");
    assert_eq!(
        <A::Elem as Element>::DTYPE.name(),
        v["dtype"].as_str().unwrap(),
        "{what}: dtype"
    );
    for (i, (g, w)) in got.data().iter().zip(&data).enumerate() {
        let g = g.to_f64();
        let ok = if w.is_nan() {
            g.is_nan()
        } else if tol > 0.0 {
            (g - w).abs() <= tol * w.abs().max(1.0)
        } else {
            g == *w
        };
        assert!(ok, "{what}[{i}]: ours {g}, JAX {w}");
    }
}

/// Checks the jitted and the eager result against case `name`'s output.
#[track_caller]
pub(crate) fn both<A: ArrayType>(name: &str, jit: A, eager: A) {
    let out = &case(name)["output"];
    check(&format!("{name} (jit)"), &jit, out, 0.0);
    check(&format!("{name} (eager)"), &eager, out, 0.0);
}

#[jax::jit]
fn get_rows(x: Array<f32, 5, 3>, i: Array<i32, 4>) -> Array<f32, 4, 3> {
    x.at(i).get()
}

#[jax::jit]
fn get_cols(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 5, 3> {
    x.at((.., i)).get()
}

#[jax::jit]
fn get_int_then_array(x: Array<f32, 5, 3>, i: Array<i32, 2>) -> Array<f32, 2> {
    x.at((1, i)).get()
}

#[jax::jit]
fn get_array_then_int(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3> {
    x.at((i, -1)).get()
}

#[jax::jit]
fn get_index_matrix(x: Array<f32, 5, 3>, i: Array<i32, 2, 2>) -> Array<f32, 2, 2, 3> {
    x.at(i).get()
}

#[jax::jit]
fn get_broadcast_arrays(
    x: Array<f32, 5, 3>,
    i: Array<i32, 2, 1>,
    j: Array<i32, 3>,
) -> Array<f32, 2, 3> {
    x.at((i, j)).get()
}

#[jax::jit]
fn get_separated_arrays(
    x: Array<f32, 4, 3, 5>,
    i: Array<i32, 2>,
    j: Array<i32, 2>,
) -> Array<f32, 2, 3> {
    x.at((i, .., j)).get()
}

#[jax::jit]
fn get_slice_then_array(x: Array<f32, 4, 5>, i: Array<i32, 3>) -> Array<f32, 2, 3> {
    x.at((1..3, i)).get()
}

#[jax::jit]
fn get_traced_int_and_array(x: Array<f32, 5, 3>, k: i32, i: Array<i32, 2>) -> Array<f32, 2> {
    x.at((k, i)).get()
}

#[jax::jit]
fn get_out_of_bounds(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3, 3> {
    x.at(i).get()
}

#[jax::jit]
fn get_clip(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3, 3> {
    x.at(i).get_with(Mode::Clip)
}

#[jax::jit]
fn get_fill(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3, 3> {
    x.at(i).get_fill(-1.0)
}

#[jax::jit]
fn get_fill_default(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3, 3> {
    x.at(i).get_with(Mode::FillOrDrop)
}

#[jax::jit]
fn get_promise_in_bounds(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 3, 3> {
    x.at(i).get_with(Mode::PromiseInBounds)
}

#[test]
fn gathers_match_jax() {
    let (x, i): (Array<f32, 5, 3>, Array<i32, 4>) = (arg("get_rows", 0), arg("get_rows", 1));
    both("get_rows", get_rows(x.clone(), i.clone()), x.at(&i).get());
    let (x, i): (Array<f32, 5, 3>, Array<i32, 3>) = (arg("get_cols", 0), arg("get_cols", 1));
    both(
        "get_cols",
        get_cols(x.clone(), i.clone()),
        x.at((.., &i)).get(),
    );
    let (x, i): (Array<f32, 5, 3>, Array<i32, 2>) =
        (arg("get_int_then_array", 0), arg("get_int_then_array", 1));
    both(
        "get_int_then_array",
        get_int_then_array(x.clone(), i.clone()),
        x.at((1, &i)).get(),
    );
    let (x, i): (Array<f32, 5, 3>, Array<i32, 3>) =
        (arg("get_array_then_int", 0), arg("get_array_then_int", 1));
    both(
        "get_array_then_int",
        get_array_then_int(x.clone(), i.clone()),
        x.at((&i, -1)).get(),
    );
    let (x, i): (Array<f32, 5, 3>, Array<i32, 2, 2>) =
        (arg("get_index_matrix", 0), arg("get_index_matrix", 1));
    both(
        "get_index_matrix",
        get_index_matrix(x.clone(), i.clone()),
        x.at(&i).get(),
    );
    let n = "get_broadcast_arrays";
    let (x, i, j): (Array<f32, 5, 3>, Array<i32, 2, 1>, Array<i32, 3>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        get_broadcast_arrays(x.clone(), i.clone(), j.clone()),
        x.at((&i, &j)).get(),
    );
    let n = "get_separated_arrays";
    let (x, i, j): (Array<f32, 4, 3, 5>, Array<i32, 2>, Array<i32, 2>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        get_separated_arrays(x.clone(), i.clone(), j.clone()),
        x.at((&i, .., &j)).get(),
    );
    let n = "get_slice_then_array";
    let (x, i): (Array<f32, 4, 5>, Array<i32, 3>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        get_slice_then_array(x.clone(), i.clone()),
        x.at((1..3, &i)).get(),
    );
    let n = "get_traced_int_and_array";
    let (x, i): (Array<f32, 5, 3>, Array<i32, 2>) = (arg(n, 0), arg(n, 2));
    let k = -2;
    both(
        n,
        get_traced_int_and_array(x.clone(), k, i.clone()),
        x.at((k, &i)).get(),
    );
}

#[test]
fn gather_modes_match_jax() {
    let x: Array<f32, 5, 3> = arg("get_clip", 0);
    let i: Array<i32, 3> = arg("get_clip", 1);
    both(
        "get_out_of_bounds",
        get_out_of_bounds(x.clone(), i.clone()),
        x.clone().at(&i).get(),
    );
    both(
        "get_clip",
        get_clip(x.clone(), i.clone()),
        x.clone().at(&i).get_with(Mode::Clip),
    );
    both(
        "get_fill",
        get_fill(x.clone(), i.clone()),
        x.clone().at(&i).get_fill(-1.0),
    );
    both(
        "get_fill_default",
        get_fill_default(x.clone(), i.clone()),
        x.clone().at(&i).get_with(Mode::FillOrDrop),
    );
    let i: Array<i32, 3> = arg("get_promise_in_bounds", 1);
    both(
        "get_promise_in_bounds",
        get_promise_in_bounds(x.clone(), i.clone()),
        x.at(&i).get_with(Mode::PromiseInBounds),
    );
}

#[jax::jit]
fn get_points(x: Array<f32, 5, 3>, i: Array<i32, 6>, j: Array<i32, 6>) -> Array<f32, 6> {
    x.at((i, j)).get() * 2.0
}

#[jax::jit]
fn get_points_clip(x: Array<f32, 5, 3>, i: Array<i32, 6>, j: Array<i32, 6>) -> Array<f32, 6> {
    x.at((i, j)).get_with(Mode::Clip) + 1.0
}

#[jax::jit]
fn get_points_fill(x: Array<f32, 5, 3>, i: Array<i32, 6>, j: Array<i32, 6>) -> Array<f32, 6> {
    x.at((i, j)).get_fill(-1.0) * 2.0
}

#[jax::jit]
fn get_points_of_temporary(
    x: Array<f32, 5, 3>,
    i: Array<i32, 5, 3>,
    j: Array<i32, 5, 3>,
) -> Array<f32, 5, 3> {
    let y = x * 2.0 + 1.0;
    y.at((i, j)).get() * y
}

/// Gathers of single elements, which jit computes inside their reader's
/// loop (reading the operand at the positions the index arrays give): out
/// of bounds in each mode, and from a temporary the reader's loop must not
/// write over while it still gathers from it.
#[test]
fn point_gathers_match_jax() {
    let n = "get_points";
    let (x, i, j): (Array<f32, 5, 3>, Array<i32, 6>, Array<i32, 6>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        get_points(x.clone(), i.clone(), j.clone()),
        x.clone().at((&i, &j)).get::<Array<f32, 6>>() * 2.0,
    );
    both(
        "get_points_clip",
        get_points_clip(x.clone(), i.clone(), j.clone()),
        x.clone().at((&i, &j)).get_with::<Array<f32, 6>>(Mode::Clip) + 1.0,
    );
    both(
        "get_points_fill",
        get_points_fill(x.clone(), i.clone(), j.clone()),
        x.at((&i, &j)).get_fill::<Array<f32, 6>, f32>(-1.0) * 2.0,
    );
    let n = "get_points_of_temporary";
    let (x, i, j): (Array<f32, 5, 3>, Array<i32, 5, 3>, Array<i32, 5, 3>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    let y = x.clone() * 2.0 + 1.0;
    both(
        n,
        get_points_of_temporary(x, i.clone(), j.clone()),
        y.clone().at((&i, &j)).get::<Array<f32, 5, 3>>() * y,
    );
}

#[jax::jit]
fn add_duplicates(x: Array<f32, 5, 3>, i: Array<i32, 4>, v: Array<f32, 4, 3>) -> Array<f32, 5, 3> {
    x.at(i).add(v)
}

#[jax::jit]
fn add_scalar(x: Array<f32, 5, 3>, i: Array<i32, 3>) -> Array<f32, 5, 3> {
    x.at(i).add(1.0)
}

#[jax::jit]
fn add_cols(x: Array<f32, 5, 3>, i: Array<i32, 2>, v: Array<f32, 5, 2>) -> Array<f32, 5, 3> {
    x.at((.., i)).add(v)
}

#[jax::jit]
fn add_dropped(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> {
    x.at(i).add(v)
}

#[jax::jit]
fn add_clip(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> {
    x.at(i).add_with(v, Mode::Clip)
}

#[jax::jit]
fn mul_duplicates(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> {
    x.at(i).mul(v)
}

#[jax::jit]
fn min_duplicates(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> {
    x.at(i).min(v)
}

#[jax::jit]
fn max_duplicates(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> {
    x.at(i).max(v)
}

#[jax::jit]
fn set_unique(x: Array<f32, 5, 3>, i: Array<i32, 3>, v: Array<f32, 3, 3>) -> Array<f32, 5, 3> {
    x.at(i).set(v)
}

#[jax::jit]
fn set_traced_position(x: Array<f32, 5, 3>, k: i32, v: Array<f32, 3>) -> Array<f32, 5, 3> {
    x.at(k).set(v)
}

#[jax::jit]
fn add_traced_position_2d(x: Array<f32, 5, 3>, k: i32, v: f32) -> Array<f32, 5, 3> {
    x.at((1, k)).add(v)
}

#[test]
fn scatters_match_jax() {
    let n = "add_duplicates";
    let (x, i, v): (Array<f32, 5, 3>, Array<i32, 4>, Array<f32, 4, 3>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        add_duplicates(x.clone(), i.clone(), v.clone()),
        x.at(&i).add(&v),
    );
    let n = "add_scalar";
    let (x, i): (Array<f32, 5, 3>, Array<i32, 3>) = (arg(n, 0), arg(n, 1));
    both(n, add_scalar(x.clone(), i.clone()), x.at(&i).add(1.0));
    let n = "add_cols";
    let (x, i, v): (Array<f32, 5, 3>, Array<i32, 2>, Array<f32, 5, 2>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        add_cols(x.clone(), i.clone(), v.clone()),
        x.at((.., &i)).add(&v),
    );
    let n = "add_out_of_bounds_dropped";
    let (x, i, v): (Array<f32, 5, 3>, Array<i32, 3>, Array<f32, 3, 3>) =
        (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        add_dropped(x.clone(), i.clone(), v.clone()),
        x.clone().at(&i).add(&v),
    );
    both(
        "add_clip",
        add_clip(x.clone(), i.clone(), v.clone()),
        x.at(&i).add_with(&v, Mode::Clip),
    );
    type Upd = (Array<f32, 5, 3>, Array<i32, 3>, Array<f32, 3, 3>);
    let n = "mul_duplicates";
    let (x, i, v): Upd = (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        mul_duplicates(x.clone(), i.clone(), v.clone()),
        x.at(&i).mul(&v),
    );
    let n = "min_duplicates";
    let (x, i, v): Upd = (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        min_duplicates(x.clone(), i.clone(), v.clone()),
        x.at(&i).min(&v),
    );
    let n = "max_duplicates";
    let (x, i, v): Upd = (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        max_duplicates(x.clone(), i.clone(), v.clone()),
        x.at(&i).max(&v),
    );
    let n = "set_unique";
    let (x, i, v): Upd = (arg(n, 0), arg(n, 1), arg(n, 2));
    both(
        n,
        set_unique(x.clone(), i.clone(), v.clone()),
        x.at(&i).set(&v),
    );
    let n = "set_traced_position";
    let (x, v): (Array<f32, 5, 3>, Array<f32, 3>) = (arg(n, 0), arg(n, 2));
    both(
        n,
        set_traced_position(x.clone(), -2, v.clone()),
        x.at(-2).set(&v),
    );
    let n = "add_traced_position_2d";
    let x: Array<f32, 5, 3> = arg(n, 0);
    both(
        n,
        add_traced_position_2d(x.clone(), 2, 10.0),
        x.at((1, 2)).add(10.0),
    );
}

#[jax::jit]
fn set_whole(x: Array<f32, 5, 3>) -> Array<f32, 5, 3> {
    x.at(s![..]).set(2.0)
}

#[jax::jit]
fn add_stepped_rows(x: Array<f32, 5, 3>, v: Array<f32, 2, 3>) -> Array<f32, 5, 3> {
    x.at(s![1..;2]).add(v)
}

#[jax::jit]
fn set_rows_slice(x: Array<f32, 5, 3>, v: f32) -> Array<f32, 5, 3> {
    x.at(s![1..4]).set(v)
}

/// Updates through slices (whole, partial, stepped) are scatters too.
#[test]
fn updates_through_slices_match_jax() {
    let x: Array<f32, 5, 3> = arg("set_whole", 0);
    both("set_whole", set_whole(x.clone()), x.at(s![..]).set(2.0));
    let n = "add_stepped_rows";
    let (x, v): (Array<f32, 5, 3>, Array<f32, 2, 3>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        add_stepped_rows(x.clone(), v.clone()),
        x.at(s![1..;2]).add(&v),
    );
    let x: Array<f32, 5, 3> = arg("set_rows_slice", 0);
    both(
        "set_rows_slice",
        set_rows_slice(x.clone(), 7.0),
        x.at(s![1..4]).set(7.0),
    );
}

#[jax::jit]
fn set_stepped(x: Array<f32, 7>, v: Array<f32, 4>) -> Array<f32, 7> {
    x.at(s![..;2]).set(v)
}

#[jax::jit]
fn add_stepped_cols(x: Array<f32, 4, 7>, v: Array<f32, 4, 2>) -> Array<f32, 4, 7> {
    x.at(s![.., 1..;3]).add(v)
}

#[jax::jit]
fn set_row_stepped(x: Array<f32, 4, 7>, v: Array<f32, 3>) -> Array<f32, 4, 7> {
    x.at(s![-3, 1..6;2]).set(v)
}

/// Stepped slices in any position, with an integer beside them: positions
/// `start + step * iota(len)` in jit.
#[test]
fn updates_through_stepped_slices_match_jax() {
    let n = "set_stepped";
    let (x, v): (Array<f32, 7>, Array<f32, 4>) = (arg(n, 0), arg(n, 1));
    both(n, set_stepped(x.clone(), v.clone()), x.at(s![..;2]).set(&v));
    let n = "add_stepped_cols";
    let (x, v): (Array<f32, 4, 7>, Array<f32, 4, 2>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        add_stepped_cols(x.clone(), v.clone()),
        x.at(s![.., 1..;3]).add(&v),
    );
    let n = "set_row_stepped";
    let (x, v): (Array<f32, 4, 7>, Array<f32, 3>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        set_row_stepped(x.clone(), v.clone()),
        x.at(s![-3, 1..6;2]).set(&v),
    );
}

/// With duplicate indices `set` keeps the last update, as XLA on CPU
/// (JAX leaves the order unspecified).
#[test]
fn set_with_duplicates_keeps_the_last_update() {
    let x = Array::<f32, 4>::zeros();
    let i = Array::<i32, 3>::from([1, 1, 1]);
    let v = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    assert_eq!(
        set_dup(x.clone(), i.clone(), v.clone()).to_vec(),
        [0.0, 3.0, 0.0, 0.0]
    );
    assert_eq!(x.at(&i).set(&v).to_vec(), [0.0, 3.0, 0.0, 0.0]);
}

#[jax::jit]
fn set_dup(x: Array<f32, 4>, i: Array<i32, 3>, v: Array<f32, 3>) -> Array<f32, 4> {
    x.at(i).set(v)
}

#[jax::jit]
fn take_axis1(x: Array<f32, 5, 3>, i: Array<i32, 2, 2>) -> Array<f32, 5, 2, 2> {
    jnp::take(x, i, 1)
}

#[jax::jit]
fn take_axis0_int(x: Array<i32, 5, 3>, i: Array<i32, 3>) -> Array<i32, 3, 3> {
    jnp::take(x, i, 0)
}

#[jax::jit]
fn take_along_axis1(x: Array<f32, 5, 3>, i: Array<i32, 5, 2>) -> Array<f32, 5, 2> {
    jnp::take_along_axis(x, i, 1)
}

#[jax::jit]
fn take_along_axis0(x: Array<f32, 5, 3>, i: Array<i32, 2, 3>) -> Array<f32, 2, 3> {
    jnp::take_along_axis(x, i, 0)
}

#[jax::jit]
fn take_along_axis_broadcast_indices(x: Array<f32, 5, 3>, i: Array<i32, 1, 2>) -> Array<f32, 5, 2> {
    jnp::take_along_axis(x, i, 1)
}

#[jax::jit]
fn take_along_axis_broadcast_array(x: Array<f32, 1, 3>, i: Array<i32, 4, 3>) -> Array<f32, 4, 3> {
    jnp::take_along_axis(x, i, 1)
}

#[test]
fn take_along_axis_broadcasts_as_jax() {
    let n = "take_along_axis_broadcast_indices";
    let (x, i): (Array<f32, 5, 3>, Array<i32, 1, 2>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        take_along_axis_broadcast_indices(x.clone(), i.clone()),
        jnp::take_along_axis(&x, &i, 1),
    );
    let n = "take_along_axis_broadcast_array";
    let (x, i): (Array<f32, 1, 3>, Array<i32, 4, 3>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        take_along_axis_broadcast_array(x.clone(), i.clone()),
        jnp::take_along_axis(&x, &i, 1),
    );
}

#[test]
fn take_matches_jax() {
    let n = "take_axis1";
    let (x, i): (Array<f32, 5, 3>, Array<i32, 2, 2>) = (arg(n, 0), arg(n, 1));
    both(n, take_axis1(x.clone(), i.clone()), jnp::take(&x, &i, 1));
    let n = "take_axis0_int";
    let (x, i): (Array<i32, 5, 3>, Array<i32, 3>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        take_axis0_int(x.clone(), i.clone()),
        jnp::take(&x, &i, 0),
    );
    let n = "take_along_axis1";
    let (x, i): (Array<f32, 5, 3>, Array<i32, 5, 2>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        take_along_axis1(x.clone(), i.clone()),
        jnp::take_along_axis(&x, &i, 1),
    );
    let n = "take_along_axis0";
    let (x, i): (Array<f32, 5, 3>, Array<i32, 2, 3>) = (arg(n, 0), arg(n, 1));
    both(
        n,
        take_along_axis0(x.clone(), i.clone()),
        jnp::take_along_axis(&x, &i, 0),
    );
}
