//! `jnp::linalg` and `jax::scipy::linalg` on complex matrices (eager),
//! against real JAX (tests/fixtures/gen/linalg_complex.py): complex64 and
//! complex128, well- and ill-conditioned, batched, Hermitian positive
//! definite for the Cholesky functions.
//!
//! Tolerances: relative to the largest expected magnitude, `50 · eps ·
//! cond(a)` (a backward-stable factorization's error, with the case's
//! condition number from the fixture). Factors unique only up to phases
//! (the eigenvectors of `eigh`, the singular vectors) are compared by their
//! magnitudes, and checked to reconstruct `a`; `eig`'s eigenvalues as
//! sorted sets (their order is LAPACK's in JAX and faer's here).

use crate::common;

use jax::prelude::*;
use jax::scipy::linalg as sla;
use serde_json::Value;

/// An element as `(re, im)` in f64, and back.
trait Parts: Copy {
    fn parts(self) -> (f64, f64);
    fn make(re: f64, im: f64) -> Self;
    const EPS: f64;
}

macro_rules! parts {
    ($t:ty, $eps:expr) => {
        impl Parts for $t {
            fn parts(self) -> (f64, f64) {
                (self as f64, 0.0)
            }
            fn make(re: f64, _: f64) -> Self {
                re as $t
            }
            const EPS: f64 = $eps;
        }
        impl Parts for Complex<$t> {
            fn parts(self) -> (f64, f64) {
                (self.re as f64, self.im as f64)
            }
            fn make(re: f64, im: f64) -> Self {
                Complex::new(re as $t, im as $t)
            }
            const EPS: f64 = $eps;
        }
    };
}
parts!(f32, f32::EPSILON as f64);
parts!(f64, f64::EPSILON);

fn number(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => panic!("bad number {s}"),
        },
        v => v.as_f64().unwrap(),
    }
}

/// A fixture array's elements as `(re, im)`.
fn parts_of(v: &Value) -> Vec<(f64, f64)> {
    let re = v["re"].as_array().unwrap();
    let im = v.get("im").and_then(Value::as_array);
    re.iter()
        .enumerate()
        .map(|(i, r)| (number(r), im.map_or(0.0, |im| number(&im[i]))))
        .collect()
}

/// A fixture array as an array of type `A`.
fn arr<A: ArrayType>(v: &Value) -> A
where
    A::Elem: Parts,
{
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(A::SHAPE, shape.as_slice(), "fixture shape");
    A::from_data(
        parts_of(v)
            .into_iter()
            .map(|(re, im)| A::Elem::make(re, im))
            .collect(),
    )
}

fn got_parts<A: ArrayType>(a: &A) -> Vec<(f64, f64)>
where
    A::Elem: Parts,
{
    a.data().iter().map(|&x| x.parts()).collect()
}

/// `max |got - want| / max(1, max |want|)`, NaN where exactly one is NaN.
fn rel_err(got: &[(f64, f64)], want: &[(f64, f64)]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths");
    let scale = want
        .iter()
        .map(|w| w.0.hypot(w.1))
        .filter(|x| x.is_finite())
        .fold(1.0f64, f64::max);
    got.iter()
        .zip(want)
        .map(|(g, w)| {
            let nan = |z: &(f64, f64)| z.0.is_nan() || z.1.is_nan();
            if nan(g) && nan(w) || g == w {
                0.0
            } else if nan(g) || nan(w) {
                f64::NAN
            } else {
                (g.0 - w.0).hypot(g.1 - w.1) / scale
            }
        })
        .fold(0.0, |m, e| {
            if e.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(e)
            }
        })
}

#[track_caller]
fn close<A: ArrayType>(what: &str, got: &A, want: &Value, tol: f64)
where
    A::Elem: Parts,
{
    let e = rel_err(&got_parts(got), &parts_of(want));
    assert!(e <= tol, "{what}: relative error {e:e} > {tol:e}");
}

