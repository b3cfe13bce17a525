//! One API on complex matrices: `jnp::linalg::` `cholesky`, `solve`, `inv`,
//! `eigh`, `eigvalsh`, `svd`, `svdvals`, `norm` and `jax::scipy::linalg::`
//! `cholesky`, `cho_factor` / `cho_solve`, `solve_triangular_with` (with
//! `Trans::C`), jitted on complex64 and complex128 inputs, equal their
//! eager calls (the same `_c64` / `_c128` kernels; the eager calls are
//! checked against JAX in tests/linalg_complex.rs), and JAX's own values
//! from that file's fixtures for the jitted `cholesky` and `solve`.
//! Eigenvectors and singular vectors are compared by magnitude (their
//! phases are the kernels' choice, the same in both).

use crate::common;

use jax::prelude::*;
use jax::scipy::linalg::{SolveTriangularOptions, Trans};

fn hpd<const N: usize>() -> Array<Complex<f64>, N, N> {
    // B Bᴴ + N·I with B[i][j] = (i + 2j mod 5) / 4 + i (j - i) / 8.
    let b = |i: usize, j: usize| {
        Complex::new(((i + 2 * j) % 5) as f64 / 4.0, (j as f64 - i as f64) / 8.0)
    };
    Array::from_fn(|t| {
        let (i, j) = (t / N, t % N);
        let s: Complex<f64> = (0..N).map(|k| b(i, k) * b(j, k).conj()).sum();
        s + if i == j {
            Complex::new(N as f64, 0.0)
        } else {
            Complex::new(0.0, 0.0)
        }
    })
}

fn rhs<const R: usize, const K: usize>() -> Array<Complex<f64>, R, K> {
    Array::from_fn(|t| Complex::new(((t * 7) % 11) as f64 * 0.25 - 1.0, (t % 3) as f64 - 1.0))
}

fn c32<const R: usize, const K: usize>(a: &Array<Complex<f64>, R, K>) -> Array<Complex<f32>, R, K> {
    a.astype::<Complex<f32>>()
}

/// An element widened to complex128.
trait Wide: Copy {
    fn wide(self) -> Complex<f64>;
}
impl Wide for f32 {
    fn wide(self) -> Complex<f64> {
        Complex::new(self as f64, 0.0)
    }
}
impl Wide for f64 {
    fn wide(self) -> Complex<f64> {
        Complex::new(self, 0.0)
    }
}
impl Wide for Complex<f32> {
    fn wide(self) -> Complex<f64> {
        Complex::new(self.re as f64, self.im as f64)
    }
}
impl Wide for Complex<f64> {
    fn wide(self) -> Complex<f64> {
        self
    }
}

#[track_caller]
fn close<T: Wide>(got: &[T], want: &[T], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        let (g, w) = (g.wide(), w.wide());
        assert!((g - w).norm() <= tol * (1.0 + w.norm()), "{g} vs {w}");
    }
}

#[track_caller]
fn close_abs<T: Wide>(got: &[T], want: &[T], tol: f64) {
    let m = |v: &[T]| -> Vec<Complex<f64>> {
        v.iter()
            .map(|&x| Complex::new(x.wide().norm(), 0.0))
            .collect()
    };
    close(&m(got), &m(want), tol);
}

#[jax::jit]
fn cholesky_c64(a: Array<Complex<f32>, 3, 3>) -> Array<Complex<f32>, 3, 3> {
    jnp::linalg::cholesky(&a)
}

#[jax::jit]
fn cholesky_c128(a: Array<Complex<f64>, 4, 4>) -> Array<Complex<f64>, 4, 4> {
    jnp::linalg::cholesky(&a)
}

#[jax::jit]
fn solve_inv_c64(
    a: Array<Complex<f32>, 3, 3>,
    b: Array<Complex<f32>, 3, 2>,
) -> (Array<Complex<f32>, 3, 2>, Array<Complex<f32>, 3, 3>) {
    (jnp::linalg::solve(&a, &b), jnp::linalg::inv(&a))
}

#[jax::jit]
fn solve_inv_c128(
    a: Array<Complex<f64>, 4, 4>,
    b: Array<Complex<f64>, 4, 2>,
) -> (Array<Complex<f64>, 4, 2>, Array<Complex<f64>, 4, 4>) {
    (jnp::linalg::solve(&a, &b), jnp::linalg::inv(&a))
}

#[jax::jit]
fn eigh_c64(
    a: Array<Complex<f32>, 3, 3>,
) -> (Array<f32, 3>, Array<Complex<f32>, 3, 3>, Array<f32, 3>) {
    let (w, v) = jnp::linalg::eigh(&a);
    (w, v, jnp::linalg::eigvalsh(&a))
}

#[jax::jit]
fn eigh_c128(a: Array<Complex<f64>, 4, 4>) -> (Array<f64, 4>, Array<Complex<f64>, 4, 4>) {
    jnp::linalg::eigh(&a)
}

#[jax::jit]
fn svd_c64(
    a: Array<Complex<f32>, 3, 3>,
) -> (
    Array<Complex<f32>, 3, 3>,
    Array<f32, 3>,
    Array<Complex<f32>, 3, 3>,
    Array<f32, 3>,
    f32,
) {
    let (u, s, vh) = jnp::linalg::svd(&a);
    (u, s, vh, jnp::linalg::svdvals(&a), jnp::linalg::norm(&a))
}

#[jax::jit]
fn svd_c128(
    a: Array<Complex<f64>, 4, 4>,
) -> (
    Array<Complex<f64>, 4, 4>,
    Array<f64, 4>,
    Array<Complex<f64>, 4, 4>,
) {
    jnp::linalg::svd(&a)
}

