//! Zero-size axes through every reduction and row program, jitted against
//! eager. JAX's errors for reductions without an identity (`max`, `min`,
//! `argmax` of nothing) are compile errors here, since shapes are static:
//! see the UI tests `max_zero_size_error` and `argmax_zero_size_error`.

use jax::prelude::*;

#[jax::jit]
fn softmax_rows(x: &Array<f32, 3, 0>) -> Array<f32, 3, 0> {
    jnp::softmax(x, 1)
}

#[jax::jit]
fn log_softmax_rows(x: &Array<f32, 3, 0>) -> Array<f32, 3, 0> {
    jnp::log_softmax(x, 1)
}

#[jax::jit]
fn softmax_no_rows(x: &Array<f32, 0, 4>) -> Array<f32, 0, 4> {
    jnp::softmax(x, 1)
}

#[jax::jit]
fn reductions(
    x: &Array<f32, 3, 0>,
) -> (
    Array<f32>,
    Array<f32>,
    Array<f32, 3>,
    Array<f32, 3>,
    Array<f32, 3>,
) {
    (
        x.sum(),
        x.prod(),
        jnp::sum(x, 1, false),
        jnp::prod(x, 1, false),
        jnp::logsumexp(x, 1, false),
    )
}

#[jax::jit]
fn mean_of_nothing(x: &Array<f32, 3, 0>) -> (Array<f32>, Array<f32, 3>) {
    (jnp::mean(x), jnp::mean(x, 1, false))
}

#[jax::jit]
fn logic(x: &Array<bool, 0>) -> (Array<bool>, Array<bool>) {
    (jnp::any(x), jnp::all(x))
}

#[jax::jit]
fn sum_of_no_rows(x: &Array<f32, 0, 4>) -> (Array<f32, 4>, Array<f32, 0>) {
    (jnp::sum(x, 0, false), jnp::max(x, 1, false))
}

#[test]
fn row_programs_on_empty_rows_match_eager() {
    let x = Array::<f32, 3, 0>::zeros();
    assert!(softmax_rows(&x).to_vec().is_empty());
    assert_eq!(softmax_rows(&x).to_vec(), jnp::softmax(&x, 1).to_vec());
    assert_eq!(
        log_softmax_rows(&x).to_vec(),
        jnp::log_softmax(&x, 1).to_vec()
    );
    let y = Array::<f32, 0, 4>::zeros();
    assert!(softmax_no_rows(&y).to_vec().is_empty());
}

#[test]
fn reductions_of_nothing_give_their_identity_as_eager() {
    let x = Array::<f32, 3, 0>::zeros();
    let (s, p, s1, p1, lse) = reductions(&x);
    assert_eq!(s.item(), x.sum().item());
    assert_eq!(p.item(), x.prod().item());
    let eager_s1: Array<f32, 3> = x.sum_axis(1, false);
    let eager_p1: Array<f32, 3> = x.prod_axis(1, false);
    let eager_lse: Array<f32, 3> = jnp::logsumexp_axis(&x, 1, false);
    assert_eq!(s1.to_vec(), eager_s1.to_vec());
    assert_eq!(p1.to_vec(), eager_p1.to_vec());
    assert_eq!(lse.to_vec(), eager_lse.to_vec());
    // The identities themselves: 0, 1, and log(0) = -inf.
    assert_eq!((s.item(), p.item()), (0.0, 1.0));
    assert_eq!(lse.to_vec(), [f32::NEG_INFINITY; 3]);
    // The mean of nothing is 0 / 0, NaN, as NumPy and JAX give.
    let (m, m1) = mean_of_nothing(&x);
    let eager_m1: Array<f32, 3> = x.mean_axis(1, false);
    assert!(m.item().is_nan() && x.mean().item().is_nan());
    assert!(m1
        .to_vec()
        .iter()
        .chain(&eager_m1.to_vec())
        .all(|v| v.is_nan()));
    let b = Array::<bool, 0>::zeros();
    let (any, all) = logic(&b);
    assert_eq!((any.item(), all.item()), (b.any().item(), b.all().item()));
    assert_eq!((any.item(), all.item()), (false, true));
}

#[test]
fn reductions_over_an_empty_kept_axis_are_empty() {
    let y = Array::<f32, 0, 4>::zeros();
    let (s0, m1) = sum_of_no_rows(&y);
    let eager_s0: Array<f32, 4> = y.sum_axis(0, false);
    let eager_m1: Array<f32, 0> = y.max_axis(1, false);
    assert_eq!(s0.to_vec(), eager_s0.to_vec());
    assert_eq!(s0.to_vec(), [0.0; 4]);
    assert_eq!(m1.to_vec(), eager_m1.to_vec());
}
