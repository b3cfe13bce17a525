//! One API: every sorting and cumulative function of the runtime is
//! accepted in `#[jax::jit]` with the eager signature and gives the eager
//! result (f32 and integer inputs, NaNs, ties and signed zeros included).

use jax::prelude::*;
use jax::DefaultInt;

fn floats<const R: usize, const C: usize>() -> Array<f32, R, C> {
    let special = [0.0f32, -0.0, 2.5, f32::NAN, -1.0, 2.5, f32::INFINITY, 0.5];
    Array::from_data(
        (0..R * C)
            .map(|n| special[(n * 5) % special.len()] + (n % 3) as f32)
            .collect(),
    )
}

fn finite<const R: usize, const C: usize>() -> Array<f32, R, C> {
    Array::from_data(
        (0..R * C)
            .map(|n| ((n * 7 % 11) as f32) * 0.25 - 1.0)
            .collect(),
    )
}

fn ints<const R: usize, const C: usize>() -> Array<i32, R, C> {
    Array::from_data((0..R * C).map(|n| ((n * 7 % 11) as i32) - 4).collect())
}

/// Equal, NaN where NaN.
#[track_caller]
fn same<A: jax::ArrayType>(jit: &A, eager: &A) {
    use jax::Element;
    assert_eq!(jit.data().len(), eager.data().len());
    for (i, (a, b)) in jit.data().iter().zip(eager.data()).enumerate() {
        let (a, b) = (a.to_f64(), b.to_f64());
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "element {i}: jit {a}, eager {b}"
        );
    }
}

#[jax::jit]
fn sort_f32(x: &Array<f32, 4, 6>) -> Array<f32, 4, 6> {
    jnp::sort(x, 1)
}

#[jax::jit]
fn sort_i32(x: &Array<i32, 4, 6>) -> Array<i32, 4, 6> {
    jnp::sort(x, 0)
}

#[jax::jit]
fn argsort_f32(x: &Array<f32, 4, 6>) -> Array<DefaultInt, 4, 6> {
    jnp::argsort(x, -1)
}

#[jax::jit]
fn argsort_i32(x: &Array<i32, 4, 6>) -> Array<DefaultInt, 4, 6> {
    jnp::argsort(x, 0)
}

#[jax::jit]
fn lax_sort(x: &Array<f32, 4, 6>) -> Array<f32, 4, 6> {
    lax::sort(x, 0)
}

#[jax::jit]
fn lax_sort_key_val(
    k: &Array<i32, 4, 6>,
    v: &Array<f32, 4, 6>,
) -> (Array<i32, 4, 6>, Array<f32, 4, 6>) {
    lax::sort_key_val(k, v, 1)
}

#[jax::jit]
fn lax_top_k(x: &Array<f32, 4, 6>) -> (Array<f32, 4, 3>, Array<i32, 4, 3>) {
    lax::top_k(x, 3)
}

#[jax::jit]
fn lax_top_k_i32(x: &Array<i32, 4, 6>) -> (Array<i32, 4, 2>, Array<i32, 4, 2>) {
    lax::top_k(x, 2)
}

#[test]
fn sorting_jit_equals_eager() {
    let (x, i) = (floats::<4, 6>(), ints::<4, 6>());
    same(&sort_f32(&x), &jnp::sort(&x, 1));
    same(&sort_i32(&i), &jnp::sort(&i, 0));
    same(&argsort_f32(&x), &jnp::argsort(&x, -1));
    same(&argsort_i32(&i), &jnp::argsort(&i, 0));
    same(&lax_sort(&x), &lax::sort(&x, 0));
    let (a, b) = lax_sort_key_val(&i, &x);
    let (c, d) = lax::sort_key_val(&i, &x, 1);
    same(&a, &c);
    same(&b, &d);
    let (a, b) = lax_top_k(&x);
    let (c, d): (Array<f32, 4, 3>, Array<i32, 4, 3>) = lax::top_k(&x, 3);
    same(&a, &c);
    same(&b, &d);
    let (a, b) = lax_top_k_i32(&i);
    let (c, d): (Array<i32, 4, 2>, Array<i32, 4, 2>) = lax::top_k(&i, 2);
    same(&a, &c);
    same(&b, &d);
}

#[jax::jit]
fn searchsorted_left(a: &Array<f32, 8>, v: &Array<f32, 4, 6>) -> Array<i32, 4, 6> {
    jnp::searchsorted(a, v, "left")
}

#[jax::jit]
fn searchsorted_right_i32(a: &Array<i32, 8>, v: &Array<i32, 4, 6>) -> Array<i32, 4, 6> {
    jnp::searchsorted(a, v, "right")
}

#[test]
fn searchsorted_jit_equals_eager() {
    let a = jnp::sort(
        Array::<f32, 8>::from([3.0, -1.0, 0.0, f32::NAN, 2.5, -0.0, 2.5, 7.0]),
        0,
    );
    let v = floats::<4, 6>();
    same(
        &searchsorted_left(&a, &v),
        &jnp::searchsorted(&a, &v, "left"),
    );
    let ai = jnp::sort(Array::<i32, 8>::from([3, -1, 0, 4, 2, 2, -5, 7]), 0);
    let vi = ints::<4, 6>();
    same(
        &searchsorted_right_i32(&ai, &vi),
        &jnp::searchsorted(&ai, &vi, "right"),
    );
}

