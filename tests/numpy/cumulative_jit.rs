//! Cumulative operations (`cumsum`, `cumprod`, `cummax`, `cummin`) and
//! `jnp::diff` in jit and eagerly against JAX (tests/fixtures/sort.json,
//! made by tests/fixtures/gen/sort.py): values, dtypes, jvp/vjp (cumprod,
//! cummax and cummin by the jvp of JAX's associative scan, ties split as
//! JAX splits them), vmap.

use crate::sort_common as fx;

use jax::prelude::*;
use jax::DefaultInt;

#[jax::jit]
fn cumsum_axis0(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::cumsum(x, 0)
}

#[jax::jit]
fn cumsum_axis1(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    x.cumsum(1)
}

#[jax::jit]
fn cumsum_int(x: &Array<i32, 2, 5>) -> Array<i32, 2, 5> {
    jnp::cumsum(x, 1)
}

#[jax::jit]
fn cumsum_bool(x: &Array<i32, 2, 5>) -> Array<DefaultInt, 2, 5> {
    jnp::cumsum(x.gt(0), 1)
}

#[jax::jit]
fn cumprod(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::cumprod(x, 1)
}

#[jax::jit]
fn cumprod_int(x: &Array<i32, 2, 5>) -> Array<i32, 2, 5> {
    x.cumprod(0)
}

#[jax::jit]
fn cummax(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::cummax(x, 1)
}

#[jax::jit]
fn cummin(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::cummin(x, 0)
}

#[jax::jit]
fn cummax_nan(x: &Array<f32, 12>) -> Array<f32, 12> {
    jnp::cummax(x, 0)
}

#[test]
fn cumulative_values_match_jax() {
    let x: Array<f32, 3, 4> = fx::arg("cumsum_axis0", 0);
    fx::exact("cumsum_axis0", None, &cumsum_axis0(&x));
    fx::exact("cumsum_axis0", None, &jnp::cumsum(&x, 0));
    fx::exact("cumsum_axis1", None, &cumsum_axis1(&x));
    fx::exact("cumsum_axis1", None, &x.cumsum(1));
    let i: Array<i32, 2, 5> = fx::arg("cumsum_int", 0);
    fx::exact("cumsum_int", None, &cumsum_int(&i));
    fx::exact("cumsum_int", None, &jnp::cumsum(&i, 1));
    // bool counts in the default int: int32, int64 under x64.
    let name = if cfg!(feature = "x64") {
        "cumsum_bool_x64"
    } else {
        "cumsum_bool"
    };
    fx::exact(name, None, &cumsum_bool(&i));
    fx::exact(name, None, &jnp::cumsum(i.gt(0), 1));
    let p: Array<f32, 3, 4> = fx::arg("cumprod", 0);
    fx::exact("cumprod", None, &cumprod(&p));
    fx::exact("cumprod", None, &jnp::cumprod(&p, 1));
    fx::exact("cumprod_int", None, &cumprod_int(&i));
    fx::exact("cumprod_int", None, &i.cumprod(0));
    let t: Array<f32, 3, 4> = fx::arg("cummax", 0);
    fx::exact("cummax", None, &cummax(&t));
    fx::exact("cummax", None, &jnp::cummax(&t, 1));
    fx::exact("cummin", None, &cummin(&t));
    fx::exact("cummin", None, &jnp::cummin(&t, 0));
    let s: Array<f32, 12> = fx::arg("cummax_nan", 0);
    fx::exact("cummax_nan", None, &cummax_nan(&s));
    fx::exact("cummax_nan", None, &jnp::cummax(&s, 0));
}

#[jax::jit]
fn diff(x: &Array<f32, 3, 4>) -> Array<f32, 3, 3> {
    jnp::diff(x, 1, 1)
}

#[jax::jit]
fn diff_n2_axis0(x: &Array<f32, 4, 3>) -> Array<f32, 2, 3> {
    jnp::diff(x, 2, 0)
}

#[jax::jit]
fn diff_int(x: &Array<i32, 2, 5>) -> Array<i32, 2, 4> {
    jnp::diff(x, 1, -1)
}

#[test]
fn diff_matches_jax() {
    let x: Array<f32, 3, 4> = fx::arg("diff", 0);
    fx::exact("diff", None, &diff(&x));
    fx::exact("diff", None, &jnp::diff::<_, Array<f32, 3, 3>>(&x, 1, 1));
    let y: Array<f32, 4, 3> = fx::arg("diff_n2_axis0", 0);
    fx::exact("diff_n2_axis0", None, &diff_n2_axis0(&y));
    fx::exact(
        "diff_n2_axis0",
        None,
        &jnp::diff::<_, Array<f32, 2, 3>>(&y, 2, 0),
    );
    let i: Array<i32, 2, 5> = fx::arg("diff_int", 0);
    fx::exact("diff_int", None, &diff_int(&i));
    fx::exact(
        "diff_int",
        None,
        &jnp::diff::<_, Array<i32, 2, 4>>(&i, 1, -1),
    );
}

