//! One API: `jnp::linalg::cholesky` and `jax::scipy::linalg`'s
//! `cholesky`, `cho_factor`, `cho_solve`, `solve_triangular` and
//! `solve_triangular_with`, jitted, equal their eager calls on the same
//! inputs (both run the same faer kernels), in f32 and f64, batched, and
//! on a matrix that is not positive definite.

use jax::prelude::*;
use jax::scipy::linalg::{SolveTriangularOptions, Trans};

fn spd<const B: usize, const N: usize>() -> Array<f32, B, N, N> {
    Array::from_fn(|i| {
        let (r, c) = ((i / N) % N, i % N);
        let base = ((r + c + i / (N * N)) % 5) as f32 * 0.1;
        if r == c {
            N as f32 + base
        } else {
            base
        }
    })
}

fn rhs<const R: usize, const C: usize>() -> Array<f32, R, C> {
    Array::from_fn(|i| ((i * 7) % 11) as f32 * 0.25 - 1.0)
}

#[jax::jit]
fn cholesky_f32(a: Array<f32, 2, 3, 3>) -> Array<f32, 2, 3, 3> {
    jnp::linalg::cholesky(&a)
}

#[jax::jit]
fn cholesky_f64(a: Array<f64, 4, 4>) -> Array<f64, 4, 4> {
    jnp::linalg::cholesky(&a)
}

#[jax::jit]
fn scipy_cholesky(a: Array<f32, 3, 3>) -> (Array<f32, 3, 3>, Array<f32, 3, 3>) {
    (
        jax::scipy::linalg::cholesky(&a, false),
        jax::scipy::linalg::cholesky(&a, true),
    )
}

#[jax::jit]
fn cho_factor_solve(
    a: Array<f32, 3, 3>,
    b: Array<f32, 3, 2>,
) -> (Array<f32, 3, 3>, Array<f32, 3, 2>) {
    let (c, lower) = jax::scipy::linalg::cho_factor(&a, false);
    (c.clone(), jax::scipy::linalg::cho_solve((c, lower), &b))
}

#[jax::jit]
fn solve_triangular(
    a: Array<f32, 3, 3>,
    b: Array<f32, 3, 2>,
    v: Array<f32, 3>,
) -> (Array<f32, 3, 2>, Array<f32, 3>) {
    (
        jax::scipy::linalg::solve_triangular(&a, &b, true),
        jax::scipy::linalg::solve_triangular(&a, &v, false),
    )
}

#[jax::jit]
fn solve_triangular_with(
    a: Array<f32, 3, 3>,
    b: Array<f32, 3, 2>,
) -> (Array<f32, 3, 2>, Array<f32, 3, 2>) {
    (
        jax::scipy::linalg::solve_triangular_with(
            &a,
            &b,
            SolveTriangularOptions {
                lower: true,
                trans: Trans::T,
                unit_diagonal: false,
            },
        ),
        jax::scipy::linalg::solve_triangular_with(
            &a,
            &b,
            SolveTriangularOptions {
                unit_diagonal: true,
                ..Default::default()
            },
        ),
    )
}

#[test]
fn jitted_cholesky_equals_eager() {
    let a = spd::<2, 3>();
    assert_eq!(
        cholesky_f32(a.clone()).to_vec(),
        jnp::linalg::cholesky(&a).to_vec()
    );
    let a64: Array<f64, 4, 4> = spd::<1, 4>().astype::<f64>().reshape();
    assert_eq!(
        cholesky_f64(a64.clone()).to_vec(),
        jnp::linalg::cholesky(&a64).to_vec()
    );
    // Not positive definite: NaN in both, at the same places.
    let bad = Array::<f32, 2, 3, 3>::from_fn(|i| if i % 4 == 0 { 1.0 } else { 2.0 });
    let (j, e) = (
        cholesky_f32(bad.clone()).to_vec(),
        jnp::linalg::cholesky(&bad).to_vec(),
    );
    assert!(j.iter().any(|v| v.is_nan()));
    assert_eq!(format!("{j:?}"), format!("{e:?}"));
}

#[test]
fn jitted_scipy_cholesky_and_cho_solve_equal_eager() {
    let a: Array<f32, 3, 3> = spd::<1, 3>().reshape();
    let (u, l) = scipy_cholesky(a.clone());
    assert_eq!(u.to_vec(), jax::scipy::linalg::cholesky(&a, false).to_vec());
    assert_eq!(l.to_vec(), jax::scipy::linalg::cholesky(&a, true).to_vec());
    let b = rhs::<3, 2>();
    let (c, x) = cho_factor_solve(a.clone(), b.clone());
    let (ce, lower) = jax::scipy::linalg::cho_factor(&a, false);
    assert_eq!(c.to_vec(), ce.to_vec());
    assert_eq!(
        x.to_vec(),
        jax::scipy::linalg::cho_solve((&ce, lower), &b).to_vec()
    );
}

#[test]
fn jitted_solve_triangular_equals_eager() {
    let a: Array<f32, 3, 3> = spd::<1, 3>().reshape();
    let (b, v) = (rhs::<3, 2>(), Array::<f32, 3>::from([0.5, -1.0, 2.0]));
    let (x, y) = solve_triangular(a.clone(), b.clone(), v.clone());
    assert_eq!(
        x.to_vec(),
        jax::scipy::linalg::solve_triangular(&a, &b, true).to_vec()
    );
    assert_eq!(
        y.to_vec(),
        jax::scipy::linalg::solve_triangular(&a, &v, false).to_vec()
    );
    let (t, u) = solve_triangular_with(a.clone(), b.clone());
    let opts = SolveTriangularOptions {
        lower: true,
        trans: Trans::T,
        unit_diagonal: false,
    };
    assert_eq!(
        t.to_vec(),
        jax::scipy::linalg::solve_triangular_with(&a, &b, opts).to_vec()
    );
    let opts = SolveTriangularOptions {
        unit_diagonal: true,
        ..Default::default()
    };
    assert_eq!(
        u.to_vec(),
        jax::scipy::linalg::solve_triangular_with(&a, &b, opts).to_vec()
    );
}