#[jax::jit]
fn median_all(x: &Array<f32, 4, 6>) -> Array<f32> {
    jnp::median(x)
}

#[jax::jit]
fn median_rows(x: &Array<f32, 4, 6>) -> Array<f32, 4> {
    jnp::median_axis(x, 1, false)
}

#[jax::jit]
fn median_i32(x: &Array<i32, 4, 6>) -> Array<f32, 1, 6> {
    jnp::median(x, 0, true)
}

#[jax::jit]
fn quantile_all(x: &Array<f32, 4, 6>) -> Array<f32> {
    jnp::quantile(x, 0.37)
}

#[jax::jit]
fn quantile_cols(x: &Array<f32, 4, 6>) -> Array<f32, 6> {
    jnp::quantile_axis(x, 0.9, 0, false)
}

#[jax::jit]
fn percentile_all(x: &Array<i32, 4, 6>) -> Array<f32> {
    jnp::percentile(x, 62.5)
}

#[jax::jit]
fn percentile_rows(x: &Array<f32, 4, 6>) -> Array<f32, 4, 1> {
    jnp::percentile_axis(x, 10.0, -1, true)
}

#[test]
fn quantiles_jit_equal_eager() {
    let (x, f, i) = (floats::<4, 6>(), finite::<4, 6>(), ints::<4, 6>());
    same(&median_all(&f), &jnp::median(&f));
    same(&median_all(&x), &jnp::median(&x));
    same(
        &median_rows(&x),
        &jnp::median_axis::<_, Array<f32, 4>>(&x, 1, false),
    );
    same(
        &median_i32(&i),
        &jnp::median_axis::<_, Array<f32, 1, 6>>(&i, 0, true),
    );
    same(&quantile_all(&f), &jnp::quantile(&f, 0.37));
    same(
        &quantile_cols(&x),
        &jnp::quantile_axis::<_, Array<f32, 6>>(&x, 0.9, 0, false),
    );
    same(&percentile_all(&i), &jnp::percentile(&i, 62.5));
    same(
        &percentile_rows(&f),
        &jnp::percentile_axis::<_, Array<f32, 4, 1>>(&f, 10.0, -1, true),
    );
}

#[jax::jit]
fn cumsum_f32(x: &Array<f32, 4, 6>) -> Array<f32, 4, 6> {
    jnp::cumsum(x, 1)
}

#[jax::jit]
fn cumsum_i32(x: &Array<i32, 4, 6>) -> Array<i32, 4, 6> {
    jnp::cumsum(x, 0)
}

#[jax::jit]
fn cumprod_f32(x: &Array<f32, 4, 6>) -> Array<f32, 4, 6> {
    jnp::cumprod(x, 0)
}

#[jax::jit]
fn cumprod_i32(x: &Array<i32, 4, 6>) -> Array<i32, 4, 6> {
    jnp::cumprod(x, -1)
}

#[jax::jit]
fn cummax_f32(x: &Array<f32, 4, 6>) -> Array<f32, 4, 6> {
    jnp::cummax(x, 1)
}

#[jax::jit]
fn cummin_i32(x: &Array<i32, 4, 6>) -> Array<i32, 4, 6> {
    jnp::cummin(x, 0)
}

#[jax::jit]
fn cummin_f32(x: &Array<f32, 4, 6>) -> Array<f32, 4, 6> {
    jnp::cummin(x, -1)
}

/// Bool counts in the default int (i64 under x64).
#[jax::jit]
fn cumsum_bool(x: &Array<bool, 4, 6>) -> Array<jax::DefaultInt, 4, 6> {
    jnp::cumsum(x, 1)
}

#[jax::jit]
fn cumprod_bool(x: &Array<bool, 4, 6>) -> Array<jax::DefaultInt, 4, 6> {
    jnp::cumprod(x, 0)
}

#[jax::jit]
fn diff_f32(x: &Array<f32, 4, 6>) -> Array<f32, 4, 4> {
    jnp::diff(x, 2, 1)
}

#[jax::jit]
fn diff_i32(x: &Array<i32, 4, 6>) -> Array<i32, 3, 6> {
    jnp::diff(x, 1, 0)
}

#[test]
fn cumulative_jit_equals_eager() {
    let (x, i) = (floats::<4, 6>(), ints::<4, 6>());
    same(&cumsum_f32(&x), &jnp::cumsum(&x, 1));
    same(&cumsum_i32(&i), &jnp::cumsum(&i, 0));
    same(&cumprod_f32(&x), &jnp::cumprod(&x, 0));
    same(&cumprod_i32(&i), &jnp::cumprod(&i, -1));
    same(&cummax_f32(&x), &jnp::cummax(&x, 1));
    same(&cummin_i32(&i), &jnp::cummin(&i, 0));
    same(&cummin_f32(&x), &jnp::cummin(&x, -1));
    let b: Array<bool, 4, 6> = Array::from_fn(|k| k % 3 != 1);
    let counts = cumsum_bool(&b);
    same(&counts, &jnp::cumsum(&b, 1));
    assert_eq!(counts.to_vec()[..6], [1, 1, 2, 3, 3, 4]);
    same(&cumprod_bool(&b), &jnp::cumprod(&b, 0));
    same(&diff_f32(&x), &jnp::diff::<_, Array<f32, 4, 4>>(&x, 2, 1));
    same(&diff_i32(&i), &jnp::diff::<_, Array<i32, 3, 6>>(&i, 1, 0));
}
