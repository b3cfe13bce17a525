//! One API: `jnp::tril`, `triu`, `trace`, `diag` and `diagonal`, jitted,
//! equal their eager calls on the same inputs (f32 and i32; offsets
//! positive, negative and out of range), and `diagonal` and `diag` of a
//! matrix.

use jax::prelude::*;

fn f32_input<const R: usize, const C: usize>() -> Array<f32, R, C> {
    Array::from_fn(|i| ((i * 7) % 11) as f32 * 0.25 - 1.0)
}

fn i32_input<const R: usize, const C: usize>() -> Array<i32, R, C> {
    Array::from_fn(|i| ((i * 7) % 11) as i32 - 4)
}

#[jax::jit]
fn tril_f32(x: Array<f32, 3, 4>) -> (Array<f32, 3, 4>, Array<f32, 3, 4>, Array<f32, 3, 4>) {
    (jnp::tril(&x, 0), jnp::tril(&x, -2), jnp::tril(&x, 9))
}

#[jax::jit]
fn triu_f32(x: Array<f32, 3, 4>) -> (Array<f32, 3, 4>, Array<f32, 3, 4>, Array<f32, 3, 4>) {
    (jnp::triu(&x, 0), jnp::triu(&x, 1), jnp::triu(&x, -9))
}

#[jax::jit]
fn tril_triu_i32(x: Array<i32, 4, 3>) -> (Array<i32, 4, 3>, Array<i32, 4, 3>) {
    (jnp::tril(&x, 1), jnp::triu(&x, -1))
}

#[jax::jit]
fn trace_f32(x: Array<f32, 3, 4>) -> (Array<f32>, Array<f32>, Array<f32>) {
    (
        jnp::trace(&x, 0, 0, 1),
        jnp::trace(&x, -1, 1, 0),
        jnp::trace(&x, 7, 0, 1),
    )
}

#[jax::jit]
fn trace_i32(x: Array<i32, 4, 3>) -> Array<DefaultInt> {
    jnp::trace(&x, -1, 0, 1)
}

#[jax::jit]
fn diag_f32(v: Array<f32, 3>) -> (Array<f32, 3, 3>, Array<f32, 5, 5>) {
    (jnp::diag(&v, 0), jnp::diag(&v, -2))
}

#[jax::jit]
fn diag_i32(v: Array<i32, 2>) -> Array<i32, 3, 3> {
    jnp::diag(&v, 1)
}

#[jax::jit]
fn diagonal_f32(x: Array<f32, 2, 3, 4>) -> (Array<f32, 2, 3>, Array<f32, 3, 1>) {
    (jnp::diagonal(&x, 0, 1, 2), jnp::diagonal(&x, 1, 2, 0))
}

#[jax::jit]
fn diagonal_i32(x: Array<i32, 4, 3>) -> (Array<i32, 3>, Array<i32, 2>) {
    (jnp::diagonal(&x, -1, 0, 1), jnp::diag(&x, 1))
}

#[test]
fn diagonals_jit_equal_eager() {
    let x: Array<f32, 2, 3, 4> = Array::from_fn(|i| ((i * 7) % 11) as f32 * 0.25 - 1.0);
    let (a, b) = diagonal_f32(x.clone());
    let ea: Array<f32, 2, 3> = jnp::diagonal(&x, 0, 1, 2);
    let eb: Array<f32, 3, 1> = jnp::diagonal(&x, 1, 2, 0);
    assert_eq!((a.to_vec(), b.to_vec()), (ea.to_vec(), eb.to_vec()));
    let xi = i32_input::<4, 3>();
    let (a, b) = diagonal_i32(xi.clone());
    let ea: Array<i32, 3> = jnp::diagonal(&xi, -1, 0, 1);
    let eb: Array<i32, 2> = jnp::diag(&xi, 1);
    assert_eq!((a.to_vec(), b.to_vec()), (ea.to_vec(), eb.to_vec()));
}

#[test]
fn triangles_jit_equal_eager() {
    let x = f32_input::<3, 4>();
    let (a, b, c) = tril_f32(x.clone());
    assert_eq!(a.to_vec(), jnp::tril(&x, 0).to_vec());
    assert_eq!(b.to_vec(), jnp::tril(&x, -2).to_vec());
    assert_eq!(c.to_vec(), jnp::tril(&x, 9).to_vec());
    let (a, b, c) = triu_f32(x.clone());
    assert_eq!(a.to_vec(), jnp::triu(&x, 0).to_vec());
    assert_eq!(b.to_vec(), jnp::triu(&x, 1).to_vec());
    assert_eq!(c.to_vec(), jnp::triu(&x, -9).to_vec());
    let xi = i32_input::<4, 3>();
    let (a, b) = tril_triu_i32(xi.clone());
    assert_eq!(a.to_vec(), jnp::tril(&xi, 1).to_vec());
    assert_eq!(b.to_vec(), jnp::triu(&xi, -1).to_vec());
}

#[test]
fn trace_and_diag_jit_equal_eager() {
    let x = f32_input::<3, 4>();
    let (a, b, c) = trace_f32(x.clone());
    let ea: Array<f32> = jnp::trace(&x, 0, 0, 1);
    let eb: Array<f32> = jnp::trace(&x, -1, 1, 0);
    let ec: Array<f32> = jnp::trace(&x, 7, 0, 1);
    assert_eq!(
        (a.item(), b.item(), c.item()),
        (ea.item(), eb.item(), ec.item())
    );
    let xi = i32_input::<4, 3>();
    let e: Array<DefaultInt> = jnp::trace(&xi, -1, 0, 1);
    assert_eq!(trace_i32(xi).item(), e.item());
    let v: Array<f32, 3> = Array::from([0.5, -1.25, 2.0]);
    let (a, b) = diag_f32(v.clone());
    let ea: Array<f32, 3, 3> = jnp::diag(&v, 0);
    let eb: Array<f32, 5, 5> = jnp::diag(&v, -2);
    assert_eq!((a.to_vec(), b.to_vec()), (ea.to_vec(), eb.to_vec()));
    let vi: Array<i32, 2> = Array::from([3, -4]);
    let e: Array<i32, 3, 3> = jnp::diag(&vi, 1);
    assert_eq!(diag_i32(vi).to_vec(), e.to_vec());
}
