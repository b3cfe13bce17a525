//! The linear-algebra rows of `workloads.rs` (`linalg_*`, and `*_eager`
//! for the eager calls): each `jnp::linalg` function of the
//! linear-algebra table in a `#[jax::jit]` function, one compiled copy per
//! size, timed beside its eager call on the inputs `jax_workloads.py` uses.

use std::hint::black_box;

use jax::prelude::*;

use super::timing::{report, Timing};
use super::*;

#[jax::jit]
fn linalg_cholesky<const N: usize>(a: &Array<f32, N, N>) -> Array<f32, N, N> {
    jnp::linalg::cholesky(a)
}

#[jax::jit]
fn linalg_cholesky_batch<const B: usize, const N: usize>(
    a: &Array<f32, B, N, N>,
) -> Array<f32, B, N, N> {
    jnp::linalg::cholesky(a)
}

#[jax::jit]
fn linalg_solve<const N: usize>(a: &Array<f32, N, N>, b: &Array<f32, N>) -> Array<f32, N> {
    jnp::linalg::solve(a, b)
}

#[jax::jit]
fn linalg_inv<const N: usize>(a: &Array<f32, N, N>) -> Array<f32, N, N> {
    jnp::linalg::inv(a)
}

// eigh and svd compile for literal sizes only ("symbolic dimension N is
// not supported yet"), so one function per size.
#[jax::jit]
fn linalg_eigh_256(a: &Array<f32, 256, 256>) -> (Array<f32, 256>, Array<f32, 256, 256>) {
    jnp::linalg::eigh(a)
}

#[jax::jit]
fn linalg_eigh_512(a: &Array<f32, 512, 512>) -> (Array<f32, 512>, Array<f32, 512, 512>) {
    jnp::linalg::eigh(a)
}

#[jax::jit]
#[allow(clippy::type_complexity)]
fn linalg_svd_256(
    a: &Array<f32, 256, 256>,
) -> (Array<f32, 256, 256>, Array<f32, 256>, Array<f32, 256, 256>) {
    jnp::linalg::svd(a)
}

#[jax::jit]
#[allow(clippy::type_complexity)]
fn linalg_svd_512(
    a: &Array<f32, 512, 512>,
) -> (Array<f32, 512, 512>, Array<f32, 512>, Array<f32, 512, 512>) {
    jnp::linalg::svd(a)
}

#[jax::jit]
fn linalg_pinv_256(a: &Array<f32, 256, 256>) -> Array<f32, 256, 256> {
    jnp::linalg::pinv(a)
}

#[jax::jit]
fn linalg_lstsq_512x64(a: &Array<f32, 512, 64>, b: &Array<f32, 512, 4>) -> Array<f32, 64, 4> {
    let (x, _, _, _): (
        Array<f32, 64, 4>,
        Array<f32, 4>,
        Array<DefaultInt>,
        Array<f32, 64>,
    ) = jnp::linalg::lstsq(a, b);
    x
}

/// `m mᵀ / n + I`, m uniform in [-1, 1): symmetric positive definite and well
/// conditioned, as `_spd` in `jax_workloads.py`.
fn spd<const N: usize>(seed: u32) -> Array<f32, N, N> {
    let m = random2::<N, N>(seed);
    m.matmul(m.t()) / (N as f32) + Array::<f32, N, N>::eye()
}

/// `(m + mᵀ) / 2`: symmetric, for `eigh`.
fn symmetric<const N: usize>(seed: u32) -> Array<f32, N, N> {
    let m = random2::<N, N>(seed);
    (&m + m.t()) / 2.0f32
}

/// Times the jitted and the eager form of a linear-algebra workload: rows
/// `NAME` and `NAME_eager`.
fn linalg_rows<R, S>(
    t: &Timing,
    run: &dyn Fn(&str) -> bool,
    name: &str,
    mut jit: impl FnMut() -> R,
    mut eager: impl FnMut() -> S,
) {
    if run(name) && filter_is_not_eager_only(name) {
        let s = t.run(|| drop(black_box(jit())));
        report(name, t, s);
    }
    let eager_name = format!("{name}_eager");
    if run(&eager_name) {
        let s = t.run(|| drop(black_box(eager())));
        report(&eager_name, t, s);
    }
}