/// The fixture's `arr(*shape, scale=0.1, shift)` (computed in f64, as NumPy
/// does, then rounded to f32).
fn arr<const R: usize, const C: usize>(shift: f64) -> Array<f32, R, C> {
    Array::<f32, R, C>::from_data(
        (0..R * C)
            .map(|n| (((n * 7 % 11) as f64) * 0.1 + shift) as f32)
            .collect(),
    )
}

#[jax::jit]
fn cumsum_rows(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::cumsum(x, 1)
}

#[jax::jit]
fn cumsum_weighted(x: &Array<f32, 3, 4>, w: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::sum(jnp::cumsum(x, 0) * w)
}

#[jax::jit]
fn cumprod_rows(x: &Array<f32, 3, 5>) -> Array<f32, 3, 5> {
    jnp::cumprod(x, 1)
}

#[jax::jit]
fn cumprod_weighted(x: &Array<f32, 3, 5>, w: &Array<f32, 3, 5>) -> Array<f32> {
    jnp::sum(jnp::cumprod(x, 1) * w)
}

#[jax::jit]
fn cummax_weighted(x: &Array<f32, 3, 4>, w: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::sum(jnp::cummax(x, 1) * w)
}

#[jax::jit]
fn cummin_weighted(x: &Array<f32, 3, 4>, w: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::sum(jnp::cummin(x, 0) * w)
}

#[jax::jit]
fn cummax_rows(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::cummax(x, 1)
}

#[jax::jit]
fn diff_weighted(x: &Array<f32, 3, 4>, w: &Array<f32, 3, 3>) -> Array<f32> {
    jnp::sum(jnp::diff(x, 1, 1) * w)
}

#[test]
fn derivatives_match_jax() {
    let x: Array<f32, 3, 4> = fx::arg("cumsum_jvp", 0);
    let t: Array<f32, 3, 4> = fx::arg("cumsum_jvp", 1);
    let (y, ty) = cumsum_rows::jvp((&x,), (&t,));
    fx::exact("cumsum_jvp", Some(0), &y);
    fx::exact("cumsum_jvp", Some(1), &ty);
    let g = cumsum_weighted::grad(&fx::arg("cumsum_grad", 0), &arr::<3, 4>(0.0));
    fx::exact("cumsum_grad", None, &g);

    let x: Array<f32, 3, 5> = fx::arg("cumprod_jvp", 0);
    let t: Array<f32, 3, 5> = fx::arg("cumprod_jvp", 1);
    let (y, ty) = cumprod_rows::jvp((&x,), (&t,));
    // The primal: our running product against JAX's associative scan's.
    fx::close("cumprod_jvp", Some(0), &y, 4.0);
    fx::exact("cumprod_jvp", Some(1), &ty);
    let g = cumprod_weighted::grad(&fx::arg("cumprod_grad", 0), &arr::<3, 5>(0.0));
    fx::exact("cumprod_grad", None, &g);

    let ties: Array<f32, 3, 4> = fx::arg("cummax_grad", 0);
    let g = cummax_weighted::grad(&ties, &arr::<3, 4>(1.0));
    fx::exact("cummax_grad", None, &g);
    let g = cummin_weighted::grad(&ties, &arr::<3, 4>(1.0));
    fx::exact("cummin_grad", None, &g);
    let (y, ty) = cummax_rows::jvp((&ties,), (&fx::arg::<Array<f32, 3, 4>>("cummax_jvp", 1),));
    fx::exact("cummax_jvp", Some(0), &y);
    fx::exact("cummax_jvp", Some(1), &ty);

    let g = diff_weighted::grad(&fx::arg("diff_grad", 0), &arr::<3, 3>(0.0));
    fx::exact("diff_grad", None, &g);
}

#[jax::jit]
fn vmap_cumsum(x: &Array<f32, 3, 4>) -> Array<f32, 4, 3> {
    jax::vmap(|x| jnp::cumsum(x, 0), 1)(x)
}

#[jax::jit]
fn vmap_cumsum_2d(x: &Array<f32, 2, 3, 4>) -> Array<f32, 2, 3, 4> {
    jax::vmap(|x| jnp::cumsum(x, 1))(x)
}

#[jax::jit]
fn vmap_cummax(x: &Array<f32, 3, 4>) -> Array<f32, 4, 3> {
    jax::vmap(|x| jnp::cummax(x, 0), 1)(x)
}

#[test]
fn vmap_matches_jax() {
    let x: Array<f32, 3, 4> = fx::arg("vmap_cumsum", 0);
    fx::exact("vmap_cumsum", None, &vmap_cumsum(&x));
    let y: Array<f32, 2, 3, 4> = fx::arg("vmap_cumsum_2d", 0);
    fx::exact("vmap_cumsum_2d", None, &vmap_cumsum_2d(&y));
    let t: Array<f32, 3, 4> = fx::arg("vmap_cummax", 0);
    fx::exact("vmap_cummax", None, &vmap_cummax(&t));
}
