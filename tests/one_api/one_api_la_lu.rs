//! One API: `jnp::linalg::solve`, `inv`, `det`, `slogdet`, `matrix_power`
//! and `jax::scipy::linalg::lu`, `lu_factor`, `lu_solve`, jitted, equal
//! their eager calls on the same inputs (f32 and f64; one matrix and a
//! batch), within the last bits (jit and eager share the LU kernel; the
//! triangular solves and products may round differently).

use jax::prelude::*;

fn input<const B: usize, const N: usize>() -> Array<f32, B, N, N> {
    Array::from_fn(|i| {
        let (r, c) = ((i / N) % N, i % N);
        ((i * 7) % 11) as f32 * 0.25 - 1.0 + if r == c { 4.0 } else { 0.0 }
    })
}

#[track_caller]
fn close<A: ArrayType>(got: &A, want: &A) {
    for (g, w) in got.data().iter().zip(want.data()) {
        let (g, w) = (g.to_f64(), w.to_f64());
        assert!(
            (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "jit {g} vs eager {w}"
        );
    }
}

#[jax::jit]
fn solve_f32(
    a: Array<f32, 2, 3, 3>,
    b: Array<f32, 2, 3, 2>,
    v: Array<f32, 3>,
) -> (Array<f32, 2, 3, 2>, Array<f32, 3>) {
    let a0 = a.at(0).get();
    (jnp::linalg::solve(&a, &b), jnp::linalg::solve(&a0, &v))
}

#[jax::jit]
fn inv_f64(a: Array<f64, 2, 3, 3>) -> Array<f64, 2, 3, 3> {
    jnp::linalg::inv(&a)
}

#[jax::jit]
fn det_f32(a: Array<f32, 2, 4, 4>, b: Array<f32, 3, 3>) -> (Array<f32, 2>, Array<f32>) {
    (jnp::linalg::det(&a), jnp::linalg::det(&b))
}

#[jax::jit]
fn slogdet_f32(a: Array<f32, 2, 4, 4>) -> (Array<f32, 2>, Array<f32, 2>) {
    jnp::linalg::slogdet(&a)
}

#[jax::jit]
fn matrix_power_f32(a: Array<f32, 3, 3>) -> (Array<f32, 3, 3>, Array<f32, 3, 3>, Array<f32, 3, 3>) {
    (
        jnp::linalg::matrix_power(&a, 0),
        jnp::linalg::matrix_power(&a, 6),
        jnp::linalg::matrix_power(&a, -2),
    )
}

#[jax::jit]
fn lu_f32(
    a: Array<f32, 2, 3, 3>,
) -> (
    Array<f32, 2, 3, 3>,
    Array<f32, 2, 3, 3>,
    Array<f32, 2, 3, 3>,
) {
    jax::scipy::linalg::lu(&a)
}

#[jax::jit]
fn lu_factor_f64(a: Array<f64, 3, 4>) -> (Array<f64, 3, 4>, Array<i32, 3>) {
    jax::scipy::linalg::lu_factor(&a)
}

#[jax::jit]
fn lu_solve_f32(
    lu: Array<f32, 2, 3, 3>,
    piv: Array<i32, 2, 3>,
    b: Array<f32, 2, 3, 2>,
) -> Array<f32, 2, 3, 2> {
    jax::scipy::linalg::lu_solve((&lu, &piv), &b)
}

#[test]
fn jitted_linear_algebra_equals_eager() {
    let a = input::<2, 3>();
    let b = Array::<f32, 2, 3, 2>::from_fn(|i| i as f32 * 0.5 - 1.0);
    let v = Array::<f32, 3>::from([1.0, -2.0, 0.5]);
    let (x, xv) = solve_f32(a.clone(), b.clone(), v.clone());
    close(&x, &jnp::linalg::solve(&a, &b));
    let a0: Array<f32, 3, 3> = a.clone().at(0).get();
    close(&xv, &jnp::linalg::solve(&a0, &v));

    let a64 = a.astype::<f64>();
    close(&inv_f64(a64.clone()), &jnp::linalg::inv(&a64));

    let a4 = input::<2, 4>();
    let (d4, d3) = det_f32(a4.clone(), a0.clone());
    let e4: Array<f32, 2> = jnp::linalg::det(&a4);
    let e3: Array<f32> = jnp::linalg::det(&a0);
    close(&d4, &e4);
    close(&d3, &e3);
    let (s, l) = slogdet_f32(a4.clone());
    let (es, el): (Array<f32, 2>, Array<f32, 2>) = jnp::linalg::slogdet(&a4);
    close(&s, &es);
    close(&l, &el);

    let (p0, p6, pm2) = matrix_power_f32(a0.clone());
    close(&p0, &jnp::linalg::matrix_power(&a0, 0));
    close(&p6, &jnp::linalg::matrix_power(&a0, 6));
    close(&pm2, &jnp::linalg::matrix_power(&a0, -2));

    let (p, l, u) = lu_f32(a.clone());
    let (ep, el, eu) = jax::scipy::linalg::lu(&a);
    close(&p, &ep);
    close(&l, &el);
    close(&u, &eu);

    let wide = Array::<f64, 3, 4>::from_fn(|i| ((i * 5) % 7) as f64 - 3.0);
    let (lu, piv) = lu_factor_f64(wide.clone());
    let (elu, epiv): (Array<f64, 3, 4>, Array<i32, 3>) = jax::scipy::linalg::lu_factor(&wide);
    close(&lu, &elu);
    assert_eq!(piv, epiv);

    let (lu, piv): (Array<f32, 2, 3, 3>, Array<i32, 2, 3>) = jax::scipy::linalg::lu_factor(&a);
    close(
        &lu_solve_f32(lu.clone(), piv.clone(), b.clone()),
        &jax::scipy::linalg::lu_solve((&lu, &piv), &b),
    );
}