/// A filter naming an `_eager` row selects only that row.
fn filter_is_not_eager_only(_name: &str) -> bool {
    !std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && a.ends_with("_eager"))
}

/// The linear-algebra rows (`linalg_*`); the same inputs as `jax_workloads.py`'s.
pub(crate) fn linalg_workloads(t: &Timing, run: &dyn Fn(&str) -> bool) {
    // A row's inputs are built when it or its eager twin is selected.
    let any = |name: &str| run(name) || run(&format!("{name}_eager"));
    macro_rules! square {
        ($n:literal) => {{
            if any(concat!("linalg_cholesky_", $n)) {
                let a = spd::<$n>(40);
                linalg_rows(
                    t,
                    run,
                    concat!("linalg_cholesky_", $n),
                    || linalg_cholesky(black_box(&a)),
                    || jnp::linalg::cholesky(black_box(&a)),
                );
            }
            if any(concat!("linalg_solve_", $n)) {
                let (a, b) = (random2::<$n, $n>(41), random::<$n>(42));
                linalg_rows(
                    t,
                    run,
                    concat!("linalg_solve_", $n),
                    || linalg_solve(black_box(&a), black_box(&b)),
                    || jnp::linalg::solve(black_box(&a), black_box(&b)),
                );
            }
            if any(concat!("linalg_inv_", $n)) {
                let a = random2::<$n, $n>(43);
                linalg_rows(
                    t,
                    run,
                    concat!("linalg_inv_", $n),
                    || linalg_inv(black_box(&a)),
                    || jnp::linalg::inv(black_box(&a)),
                );
            }
        }};
    }
    macro_rules! spectral {
        ($n:literal, $eigh:ident, $svd:ident) => {{
            if any(concat!("linalg_eigh_", $n)) {
                let a = symmetric::<$n>(44);
                linalg_rows(
                    t,
                    run,
                    concat!("linalg_eigh_", $n),
                    || $eigh(black_box(&a)),
                    || -> (Array<f32, $n>, Array<f32, $n, $n>) { jnp::linalg::eigh(black_box(&a)) },
                );
            }
            if any(concat!("linalg_svd_", $n)) {
                let a = random2::<$n, $n>(45);
                linalg_rows(
                    t,
                    run,
                    concat!("linalg_svd_", $n),
                    || $svd(black_box(&a)),
                    || -> (Array<f32, $n, $n>, Array<f32, $n>, Array<f32, $n, $n>) {
                        jnp::linalg::svd(black_box(&a))
                    },
                );
            }
        }};
    }
    square!(512);
    square!(1024);
    if any("linalg_pinv_256") {
        let a = random2::<256, 256>(46);
        linalg_rows(
            t,
            run,
            "linalg_pinv_256",
            || linalg_pinv_256(black_box(&a)),
            || -> Array<f32, 256, 256> { jnp::linalg::pinv(black_box(&a)) },
        );
    }
    if any("linalg_lstsq_512x64") {
        let (a, b) = (random2::<512, 64>(47), random2::<512, 4>(48));
        linalg_rows(
            t,
            run,
            "linalg_lstsq_512x64",
            || linalg_lstsq_512x64(black_box(&a), black_box(&b)),
            || {
                let (x, _, _, _): (
                    Array<f32, 64, 4>,
                    Array<f32, 4>,
                    Array<DefaultInt>,
                    Array<f32, 64>,
                ) = jnp::linalg::lstsq(black_box(&a), black_box(&b));
                x
            },
        );
    }
    spectral!(256, linalg_eigh_256, linalg_svd_256);
    spectral!(512, linalg_eigh_512, linalg_svd_512);
    if any("linalg_cholesky_batch_64x32") {
        // 64 independent 32×32 SPD matrices.
        let blocks: Vec<f32> = (0..64).flat_map(|i| spd::<32>(100 + i).to_vec()).collect();
        let a: Array<f32, 64, 32, 32> = Array::from_vec(blocks).unwrap();
        linalg_rows(
            t,
            run,
            "linalg_cholesky_batch_64x32",
            || linalg_cholesky_batch(black_box(&a)),
            || jnp::linalg::cholesky(black_box(&a)),
        );
    }
}