/// Elementwise magnitudes: a comparison blind to each column's phase.
#[track_caller]
fn close_abs<A: ArrayType>(what: &str, got: &A, want: &Value, tol: f64)
where
    A::Elem: Parts,
{
    let m = |v: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
        v.into_iter().map(|(re, im)| (re.hypot(im), 0.0)).collect()
    };
    let e = rel_err(&m(got_parts(got)), &m(parts_of(want)));
    assert!(
        e <= tol,
        "{what} (magnitudes): relative error {e:e} > {tol:e}"
    );
}

fn tolerance<T: Parts>(case: &Value) -> f64 {
    50.0 * T::EPS * case["cond"].as_f64().unwrap().max(1.0)
}

/// `u · diag(s) · vh` of one square `n × n` matrix at offset `o`.
fn usv(
    u: &[(f64, f64)],
    s: &[(f64, f64)],
    vh: &[(f64, f64)],
    n: usize,
    k: usize,
) -> Vec<(f64, f64)> {
    let mul = |a: (f64, f64), b: (f64, f64)| (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
    let mut out = vec![(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            let mut acc = (0.0, 0.0);
            for l in 0..n {
                let t = mul(
                    mul(u[k * n * n + i * n + l], s[k * n + l]),
                    vh[k * n * n + l * n + j],
                );
                acc = (acc.0 + t.0, acc.1 + t.1);
            }
            out[i * n + j] = acc;
        }
    }
    out
}

/// The checks of every case: `$c` the complex element type, `$r` the real
/// one, `[$($l),*]` the batch axes and `$n` the matrix size.
macro_rules! general_case {
    ($test:ident, $id:literal, $c:ty, $r:ty, [$($l:literal),*], $n:literal) => {
        #[test]
        fn $test() {
            let case = common::case("linalg_complex", $id);
            let tol = tolerance::<$r>(&case);
            let out = &case["out"];
            let a: Array<$c $(, $l)*, $n, $n> = arr(&case["a"]);
            let bm: Array<$c $(, $l)*, $n, 2> = arr(&out["b_mat"]);

            let d: Array<$c $(, $l)*> = jnp::linalg::det(&a);
            close("det", &d, &out["det"], tol);
            let (sign, logdet): (Array<$c $(, $l)*>, Array<$r $(, $l)*>) =
                jnp::linalg::slogdet(&a);
            close("slogdet sign", &sign, &out["slogdet"][0], tol);
            close("slogdet logdet", &logdet, &out["slogdet"][1], tol);
            close("inv", &jnp::linalg::inv(&a), &out["inv"], tol);
            close("solve", &jnp::linalg::solve(&a, &bm), &out["solve_mat"], tol);
            close("matrix_power 3", &jnp::linalg::matrix_power(&a, 3), &out["matrix_power_3"], tol);
            let inv2 = jnp::linalg::matrix_power(&a, -2);
            close("matrix_power -2", &inv2, &out["matrix_power_-2"], tol * case["cond"].as_f64().unwrap());

            // QR: LAPACK's phases (r's diagonal real), so compared as values.
            let (q, r): (Array<$c $(, $l)*, $n, $n>, Array<$c $(, $l)*, $n, $n>) = jnp::linalg::qr(&a);
            close("qr q", &q, &out["qr"][0], tol);
            close("qr r", &r, &out["qr"][1], tol);

            let norm: Array<$r> = jnp::linalg::norm(&a);
            close("norm", &norm, &out["norm"], tol);

            let s: Array<$r $(, $l)*, $n> = jnp::linalg::svdvals(&a);
            close("svdvals", &s, &out["svdvals"], tol);
            let (u, s, vh): (Array<$c $(, $l)*, $n, $n>, Array<$r $(, $l)*, $n>, Array<$c $(, $l)*, $n, $n>) =
                jnp::linalg::svd(&a);
            close("svd s", &s, &out["svd"][1], tol);
            close_abs("svd u", &u, &out["svd"][0], tol);
            close_abs("svd vh", &vh, &out["svd"][2], tol);
            let (up, sp, vp, ap) = (got_parts(&u), got_parts(&s), got_parts(&vh), got_parts(&a));
            for k in 0..ap.len() / ($n * $n) {
                let back = usv(&up, &sp, &vp, $n, k);
                let e = rel_err(&back, &ap[k * $n * $n..(k + 1) * $n * $n]);
                assert!(e <= tol, "u s vh = a: {e:e}");
            }

            // eig: as a set, sorted as numpy's sort_complex.
            let w: Array<$c $(, $l)*, $n> = jnp::linalg::eigvals(&a);
            let mut w = got_parts(&w);
            for chunk in w.chunks_mut($n) {
                chunk.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
            }
            let e = rel_err(&w, &parts_of(&out["eigvals_sorted"]));
            assert!(e <= tol, "eigvals: {e:e}");

            let (w, v): (Array<$r $(, $l)*, $n>, _) = jnp::linalg::eigh(&a);
            close("eigh w", &w, &out["eigh"][0], tol);
            close_abs("eigh v", &v, &out["eigh"][1], tol);
            let w: Array<$r $(, $l)*, $n> = jnp::linalg::eigvalsh(&a);
            close("eigvalsh", &w, &out["eigvalsh"], tol);

            let (lu, piv): (_, Array<i32 $(, $l)*, $n>) = sla::lu_factor(&a);
            close("lu_factor lu", &lu, &out["lu_factor"][0], tol);
            let want_piv: Vec<i32> = parts_of(&out["lu_factor"][1]).iter().map(|p| p.0 as i32).collect();
            assert_eq!(piv.to_vec(), want_piv, "lu_factor pivots");
            let (p, l, u) = sla::lu(&a);
            close("lu p", &p, &out["scipy_lu"][0], 0.0);
            close("lu l", &l, &out["scipy_lu"][1], tol);
            close("lu u", &u, &out["scipy_lu"][2], tol);
            close("lu_solve", &sla::lu_solve((&lu, &piv), &bm), &out["lu_solve_mat"], tol);
        }
    };
}

/// The Cholesky family on a Hermitian positive-definite case.
macro_rules! hpd_case {
    ($test:ident, $id:literal, $c:ty, $r:ty, [$($l:literal),*], $n:literal) => {
        #[test]
        fn $test() {
            use jax::scipy::linalg::{SolveTriangularOptions, Trans};
            let case = common::case("linalg_complex", $id);
            let tol = tolerance::<$r>(&case);
            let out = &case["out"];
            let a: Array<$c $(, $l)*, $n, $n> = arr(&case["a"]);
            let bm: Array<$c $(, $l)*, $n, 2> = arr(&out["b_mat"]);
            let low = jnp::linalg::cholesky(&a);
            close("cholesky", &low, &out["cholesky"], tol);
            close("scipy cholesky upper", &sla::cholesky(&a, false), &out["scipy_cholesky_upper"], tol);
            for lower in [true, false] {
                let x = sla::cho_solve(sla::cho_factor(&a, lower), &bm);
                let key = if lower { "cho_solve_lower" } else { "cho_solve_upper" };
                close(key, &x, &out[key], tol);
            }
            // JAX's upper factor: conj(low)ᵀ.
            let up = sla::cholesky(&a, false);
            for (t, trans) in [Trans::N, Trans::T, Trans::C].into_iter().enumerate() {
                for (lower, m) in [(true, &low), (false, &up)] {
                    let o = SolveTriangularOptions { lower, trans, unit_diagonal: false };
                    let x = sla::solve_triangular_with(m, &bm, o);
                    let key = format!("solve_triangular_{}_{t}", if lower { "lower" } else { "upper" });
                    close(&key, &x, &out[key.as_str()], tol);
                }
            }
        }
    };
}

general_case!(well3_c64, "well3/c64", Complex<f32>, f32, [], 3);
general_case!(well3_c128, "well3/c128", Complex<f64>, f64, [], 3);
general_case!(hpd3_c64, "hpd3/c64", Complex<f32>, f32, [], 3);
general_case!(hpd3_c128, "hpd3/c128", Complex<f64>, f64, [], 3);
general_case!(hilbert4_c64, "hilbert4/c64", Complex<f32>, f32, [], 4);
general_case!(hilbert4_c128, "hilbert4/c128", Complex<f64>, f64, [], 4);
general_case!(batch2x3_c64, "batch2x3/c64", Complex<f32>, f32, [2], 3);
general_case!(batch2x3_c128, "batch2x3/c128", Complex<f64>, f64, [2], 3);
hpd_case!(hpd3_cholesky_c64, "hpd3/c64", Complex<f32>, f32, [], 3);
hpd_case!(hpd3_cholesky_c128, "hpd3/c128", Complex<f64>, f64, [], 3);
hpd_case!(
    hilbert4_cholesky_c64,
    "hilbert4/c64",
    Complex<f32>,
    f32,
    [],
    4
);
hpd_case!(
    hilbert4_cholesky_c128,
    "hilbert4/c128",
    Complex<f64>,
    f64,
    [],
    4
);
hpd_case!(
    batch2x3_cholesky_c64,
    "batch2x3/c64",
    Complex<f32>,
    f32,
    [2],
    3
);
hpd_case!(
    batch2x3_cholesky_c128,
    "batch2x3/c128",
    Complex<f64>,
    f64,
    [2],
    3
);

/// `solve` with a vector right-hand side.
#[test]
fn solve_vector() {
    for id in ["well3/c128", "hpd3/c128"] {
        let case = common::case("linalg_complex", id);
        let a: Array<Complex<f64>, 3, 3> = arr(&case["a"]);
        let b: Array<Complex<f64>, 3> = arr(&case["out"]["b_vec"]);
        close(
            id,
            &jnp::linalg::solve(&a, &b),
            &case["out"]["solve_vec"],
            tolerance::<f64>(&case),
        );
    }
    let case = common::case("linalg_complex", "well3/c64");
    let a: Array<Complex<f32>, 3, 3> = arr(&case["a"]);
    let b: Array<Complex<f32>, 3> = arr(&case["out"]["b_vec"]);
    close(
        "c64",
        &jnp::linalg::solve(&a, &b),
        &case["out"]["solve_vec"],
        tolerance::<f32>(&case),
    );
}

/// A singular complex matrix gives inf/nan and a zero determinant, never a
/// panic; a non-positive-definite one a Cholesky factor of NaN.
#[test]
fn singular_and_not_positive_definite() {
    let z = |re: f64, im: f64| Complex::new(re, im);
    let a =
        Array::<Complex<f64>, 2, 2>::from([[z(1.0, 1.0), z(2.0, 2.0)], [z(1.0, 1.0), z(2.0, 2.0)]]);
    let d: Array<Complex<f64>> = jnp::linalg::det(&a);
    assert_eq!(d.item(), z(0.0, 0.0));
    let (sign, logdet): (Array<Complex<f64>>, Array<f64>) = jnp::linalg::slogdet(&a);
    assert_eq!(
        (sign.item(), logdet.item()),
        (z(0.0, 0.0), f64::NEG_INFINITY)
    );
    assert!(jnp::linalg::inv(&a)
        .to_vec()
        .iter()
        .any(|v| !v.re.is_finite()));
    let not_pd = Array::<Complex<f64>, 2, 2>::from([
        [z(1.0, 0.0), z(0.0, 2.0)],
        [z(0.0, -2.0), z(1.0, 0.0)],
    ]);
    // NaN on and below the diagonal; JAX's `tril` mask zeroes the rest.
    let l = jnp::linalg::cholesky(&not_pd).to_vec();
    assert!([0, 2, 3].iter().all(|&i| l[i].re.is_nan()) && l[1] == z(0.0, 0.0));
}

/// Properties on random complex matrices (proptest): each factorization
/// reconstructs its input and its factors have their structure. Residuals
/// in plain f64 loops; tolerances 1e-10 (complex128) and 1e-4 (complex64)
/// for matrices made well conditioned (random plus `N·I`, or `B Bᴴ + N·I`).
mod properties {
    use super::*;
    use proptest::prelude::*;

    const N: usize = 4;
    type C = (f64, f64);

    fn mul(a: C, b: C) -> C {
        (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
    }

    /// `a` (m×k) times `b` (k×n).
    fn mm(a: &[C], b: &[C], m: usize, k: usize, n: usize) -> Vec<C> {
        let mut c = vec![(0.0, 0.0); m * n];
        for i in 0..m {
            for j in 0..n {
                for l in 0..k {
                    let t = mul(a[i * k + l], b[l * n + j]);
                    c[i * n + j].0 += t.0;
                    c[i * n + j].1 += t.1;
                }
            }
        }
        c
    }

    /// The conjugate transpose of an m×n matrix.
    fn adjoint(a: &[C], m: usize, n: usize) -> Vec<C> {
        (0..n * m)
            .map(|t| {
                let (i, j) = (t / m, t % m);
                (a[j * n + i].0, -a[j * n + i].1)
            })
            .collect()
    }

    fn eye(n: usize) -> Vec<C> {
        (0..n * n)
            .map(|t| {
                if t / n == t % n {
                    (1.0, 0.0)
                } else {
                    (0.0, 0.0)
                }
            })
            .collect()
    }

    fn matrix<T: Parts>(v: &[f64], hermitian: bool) -> (Vec<C>, Vec<T>) {
        let mut a: Vec<C> = (0..N * N).map(|i| (v[2 * i], v[2 * i + 1])).collect();
        if hermitian {
            a = mm(&a, &adjoint(&a, N, N), N, N, N);
        }
        for i in 0..N {
            a[i * N + i].0 += N as f64;
        }
        // Rounded to T, so the residuals measure the factorization alone.
        let t: Vec<T> = a.iter().map(|&(re, im)| T::make(re, im)).collect();
        (t.iter().map(|x| x.parts()).collect(), t)
    }

    fn check<T>(v: &[f64], tol: f64) -> Result<(), TestCaseError>
    where
        T: Parts + jax::jnp::linalg::LinalgElement,
        Array<T, N, N>: ArrayType<Elem = T>,
        Array<T::Real, N>: ArrayType<Elem = T::Real>,
        Array<T::Complex, N>: ArrayType<Elem = T::Complex>,
        Array<T::Complex, N, N>: ArrayType<Elem = T::Complex>,
        T::Real: Parts,
        T::Complex: Parts,
    {
        let err = |x: &[C], y: &[C]| rel_err(x, y);
        let (a, at) = matrix::<T>(v, false);
        let arr = Array::<T, N, N>::from_data(at);
        let parts = |x: &[T]| -> Vec<C> { x.iter().map(|v| v.parts()).collect() };

        // A · inv(A) = I
        let inv = parts(jnp::linalg::inv(&arr).data());
        prop_assert!(err(&mm(&a, &inv, N, N, N), &eye(N)) < tol, "A inv(A)");
        // Q unitary, Q R = A
        let (q, r): (Array<T, N, N>, Array<T, N, N>) = jnp::linalg::qr(&arr);
        let (q, r) = (parts(q.data()), parts(r.data()));
        prop_assert!(
            err(&mm(&adjoint(&q, N, N), &q, N, N, N), &eye(N)) < tol,
            "QᴴQ"
        );
        prop_assert!(err(&mm(&q, &r, N, N, N), &a) < tol, "QR");
        // U S Vᴴ = A
        let (u, s, vh): (Array<T, N, N>, Array<T::Real, N>, Array<T, N, N>) =
            jnp::linalg::svd(&arr);
        let s: Vec<C> = s.data().iter().map(|x| x.parts()).collect();
        prop_assert!(
            err(&usv(&parts(u.data()), &s, &parts(vh.data()), N, 0), &a) < tol,
            "USVᴴ"
        );
        // A v = λ v
        let (w, vv): (Array<T::Complex, N>, Array<T::Complex, N, N>) = jnp::linalg::eig(&arr);
        let w: Vec<C> = w.data().iter().map(|x| x.parts()).collect();
        let vv: Vec<C> = vv.data().iter().map(|x| x.parts()).collect();
        let av = mm(&a, &vv, N, N, N);
        let lv: Vec<C> = (0..N * N).map(|t| mul(vv[t], w[t % N])).collect();
        prop_assert!(err(&av, &lv) < tol, "A v = λ v");

        // Hermitian: L Lᴴ = A, A v = v diag(w) with real ascending w.
        let (h, ht) = matrix::<T>(v, true);
        let harr = Array::<T, N, N>::from_data(ht);
        let l = parts(jnp::linalg::cholesky(&harr).data());
        prop_assert!(err(&mm(&l, &adjoint(&l, N, N), N, N, N), &h) < tol, "L Lᴴ");
        let (w, vv): (Array<T::Real, N>, Array<T, N, N>) = jnp::linalg::eigh(&harr);
        let w: Vec<C> = w.data().iter().map(|x| x.parts()).collect();
        prop_assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "ascending");
        let vv = parts(vv.data());
        let hv = mm(&h, &vv, N, N, N);
        let vw: Vec<C> = (0..N * N).map(|t| mul(vv[t], w[t % N])).collect();
        prop_assert!(err(&hv, &vw) < tol, "H v = v w");
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn complex128(v in proptest::collection::vec(-1.0f64..1.0, 2 * N * N)) {
            check::<Complex<f64>>(&v, 1e-10)?;
        }

        #[test]
        fn complex64(v in proptest::collection::vec(-1.0f64..1.0, 2 * N * N)) {
            check::<Complex<f32>>(&v, 1e-4)?;
        }
    }
}

/// Reverse mode through the jitted complex `solve` and `inv` (their
/// `custom_jvp` rule, transposed), against `jax.grad` of the same real
/// losses with JAX's convention for complex arguments.
mod grads {
    use super::*;

    #[jax::jit]
    mod losses {
        use super::*;

        pub fn solve_loss(a: Array<Complex<f64>, 3, 3>, b: Array<Complex<f64>, 3, 2>) -> f64 {
            jnp::sum(jnp::abs(jnp::linalg::solve(&a, &b)))
        }
        pub fn inv_loss(a: Array<Complex<f64>, 3, 3>) -> f64 {
            jnp::sum(jnp::abs(jnp::linalg::inv(&a)))
        }
        pub fn solve_loss_c64(a: Array<Complex<f32>, 3, 3>, b: Array<Complex<f32>, 3, 2>) -> f32 {
            jnp::sum(jnp::abs(jnp::linalg::solve(&a, &b)))
        }
    }

    #[test]
    fn solve_and_inv_grads_match_jax() {
        for id in ["well3/c128", "hpd3/c128"] {
            let case = common::case("linalg_complex", id);
            let tol = tolerance::<f64>(&case);
            let a: Array<Complex<f64>, 3, 3> = arr(&case["a"]);
            let b: Array<Complex<f64>, 3, 2> = arr(&case["out"]["b_mat"]);
            close(
                "grad solve",
                &losses::solve_loss::grad(a.clone(), b),
                &case["out"]["grad_solve"],
                tol,
            );
            close(
                "grad inv",
                &losses::inv_loss::grad(a),
                &case["out"]["grad_inv"],
                tol,
            );
        }
        let case = common::case("linalg_complex", "well3/c64");
        let a: Array<Complex<f32>, 3, 3> = arr(&case["a"]);
        let b: Array<Complex<f32>, 3, 2> = arr(&case["out"]["b_mat"]);
        let g = losses::solve_loss_c64::grad(a, b);
        close(
            "grad solve c64",
            &g,
            &case["out"]["grad_solve"],
            tolerance::<f32>(&case),
        );
    }
}
