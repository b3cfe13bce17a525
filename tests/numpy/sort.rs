//! Sorting in jit and eagerly against JAX (tests/fixtures/sort.json, made
//! by tests/fixtures/gen/sort.py): `jnp::sort`, `argsort`, `lax::sort`,
//! `sort_key_val`, `top_k`, `searchsorted`, `median`, `quantile`,
//! `percentile`; their jvp/vjp; vmap of sort and top_k.

use crate::sort_common as fx;

use jax::prelude::*;
use jax::{ArrayType, DefaultInt, Element};

/// Values equal to JAX's, whatever the index dtype (argsort's is the
/// default int, which the x64 feature widens).
#[track_caller]
fn same_ints<A: ArrayType>(name: &str, got: &A) {
    let want = fx::output(name, None);
    let want: Vec<i64> = want["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let got: Vec<i64> = got.data().iter().map(|g| g.to_f64() as i64).collect();
    assert_eq!(got, want, "{name}");
}

#[jax::jit]
fn sort_special(x: &Array<f32, 12>) -> Array<f32, 12> {
    jnp::sort(x, 0)
}

#[jax::jit]
fn argsort_special(x: &Array<f32, 12>) -> Array<DefaultInt, 12> {
    jnp::argsort(x, 0)
}

#[jax::jit]
fn sort_ties_axis0(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::sort(x, 0)
}

#[jax::jit]
fn sort_ties_axis1(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::sort(x, -1)
}

#[jax::jit]
fn argsort_ties_axis0(x: &Array<f32, 3, 4>) -> Array<DefaultInt, 3, 4> {
    jnp::argsort(x, 0)
}

#[jax::jit]
fn argsort_ties_axis1(x: &Array<f32, 3, 4>) -> Array<DefaultInt, 3, 4> {
    jnp::argsort(x, 1)
}

#[jax::jit]
fn sort_int(x: &Array<i32, 2, 5>) -> Array<i32, 2, 5> {
    jnp::sort(x, 1)
}

#[jax::jit]
fn argsort_int(x: &Array<i32, 2, 5>) -> Array<DefaultInt, 2, 5> {
    jnp::argsort(x, 1)
}

#[jax::jit]
fn lax_sort(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    lax::sort(x, 0)
}

#[jax::jit]
fn sort_key_val(
    k: &Array<f32, 3, 4>,
    v: &Array<f32, 3, 4>,
) -> (Array<f32, 3, 4>, Array<f32, 3, 4>) {
    lax::sort_key_val(k, v, 1)
}

#[test]
fn sort_and_argsort_match_jax() {
    let s: Array<f32, 12> = fx::arg("sort_special", 0);
    fx::exact("sort_special", None, &sort_special(&s));
    fx::exact("sort_special", None, &jnp::sort(&s, 0));
    same_ints("argsort_special", &argsort_special(&s));
    same_ints("argsort_special", &jnp::argsort(&s, 0));
    let t: Array<f32, 3, 4> = fx::arg("sort_ties_axis0", 0);
    fx::exact("sort_ties_axis0", None, &sort_ties_axis0(&t));
    fx::exact("sort_ties_axis0", None, &jnp::sort(&t, 0));
    fx::exact("sort_ties_axis1", None, &sort_ties_axis1(&t));
    fx::exact("sort_ties_axis1", None, &jnp::sort(&t, -1));
    fx::exact("lax_sort", None, &lax_sort(&t));
    fx::exact("lax_sort", None, &lax::sort(&t, 0));
    same_ints("argsort_ties_axis0", &argsort_ties_axis0(&t));
    same_ints("argsort_ties_axis0", &jnp::argsort(&t, 0));
    same_ints("argsort_ties_axis1", &argsort_ties_axis1(&t));
    same_ints("argsort_ties_axis1", &jnp::argsort(&t, 1));
    let i: Array<i32, 2, 5> = fx::arg("sort_int", 0);
    fx::exact("sort_int", None, &sort_int(&i));
    fx::exact("sort_int", None, &jnp::sort(&i, 1));
    same_ints("argsort_int", &argsort_int(&i));
    same_ints("argsort_int", &jnp::argsort(&i, 1));
    // The index dtype: int32, int64 under x64.
    let name = if cfg!(feature = "x64") {
        "argsort_int_x64"
    } else {
        "argsort_int"
    };
    fx::exact(name, None, &argsort_int(&i));
    fx::exact(name, None, &jnp::argsort(&i, 1));
    let v: Array<f32, 3, 4> = fx::arg("sort_key_val", 1);
    let (ks, vs) = sort_key_val(&t, &v);
    fx::exact("sort_key_val", Some(0), &ks);
    fx::exact("sort_key_val", Some(1), &vs);
    let (ks, vs) = lax::sort_key_val(&t, &v, 1);
    fx::exact("sort_key_val", Some(0), &ks);
    fx::exact("sort_key_val", Some(1), &vs);
}

#[jax::jit]
fn top_k3(x: &Array<f32, 3, 4>) -> (Array<f32, 3, 3>, Array<i32, 3, 3>) {
    lax::top_k(x, 3)
}

#[jax::jit]
fn top_k_special(x: &Array<f32, 12>) -> (Array<f32, 12>, Array<i32, 12>) {
    lax::top_k(x, 12)
}

#[jax::jit]
fn top_k_int(x: &Array<i32, 2, 5>) -> (Array<i32, 2, 2>, Array<i32, 2, 2>) {
    lax::top_k(x, 2)
}

#[test]
fn top_k_matches_jax() {
    let t: Array<f32, 3, 4> = fx::arg("top_k", 0);
    let (v, i) = top_k3(&t);
    fx::exact("top_k", Some(0), &v);
    fx::exact("top_k", Some(1), &i);
    let (v, i): (Array<f32, 3, 3>, Array<i32, 3, 3>) = lax::top_k(&t, 3);
    fx::exact("top_k", Some(0), &v);
    fx::exact("top_k", Some(1), &i);
    let s: Array<f32, 12> = fx::arg("top_k_special", 0);
    let (v, i) = top_k_special(&s);
    fx::exact("top_k_special", Some(0), &v);
    fx::exact("top_k_special", Some(1), &i);
    let n: Array<i32, 2, 5> = fx::arg("top_k_int", 0);
    let (v, i) = top_k_int(&n);
    fx::exact("top_k_int", Some(0), &v);
    fx::exact("top_k_int", Some(1), &i);
    let (v, i): (Array<i32, 2, 2>, Array<i32, 2, 2>) = lax::top_k(&n, 2);
    fx::exact("top_k_int", Some(0), &v);
    fx::exact("top_k_int", Some(1), &i);
}

#[jax::jit]
fn searchsorted_left(a: &Array<f32, 6>, v: &Array<f32, 2, 4>) -> Array<i32, 2, 4> {
    jnp::searchsorted(a, v, "left")
}

#[jax::jit]
fn searchsorted_right(a: &Array<f32, 6>, v: &Array<f32, 2, 4>) -> Array<i32, 2, 4> {
    jnp::searchsorted(a, v, "right")
}

#[jax::jit]
fn searchsorted_int(a: &Array<i32, 4>, v: &Array<i32, 5>) -> Array<i32, 5> {
    jnp::searchsorted(a, v, "right")
}

#[test]
fn searchsorted_matches_jax() {
    let a: Array<f32, 6> = fx::arg("searchsorted_left", 0);
    let v: Array<f32, 2, 4> = fx::arg("searchsorted_left", 1);
    fx::exact("searchsorted_left", None, &searchsorted_left(&a, &v));
    fx::exact(
        "searchsorted_left",
        None,
        &jnp::searchsorted(&a, &v, "left"),
    );
    fx::exact("searchsorted_right", None, &searchsorted_right(&a, &v));
    fx::exact(
        "searchsorted_right",
        None,
        &jnp::searchsorted(&a, &v, "right"),
    );
    let a: Array<i32, 4> = fx::arg("searchsorted_int", 0);
    let v: Array<i32, 5> = fx::arg("searchsorted_int", 1);
    fx::exact("searchsorted_int", None, &searchsorted_int(&a, &v));
    fx::exact(
        "searchsorted_int",
        None,
        &jnp::searchsorted(&a, &v, "right"),
    );
}

#[jax::jit]
fn median(x: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::median(x)
}

#[jax::jit]
fn median_axis(x: &Array<f32, 3, 4>) -> Array<f32, 3> {
    jnp::median(x, 1, false)
}

#[jax::jit]
fn median_nan(x: &Array<f32, 12>) -> Array<f32> {
    jnp::median(x)
}

#[jax::jit]
fn quantile(x: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::quantile(x, 0.3)
}

#[jax::jit]
fn quantile_axis(x: &Array<f32, 3, 4>) -> Array<f32, 4> {
    jnp::quantile_axis(x, 0.75, 0, false)
}

#[jax::jit]
fn quantile_keepdims(x: &Array<f32, 3, 4>) -> Array<f32, 1, 4> {
    jnp::quantile(x, 0.75, 0, true)
}

#[jax::jit]
fn percentile(x: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::percentile(x, 30.0)
}

#[jax::jit]
fn percentile_axis(x: &Array<f32, 3, 4>) -> Array<f32, 3> {
    jnp::percentile_axis(x, 90.0, 1, false)
}

#[test]
fn quantiles_match_jax() {
    let t: Array<f32, 3, 4> = fx::arg("median", 0);
    fx::exact("median", None, &median(&t));
    fx::exact("median", None, &jnp::median(&t));
    fx::exact("median_axis", None, &median_axis(&t));
    fx::exact(
        "median_axis",
        None,
        &jnp::median_axis::<_, Array<f32, 3>>(&t, 1, false),
    );
    let s: Array<f32, 12> = fx::arg("median_nan", 0);
    fx::exact("median_nan", None, &median_nan(&s));
    fx::exact("median_nan", None, &jnp::median(&s));
    let x: Array<f32, 3, 4> = fx::arg("quantile", 0);
    fx::exact("quantile", None, &quantile(&x));
    fx::exact("quantile", None, &jnp::quantile(&x, 0.3));
    fx::exact("quantile_axis", None, &quantile_axis(&x));
    fx::exact(
        "quantile_axis",
        None,
        &jnp::quantile_axis::<_, Array<f32, 4>>(&x, 0.75, 0, false),
    );
    let kept = quantile_keepdims(&x);
    assert_eq!(kept.to_vec(), quantile_axis(&x).to_vec());
    fx::exact("percentile", None, &percentile(&x));
    fx::exact("percentile", None, &jnp::percentile(&x, 30.0));
    fx::exact("percentile_axis", None, &percentile_axis(&x));
    fx::exact(
        "percentile_axis",
        None,
        &jnp::percentile_axis::<_, Array<f32, 3>>(&x, 90.0, 1, false),
    );
}

// Derivatives: the tangent is permuted as the primal.

#[jax::jit]
fn sort_rows(x: &Array<f32, 3, 4>) -> Array<f32, 3, 4> {
    jnp::sort(x, 1)
}

#[jax::jit]
fn sort_weighted(x: &Array<f32, 3, 4>, w: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::sum(jnp::sort(x, 0) * w)
}

#[jax::jit]
fn top2_values(x: &Array<f32, 3, 4>) -> Array<f32, 3, 2> {
    let (v, _i) = lax::top_k(x, 2);
    v
}

#[jax::jit]
fn top2_weighted(x: &Array<f32, 3, 4>) -> Array<f32> {
    let (v, _i) = lax::top_k(x, 2);
    jnp::sum(v * jnp::array([1.0f32, 3.0]).astype::<f32>())
}

#[jax::jit]
fn quantile_03(x: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::quantile(x, 0.3)
}

#[jax::jit]
fn median_rows_sum(x: &Array<f32, 3, 4>) -> Array<f32> {
    jnp::sum(jnp::median(x, 1, false))
}

#[jax::jit]
fn sort_key_val_weighted(
    v: &Array<f32, 3, 4>,
    k: &Array<f32, 3, 4>,
    w: &Array<f32, 3, 4>,
) -> Array<f32> {
    let (_ks, vs) = lax::sort_key_val(k, v, 1);
    jnp::sum(vs * w)
}

#[jax::jit]
fn sort_vector(x: &Array<f32, 4>) -> Array<f32, 4> {
    jnp::sort(x, 0)
}

#[test]
fn derivatives_match_jax() {
    let x: Array<f32, 3, 4> = fx::arg("sort_jvp", 0);
    let t: Array<f32, 3, 4> = fx::arg("sort_jvp", 1);
    let (y, ty) = sort_rows::jvp((&x,), (&t,));
    fx::exact("sort_jvp", Some(0), &y);
    fx::exact("sort_jvp", Some(1), &ty);
    let w: Array<f32, 3, 4> = arr34(0.1, 0.0);
    let gx = sort_weighted::grad(&fx::arg::<Array<f32, 3, 4>>("sort_grad", 0), &w);
    fx::exact("sort_grad", None, &gx);
    let (y, ty) = top2_values::jvp((&x,), (&fx::arg::<Array<f32, 3, 4>>("top_k_jvp", 1),));
    fx::exact("top_k_jvp", Some(0), &y);
    fx::exact("top_k_jvp", Some(1), &ty);
    fx::exact("top_k_grad", None, &top2_weighted::grad(&x));
    let q: Array<f32, 3, 4> = fx::arg("quantile_grad", 0);
    fx::close("quantile_grad", None, &quantile_03::grad(&q), 1.0);
    fx::exact("median_grad", None, &median_rows_sum::grad(&x));
    let v: Array<f32, 3, 4> = fx::arg("sort_key_val_grad", 0);
    let g = sort_key_val_weighted::grad(&v, &fx::arg("sort_key_val_grad", 1), &arr34(0.1, 0.0));
    fx::exact("sort_key_val_grad", None, &g);
    let j: Array<f32, 4, 4> = sort_vector::jacfwd(&fx::arg("sort_jacfwd", 0));
    fx::exact("sort_jacfwd", None, &j);
}

/// The fixture's `arr(3, 4, scale, shift)`.
fn arr34(scale: f64, shift: f64) -> Array<f32, 3, 4> {
    Array::<f32, 3, 4>::from_data(
        (0..12)
            .map(|n| (((n * 7 % 11) as f64) * scale + shift) as f32)
            .collect(),
    )
}

#[jax::jit]
fn vmap_sort(x: &Array<f32, 3, 4>) -> Array<f32, 4, 3> {
    jax::vmap(|x| jnp::sort(x, 0), 1)(x)
}

#[jax::jit]
fn vmap_argsort(x: &Array<f32, 3, 4>) -> Array<DefaultInt, 3, 4> {
    jax::vmap(|x| jnp::argsort(x, 0))(x)
}

#[jax::jit]
fn vmap_sort_key_val_shared(
    k: &Array<f32, 3, 4>,
    v: &Array<f32, 4>,
) -> (Array<f32, 3, 4>, Array<f32, 3, 4>) {
    jax::vmap(|k, v| lax::sort_key_val(k, v, 0), (0, None))(k, v)
}

#[jax::jit]
fn vmap_top_k(x: &Array<f32, 3, 4>) -> (Array<f32, 4, 2>, Array<i32, 4, 2>) {
    jax::vmap(|x| lax::top_k(x, 2), 1)(x)
}

#[test]
fn vmap_matches_jax() {
    let x: Array<f32, 3, 4> = fx::arg("vmap_sort", 0);
    fx::exact("vmap_sort", None, &vmap_sort(&x));
    same_ints("vmap_argsort", &vmap_argsort(&x));
    let v: Array<f32, 4> = fx::arg("vmap_sort_key_val_shared", 1);
    let (a, b) = vmap_sort_key_val_shared(&x, &v);
    fx::exact("vmap_sort_key_val_shared", Some(0), &a);
    fx::exact("vmap_sort_key_val_shared", Some(1), &b);
    let (a, b) = vmap_top_k(&x);
    fx::exact("vmap_top_k", Some(0), &a);
    fx::exact("vmap_top_k", Some(1), &b);
}

#[test]
fn large_sorts_run_in_parallel_and_agree() {
    // Above the parallel threshold: lanes sorted on several threads.
    let x = Array::<f32, 64, 512>::from_data(
        (0..64 * 512)
            .map(|n| ((n * 7919 % 1009) as f32) - 500.0)
            .collect(),
    );
    let s = jnp::sort(&x, 1);
    for row in s.to_vec().chunks(512) {
        assert!(row.windows(2).all(|w| w[0] <= w[1]));
    }
    let i = jnp::argsort(&x, 0);
    let cols = x.to_vec();
    let idx = i.to_vec();
    for c in 0..512 {
        for r in 1..64 {
            let (a, b) = (idx[(r - 1) * 512 + c] as usize, idx[r * 512 + c] as usize);
            let (va, vb) = (cols[a * 512 + c], cols[b * 512 + c]);
            assert!(va < vb || (va == vb && a < b), "stable order");
        }
    }
}
