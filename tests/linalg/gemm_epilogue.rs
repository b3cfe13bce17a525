#![allow(clippy::modulo_one)] // the layer macros are also instantiated with N = 1
//! The matmul epilogue: a jitted matrix product read only by cheap
//! elementwise work of its shape (bias, `tanh`/`relu`, a residual add, a
//! scale) is computed in the product's output write (`__rt::gemm_epilogue`).
//! Each fused function is checked against the same function with the
//! product also returned (which keeps it a separate gemm and loop), within
//! 1e-6 relative, and against a plain f64 loop, at odd sizes (1, 7, 33, 129)
//! with transposed operands, in f32 and f64.

use jax::prelude::*;

/// Deterministic values in [-1, 1).
fn fill(seed: usize, i: usize) -> f64 {
    let h = (i as u64 + 1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((seed as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9));
    ((h >> 11) % 2000) as f64 / 1000.0 - 1.0
}

/// `a` equals `b` within `tol` relative to `b`'s largest magnitude.
fn close(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let scale = b.iter().fold(1e-30f64, |s, x| s.max(x.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * scale,
            "{what}: element {i}: {x} against {y} (scale {scale})"
        );
    }
}

/// Row-major `m×n` product of `a(i, p)` and `b(p, j)`, in f64.
fn product(
    m: usize,
    k: usize,
    n: usize,
    a: impl Fn(usize, usize) -> f64,
    b: impl Fn(usize, usize) -> f64,
) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a(i, p) * b(p, j)).sum();
        }
    }
    c
}

