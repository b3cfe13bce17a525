//! One API (tests/one_api.rs): `jnp::linalg::qr` and `qr_with` in
//! `#[jax::jit]` against the eager calls on the same inputs (f32 and f64;
//! both run the same faer kernel, so they agree bit for bit). `eig` and
//! `eigvals` return complex arrays and are checked with the other complex
//! results in `one_api_cx_jit.rs`.

use jax::jnp::linalg::QrMode;
use jax::prelude::*;

#[jax::jit]
fn qr_jit(a: Array<f32, 4, 3>) -> (Array<f32, 4, 3>, Array<f32, 3, 3>) {
    jnp::linalg::qr(&a)
}

#[jax::jit]
fn qr_with_complete_jit(a: Array<f64, 2, 3, 2>) -> (Array<f64, 2, 3, 3>, Array<f64, 2, 3, 2>) {
    jnp::linalg::qr_with(&a, QrMode::Complete)
}

#[jax::jit]
fn qr_with_r_jit(a: Array<f32, 3, 5>) -> Array<f32, 3, 5> {
    jnp::linalg::qr_with(&a, QrMode::R)
}

#[test]
fn qr_jit_vs_eager() {
    let a = Array::<f32, 4, 3>::from([
        [0.3, -1.2, 0.5],
        [2.0, 0.1, -0.7],
        [-0.4, 0.9, 1.1],
        [1.3, 0.6, 0.2],
    ]);
    let (q, r): (Array<f32, 4, 3>, Array<f32, 3, 3>) = jnp::linalg::qr(&a);
    let (qj, rj) = qr_jit(a);
    assert_eq!(qj, q);
    assert_eq!(rj, r);
}

#[test]
fn qr_with_jit_vs_eager() {
    let a: Array<f64, 2, 3, 2> = Array::from_vec(vec![
        0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 3.0, 0.5, -2.0, 1.0, 0.125, -0.5,
    ])
    .unwrap();
    let (q, r): (Array<f64, 2, 3, 3>, Array<f64, 2, 3, 2>) =
        jnp::linalg::qr_with(&a, QrMode::Complete);
    let (qj, rj) = qr_with_complete_jit(a);
    assert_eq!(qj, q);
    assert_eq!(rj, r);

    let w: Array<f32, 3, 5> =
        Array::from_vec((0..15).map(|i| ((i * 7) % 11) as f32 - 5.0).collect()).unwrap();
    let r: Array<f32, 3, 5> = jnp::linalg::qr_with(&w, QrMode::R);
    assert_eq!(qr_with_r_jit(w), r);
}

#[jax::jit]
fn scipy_qr_jit(a: Array<f32, 4, 2>) -> (Array<f32, 4, 4>, Array<f32, 4, 2>) {
    jax::scipy::linalg::qr(&a)
}

#[test]
fn scipy_qr_jit_vs_eager() {
    let a = Array::<f32, 4, 2>::from([[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25], [2.0, 1.0]]);
    let (q, r): (Array<f32, 4, 4>, Array<f32, 4, 2>) = jax::scipy::linalg::qr(&a);
    let (qj, rj) = scipy_qr_jit(a);
    assert_eq!(qj, q);
    assert_eq!(rj, r);
}