#[jax::jit]
fn scipy_c128(
    a: Array<Complex<f64>, 4, 4>,
    b: Array<Complex<f64>, 4, 2>,
) -> (
    Array<Complex<f64>, 4, 4>,
    Array<Complex<f64>, 4, 2>,
    Array<Complex<f64>, 4, 2>,
) {
    let up = jax::scipy::linalg::cholesky(&a, false);
    let x = jax::scipy::linalg::cho_solve(jax::scipy::linalg::cho_factor(&a, true), &b);
    let y = jax::scipy::linalg::solve_triangular_with(
        &up,
        &b,
        SolveTriangularOptions {
            lower: false,
            trans: Trans::C,
            unit_diagonal: false,
        },
    );
    (up, x, y)
}

#[test]
fn cholesky_jit_equals_eager() {
    let a3 = c32(&hpd::<3>());
    close(
        cholesky_c64(a3.clone()).data(),
        jnp::linalg::cholesky(&a3).data(),
        1e-6,
    );
    let a4 = hpd::<4>();
    close(
        cholesky_c128(a4.clone()).data(),
        jnp::linalg::cholesky(&a4).data(),
        1e-14,
    );
}

#[test]
fn solve_and_inv_jit_equal_eager() {
    let (a3, b3) = (c32(&hpd::<3>()), c32(&rhs::<3, 2>()));
    let (x, i) = solve_inv_c64(a3.clone(), b3.clone());
    close(x.data(), jnp::linalg::solve(&a3, &b3).data(), 1e-6);
    close(i.data(), jnp::linalg::inv(&a3).data(), 1e-6);
    let (a4, b4) = (hpd::<4>(), rhs::<4, 2>());
    let (x, i) = solve_inv_c128(a4.clone(), b4.clone());
    close(x.data(), jnp::linalg::solve(&a4, &b4).data(), 1e-14);
    close(i.data(), jnp::linalg::inv(&a4).data(), 1e-14);
}

#[test]
fn eigh_and_svd_jit_equal_eager() {
    let a3 = c32(&hpd::<3>());
    let (w, v, w2) = eigh_c64(a3.clone());
    let (ew, ev): (Array<f32, 3>, _) = jnp::linalg::eigh(&a3);
    close(w.data(), ew.data(), 1e-6);
    close(w2.data(), ew.data(), 1e-6);
    close_abs(v.data(), ev.data(), 1e-5);
    let a4 = hpd::<4>();
    let (w, v) = eigh_c128(a4.clone());
    let (ew, ev): (Array<f64, 4>, _) = jnp::linalg::eigh(&a4);
    close(w.data(), ew.data(), 1e-14);
    close_abs(v.data(), ev.data(), 1e-12);

    let (u, s, vh, s2, n) = svd_c64(a3.clone());
    let (eu, es, evh): (
        Array<Complex<f32>, 3, 3>,
        Array<f32, 3>,
        Array<Complex<f32>, 3, 3>,
    ) = jnp::linalg::svd(&a3);
    close(s.data(), es.data(), 1e-6);
    close(s2.data(), es.data(), 1e-6);
    close_abs(u.data(), eu.data(), 1e-5);
    close_abs(vh.data(), evh.data(), 1e-5);
    close(&[n], jnp::linalg::norm(&a3).data(), 1e-6);
    let (u, s, vh) = svd_c128(a4.clone());
    let (eu, es, evh): (
        Array<Complex<f64>, 4, 4>,
        Array<f64, 4>,
        Array<Complex<f64>, 4, 4>,
    ) = jnp::linalg::svd(&a4);
    close(s.data(), es.data(), 1e-14);
    close_abs(u.data(), eu.data(), 1e-12);
    close_abs(vh.data(), evh.data(), 1e-12);
}

#[test]
fn scipy_jit_equals_eager() {
    let (a, b) = (hpd::<4>(), rhs::<4, 2>());
    let (up, x, y) = scipy_c128(a.clone(), b.clone());
    let eup = jax::scipy::linalg::cholesky(&a, false);
    close(up.data(), eup.data(), 1e-14);
    let ex = jax::scipy::linalg::cho_solve(jax::scipy::linalg::cho_factor(&a, true), &b);
    close(x.data(), ex.data(), 1e-14);
    let o = SolveTriangularOptions {
        lower: false,
        trans: Trans::C,
        unit_diagonal: false,
    };
    close(
        y.data(),
        jax::scipy::linalg::solve_triangular_with(&eup, &b, o).data(),
        1e-14,
    );
}

/// The jitted functions on JAX's own case (tests/fixtures/linalg_complex.json).
#[test]
fn jit_matches_jax() {
    let case = common::case("linalg_complex", "hpd3/c64");
    let parts = |v: &serde_json::Value| -> Vec<Complex<f32>> {
        let f = |k: &str| -> Vec<f64> {
            v[k].as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        f("re")
            .into_iter()
            .zip(f("im"))
            .map(|(r, i)| Complex::new(r as f32, i as f32))
            .collect()
    };
    let a = Array::<Complex<f32>, 3, 3>::from_data(parts(&case["a"]));
    let b = Array::<Complex<f32>, 3, 2>::from_data(parts(&case["out"]["b_mat"]));
    let tol = 1e-4;
    close(
        cholesky_c64(a.clone()).data(),
        &parts(&case["out"]["cholesky"]),
        tol,
    );
    let (x, i) = solve_inv_c64(a, b);
    close(x.data(), &parts(&case["out"]["solve_mat"]), tol);
    close(i.data(), &parts(&case["out"]["inv"]), tol);
}