macro_rules! layers {
    ($name:ident, $t:ty, $m:tt, $k:tt, $n:tt) => {
        mod $name {
            use super::*;

            #[jax::jit]
            mod f {
                use jax::nn;
                use jax::prelude::*;

                pub fn tanh_layer(
                    x: &Array<$t, $m, $k>,
                    w: &Array<$t, $k, $n>,
                    b: &Array<$t, $n>,
                ) -> Array<$t, $m, $n> {
                    jnp::tanh(x.matmul(w) + b)
                }
                pub fn tanh_layer_unfused(
                    x: &Array<$t, $m, $k>,
                    w: &Array<$t, $k, $n>,
                    b: &Array<$t, $n>,
                ) -> (Array<$t, $m, $n>, Array<$t, $m, $n>) {
                    let d = x.matmul(w);
                    (jnp::tanh(&d + b), d)
                }
                pub fn relu_residual(
                    x: &Array<$t, $m, $k>,
                    w: &Array<$t, $k, $n>,
                    b: &Array<$t, $n>,
                    res: &Array<$t, $m, $n>,
                ) -> Array<$t, $m, $n> {
                    nn::relu(x.matmul(w) + b) + res
                }
                pub fn relu_residual_unfused(
                    x: &Array<$t, $m, $k>,
                    w: &Array<$t, $k, $n>,
                    b: &Array<$t, $n>,
                    res: &Array<$t, $m, $n>,
                ) -> (Array<$t, $m, $n>, Array<$t, $m, $n>) {
                    let d = x.matmul(w);
                    (nn::relu(&d + b) + res, d)
                }
                /// `xt.T @ w`, scaled, plus a column vector.
                pub fn transposed_lhs(
                    xt: &Array<$t, $k, $m>,
                    w: &Array<$t, $k, $n>,
                    c: &Array<$t, $m, 1>,
                ) -> Array<$t, $m, $n> {
                    xt.t().matmul(w) * 0.5 + c
                }
                pub fn transposed_lhs_unfused(
                    xt: &Array<$t, $k, $m>,
                    w: &Array<$t, $k, $n>,
                    c: &Array<$t, $m, 1>,
                ) -> (Array<$t, $m, $n>, Array<$t, $m, $n>) {
                    let d = xt.t().matmul(w);
                    (&d * 0.5 + c, d)
                }
                /// `x @ wt.T` plus a residual read transposed.
                pub fn transposed_rhs(
                    x: &Array<$t, $m, $k>,
                    wt: &Array<$t, $n, $k>,
                    rt: &Array<$t, $n, $m>,
                ) -> Array<$t, $m, $n> {
                    jnp::tanh(x.matmul(&wt.t())) - rt.t()
                }
                pub fn transposed_rhs_unfused(
                    x: &Array<$t, $m, $k>,
                    wt: &Array<$t, $n, $k>,
                    rt: &Array<$t, $n, $m>,
                ) -> (Array<$t, $m, $n>, Array<$t, $m, $n>) {
                    let d = x.matmul(&wt.t());
                    (jnp::tanh(&d) - rt.t(), d)
                }
                /// A reduction of the activation: no stored result to fuse into.
                pub fn reduced(x: &Array<$t, $m, $k>, w: &Array<$t, $k, $n>) -> Array<$t> {
                    jnp::sum(jnp::tanh(x.matmul(w)))
                }
            }

            const M: usize = $m;
            const K: usize = $k;
            const N: usize = $n;

            fn arr<A: ArrayType<Elem = $t>>(seed: usize) -> A {
                A::from_data((0..A::SIZE).map(|i| fill(seed, i) as $t).collect())
            }
            fn f64s(a: &[$t]) -> Vec<f64> {
                a.iter().map(|&x| x as f64).collect()
            }
            /// f32 sums over k differ from f64 ones by about k ulps.
            const LOOP_TOL: f64 = if std::mem::size_of::<$t>() == 4 {
                1e-5
            } else {
                1e-12
            };

            #[test]
            fn tanh_bias() {
                let (x, w, b) = (
                    arr::<Array<$t, M, K>>(1),
                    arr::<Array<$t, K, N>>(2),
                    arr::<Array<$t, N>>(3),
                );
                let got = f::tanh_layer(&x, &w, &b);
                let (want, _) = f::tanh_layer_unfused(&x, &w, &b);
                close("tanh(x@w+b)", &f64s(got.data()), &f64s(want.data()), 1e-6);
                let (xd, wd, bd) = (f64s(x.data()), f64s(w.data()), f64s(b.data()));
                let c = product(M, K, N, |i, p| xd[i * K + p], |p, j| wd[p * N + j]);
                let r: Vec<f64> = c
                    .iter()
                    .enumerate()
                    .map(|(e, v)| (v + bd[e % N]).tanh())
                    .collect();
                close("tanh(x@w+b) vs loop", &f64s(got.data()), &r, LOOP_TOL);
                // `tanh` is not an epilogue (`MAX_EPILOGUE_WORK`): it stays
                // in its own vectorized loop; the values above are the check.
            }

            #[test]
            fn relu_bias_residual() {
                let (x, w, b) = (
                    arr::<Array<$t, M, K>>(4),
                    arr::<Array<$t, K, N>>(5),
                    arr::<Array<$t, N>>(6),
                );
                let res = arr::<Array<$t, M, N>>(7);
                let got = f::relu_residual(&x, &w, &b, &res);
                let (want, _) = f::relu_residual_unfused(&x, &w, &b, &res);
                close(
                    "relu(x@w+b)+res",
                    &f64s(got.data()),
                    &f64s(want.data()),
                    1e-6,
                );
                let (xd, wd, bd, rd) = (
                    f64s(x.data()),
                    f64s(w.data()),
                    f64s(b.data()),
                    f64s(res.data()),
                );
                let c = product(M, K, N, |i, p| xd[i * K + p], |p, j| wd[p * N + j]);
                let r: Vec<f64> = c
                    .iter()
                    .enumerate()
                    .map(|(e, v)| (v + bd[e % N]).max(0.0) + rd[e])
                    .collect();
                close("relu(x@w+b)+res vs loop", &f64s(got.data()), &r, LOOP_TOL);
                assert!(f::relu_residual::lowered().contains("gemm_epilogue"));
            }

            #[test]
            fn transposed_operands() {
                let (xt, w, c) = (
                    arr::<Array<$t, K, M>>(8),
                    arr::<Array<$t, K, N>>(9),
                    arr::<Array<$t, M, 1>>(10),
                );
                let got = f::transposed_lhs(&xt, &w, &c);
                let (want, _) = f::transposed_lhs_unfused(&xt, &w, &c);
                close("x.T@w*0.5+c", &f64s(got.data()), &f64s(want.data()), 1e-6);
                let (xd, wd, cd) = (f64s(xt.data()), f64s(w.data()), f64s(c.data()));
                let p = product(M, K, N, |i, q| xd[q * M + i], |q, j| wd[q * N + j]);
                let r: Vec<f64> = p
                    .iter()
                    .enumerate()
                    .map(|(e, v)| v * 0.5 + cd[e / N])
                    .collect();
                close("x.T@w*0.5+c vs loop", &f64s(got.data()), &r, LOOP_TOL);
                assert!(f::transposed_lhs::lowered().contains("gemm_epilogue"));

                let (x, wt, rt) = (
                    arr::<Array<$t, M, K>>(11),
                    arr::<Array<$t, N, K>>(12),
                    arr::<Array<$t, N, M>>(13),
                );
                let got = f::transposed_rhs(&x, &wt, &rt);
                let (want, _) = f::transposed_rhs_unfused(&x, &wt, &rt);
                close(
                    "tanh(x@w.T)-r.T",
                    &f64s(got.data()),
                    &f64s(want.data()),
                    1e-6,
                );
                let (xd, wd, rd) = (f64s(x.data()), f64s(wt.data()), f64s(rt.data()));
                let p = product(M, K, N, |i, q| xd[i * K + q], |q, j| wd[j * K + q]);
                let r: Vec<f64> = p
                    .iter()
                    .enumerate()
                    .map(|(e, v)| v.tanh() - rd[(e % N) * M + e / N])
                    .collect();
                close("tanh(x@w.T)-r.T vs loop", &f64s(got.data()), &r, LOOP_TOL);
            }

            #[test]
            fn reduced_activations() {
                let (x, w) = (arr::<Array<$t, M, K>>(14), arr::<Array<$t, K, N>>(15));
                let xd = f64s(x.data());
                let wd = f64s(w.data());
                let c = product(M, K, N, |i, p| xd[i * K + p], |p, j| wd[p * N + j]);
                let want: f64 = c.iter().map(|v| v.tanh()).sum();
                let got = f::reduced(&x, &w).data()[0] as f64;
                assert!(
                    (got - want).abs() <= LOOP_TOL * (M * N) as f64,
                    "{got} against {want}"
                );
            }
        }
    };
}

layers!(f32_1_7_33, f32, 1, 7, 33);
layers!(f32_7_33_129, f32, 7, 33, 129);
layers!(f32_33_129_7, f32, 33, 129, 7);
layers!(f32_129_1_129, f32, 129, 1, 129);
layers!(f32_129_129_33, f32, 129, 129, 33);
layers!(f64_7_33_1, f64, 7, 33, 1);
layers!(f64_33_7_129, f64, 33, 7, 129);
layers!(f64_129_129_129, f64, 129, 129, 129);
