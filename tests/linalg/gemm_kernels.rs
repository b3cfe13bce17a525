//! The packed gemm kernels (`jax::gemm`) against a plain f64-accumulating
//! reference: many shapes including edge sizes, every stride kind (A and/or
//! B transposed), each SIMD level, one and several threads, with and
//! without an epilogue, f32 and f64; and bit-identical results for any
//! thread count.

use std::sync::atomic::{AtomicU32, Ordering};

use jax::__rt::par::Level;
use jax::gemm::{dgemm_into_at, sgemm_into_at, Epilogue, Tile};

const SIZES: [usize; 11] = [1, 2, 7, 16, 17, 31, 33, 64, 65, 129, 300];

/// Deterministic pseudo-random values in [-1, 1).
fn values(len: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

/// An operand `rows × cols` stored row-major, or transposed (column-major):
/// its data and its (row, column) strides.
fn operand(rows: usize, cols: usize, transposed: bool, seed: u64) -> (Vec<f64>, usize, usize) {
    let v = values(rows * cols, seed);
    if transposed {
        (v, 1, rows)
    } else {
        (v, cols, 1)
    }
}

/// One element of A·B in f64, with Σ|a·b| (for the error bound).
#[allow(clippy::too_many_arguments)]
fn reference(
    i: usize,
    j: usize,
    k: usize,
    a: &[f64],
    ars: usize,
    acs: usize,
    b: &[f64],
    brs: usize,
    bcs: usize,
) -> (f64, f64) {
    let mut s = 0.0;
    let mut abs = 0.0;
    for p in 0..k {
        let x = a[i * ars + p * acs] * b[p * brs + j * bcs];
        s += x;
        abs += x.abs();
    }
    (s, abs)
}

#[derive(Clone, Copy, Debug)]
enum Ty {
    F32,
    F64,
}

/// Runs the product at `level` (epilogue: `x ↦ 2x + 1`, or none) and
/// returns C as f64.
#[allow(clippy::too_many_arguments)]
fn product(
    ty: Ty,
    level: Level,
    m: usize,
    k: usize,
    n: usize,
    a: &(Vec<f64>, usize, usize),
    b: &(Vec<f64>, usize, usize),
    epilogue: bool,
) -> Vec<f64> {
    match ty {
        Ty::F32 => {
            let a32: Vec<f32> = a.0.iter().map(|&x| x as f32).collect();
            let b32: Vec<f32> = b.0.iter().map(|&x| x as f32).collect();
            let mut c = vec![f32::NAN; m * n];
            let epi = |mut t: Tile<'_, f32>| {
                for i in 0..t.rows() {
                    for x in t.row_mut(i) {
                        *x = *x * 2.0 + 1.0;
                    }
                }
            };
            let e: Option<Epilogue<'_, f32>> = if epilogue { Some(&epi) } else { None };
            sgemm_into_at(level, m, k, n, &a32, a.1, a.2, &b32, b.1, b.2, &mut c, e);
            c.iter().map(|&x| x as f64).collect()
        }
        Ty::F64 => {
            let mut c = vec![f64::NAN; m * n];
            let epi = |mut t: Tile<'_, f64>| {
                for i in 0..t.rows() {
                    for x in t.row_mut(i) {
                        *x = *x * 2.0 + 1.0;
                    }
                }
            };
            let e: Option<Epilogue<'_, f64>> = if epilogue { Some(&epi) } else { None };
            dgemm_into_at(level, m, k, n, &a.0, a.1, a.2, &b.0, b.1, b.2, &mut c, e);
            c
        }
    }
}

/// Checks C against the reference at every element (or `samples` of them).
#[allow(clippy::too_many_arguments)]
fn check(
    ty: Ty,
    level: Level,
    m: usize,
    k: usize,
    n: usize,
    ta: bool,
    tb: bool,
    epilogue: bool,
    samples: Option<usize>,
) {
    let seed = (m * 1_000_003 + k * 1009 + n) as u64;
    let a = operand(m, k, ta, seed);
    let b = operand(k, n, tb, seed + 7);
    let c = product(ty, level, m, k, n, &a, &b, epilogue);
    let eps = match ty {
        Ty::F32 => f32::EPSILON as f64,
        Ty::F64 => f64::EPSILON,
    };
    let elems: Vec<usize> = match samples {
        None => (0..m * n).collect(),
        Some(s) => values(s, seed + 13)
            .iter()
            .map(|&x| ((x + 1.0) / 2.0 * (m * n) as f64) as usize % (m * n))
            .collect(),
    };
    for e in elems {
        let (i, j) = (e / n, e % n);
        let (mut want, abs) = reference(i, j, k, &a.0, a.1, a.2, &b.0, b.1, b.2);
        let mut tol = 2.0 * (k as f64 + 2.0) * eps * abs + 1e-300;
        if epilogue {
            want = want * 2.0 + 1.0;
            tol = 2.0 * tol + 2.0 * eps;
        }
        let got = c[e];
        assert!(
            (got - want).abs() <= tol,
            "{ty:?} {level:?} m={m} k={k} n={n} ta={ta} tb={tb} epilogue={epilogue}: \
             C[{i}][{j}] = {got}, want {want} (tol {tol})"
        );
    }
}

fn levels() -> Vec<Level> {
    let mut v = vec![Level::Baseline];
    for l in [Level::Avx2, Level::Avx512] {
        if l <= Level::supported() {
            v.push(l);
        }
    }
    v
}

/// A deterministic sample of (m, k, n) from SIZES³: every size appears in
/// every position, plus pseudo-random combinations.
fn shapes() -> Vec<(usize, usize, usize)> {
    let mut v = Vec::new();
    for (i, &s) in SIZES.iter().enumerate() {
        let t = SIZES[(i * 7 + 3) % SIZES.len()];
        let u = SIZES[(i * 5 + 1) % SIZES.len()];
        v.push((s, t, u));
        v.push((t, s, u));
        v.push((u, t, s));
    }
    let r = values(60, 99);
    for w in r.chunks(3) {
        let pick = |x: f64| SIZES[((x + 1.0) / 2.0 * SIZES.len() as f64) as usize % SIZES.len()];
        v.push((pick(w[0]), pick(w[1]), pick(w[2])));
    }
    v
}

/// Whether two results are the same bits, element by element.
fn same_bits(x: &[f64], y: &[f64]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| a.to_bits() == b.to_bits())
}

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    jax::__rt::team::Threads::new(threads).install(f)
}

#[test]
fn matches_reference_over_shapes_strides_levels_threads() {
    for level in levels() {
        for ty in [Ty::F32, Ty::F64] {
            for (si, &(m, k, n)) in shapes().iter().enumerate() {
                for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                    let epilogue = (si + ta as usize + tb as usize).is_multiple_of(2);
                    // Threads on for every other shape (the big ones split).
                    let threads = if si % 2 == 0 { 1 } else { 2 };
                    in_pool(threads, || {
                        check(ty, level, m, k, n, ta, tb, epilogue, None)
                    });
                }
            }
        }
    }
}

#[test]
fn epilogue_on_and_off_at_every_level() {
    for level in levels() {
        for ty in [Ty::F32, Ty::F64] {
            for epilogue in [false, true] {
                for threads in [1, 2] {
                    in_pool(threads, || {
                        check(ty, level, 300, 129, 65, true, false, epilogue, None)
                    });
                    in_pool(threads, || {
                        check(ty, level, 33, 300, 300, false, true, epilogue, None)
                    });
                    // Deep: summed in parts of the depth.
                    in_pool(threads, || {
                        check(ty, level, 64, 5000, 48, true, false, epilogue, None)
                    });
                }
            }
        }
    }
}

#[test]
fn large_square_product() {
    let best = *levels().last().unwrap();
    check(
        Ty::F32,
        best,
        1024,
        1024,
        1024,
        false,
        false,
        false,
        Some(2000),
    );
    check(Ty::F32, best, 1024, 1024, 1024, true, true, true, Some(500));
}

#[test]
fn bits_do_not_depend_on_thread_count() {
    for level in levels() {
        for &(m, k, n) in &[
            (300, 300, 300),
            (129, 784, 300),
            (1000, 300, 65),
            (64, 600, 1000),
            (64, 10000, 64),
        ] {
            for (ta, tb) in [(false, false), (true, true)] {
                let a = operand(m, k, ta, 1);
                let b = operand(k, n, tb, 2);
                for ty in [Ty::F32, Ty::F64] {
                    let one = in_pool(1, || product(ty, level, m, k, n, &a, &b, false));
                    for threads in [2, 3, 4] {
                        let many = in_pool(threads, || product(ty, level, m, k, n, &a, &b, false));
                        assert!(
                            same_bits(&one, &many),
                            "{ty:?} {level:?} {m}x{k}x{n}: {threads} threads differ from 1"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn b_packed_ahead_or_inside_the_kernels_gives_the_same_bits() {
    // Wide row-major B (packed ahead where the CPU prefers it), narrow B
    // (always in the kernels), several k slices, edge tiles.
    let shapes = [
        (129, 784, 600),
        (300, 1100, 520),
        (50, 700, 64),
        (13, 40, 300),
    ];
    for level in levels() {
        for &(m, k, n) in &shapes {
            let a = operand(m, k, false, 3);
            let b = operand(k, n, false, 4);
            for ty in [Ty::F32, Ty::F64] {
                let run = |ahead| {
                    jax::gemm::set_packs_b_ahead(ahead);
                    in_pool(2, || product(ty, level, m, k, n, &a, &b, false))
                };
                let (inside, ahead) = (run(false), run(true));
                assert!(
                    same_bits(&inside, &ahead),
                    "{ty:?} {level:?} {m}x{k}x{n}: packing ahead changed bits"
                );
                // Both packings give the same bits; a sample of elements
                // against the reference shows those bits are the product
                // (every element is checked at these levels by
                // `matches_reference_over_shapes_strides_levels_threads`).
                check(ty, level, m, k, n, false, false, false, Some(2048));
            }
        }
    }
}

#[test]
fn epilogue_sees_every_element_once_after_its_sum() {
    // Bias + tanh in the epilogue equals the unfused result, and every
    // element is handed over exactly once.
    for level in levels() {
        for threads in [1, 2, 4] {
            let (m, k, n) = (257, 700, 131);
            let a: Vec<f32> = values(m * k, 3).iter().map(|&x| x as f32).collect();
            let b: Vec<f32> = values(k * n, 4).iter().map(|&x| x as f32).collect();
            let bias: Vec<f32> = values(n, 5).iter().map(|&x| x as f32).collect();
            let seen: Vec<AtomicU32> = (0..m * n).map(|_| AtomicU32::new(0)).collect();
            let mut plain = vec![0.0f32; m * n];
            let mut fused = vec![0.0f32; m * n];
            in_pool(threads, || {
                sgemm_into_at(level, m, k, n, &a, k, 1, &b, n, 1, &mut plain, None);
                let epi = |mut t: Tile<'_, f32>| {
                    let (r0, c0) = (t.r0(), t.c0());
                    for i in 0..t.rows() {
                        for (j, x) in t.row_mut(i).iter_mut().enumerate() {
                            seen[(r0 + i) * n + c0 + j].fetch_add(1, Ordering::Relaxed);
                            *x = (*x + bias[c0 + j]).tanh();
                        }
                    }
                };
                sgemm_into_at(level, m, k, n, &a, k, 1, &b, n, 1, &mut fused, Some(&epi));
            });
            for (e, x) in plain.iter_mut().enumerate() {
                *x = (*x + bias[e % n]).tanh();
            }
            assert!(
                seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                "{level:?}: elements not seen once"
            );
            assert_eq!(
                plain, fused,
                "{level:?} {threads} threads: fused epilogue differs"
            );
        }
    }
}

#[test]
fn empty_and_zero_k() {
    for level in levels() {
        let mut c = vec![f32::NAN; 6];
        let calls = AtomicU32::new(0);
        let epi = |mut t: Tile<'_, f32>| {
            calls.fetch_add(1, Ordering::Relaxed);
            for i in 0..t.rows() {
                for x in t.row_mut(i) {
                    *x += 1.0;
                }
            }
        };
        sgemm_into_at(level, 2, 0, 3, &[], 0, 1, &[], 3, 1, &mut c, Some(&epi));
        assert_eq!(c, vec![1.0; 6], "{level:?}");
        assert!(calls.load(Ordering::Relaxed) >= 1);
        let mut e: Vec<f32> = vec![];
        sgemm_into_at(level, 0, 5, 3, &[], 5, 1, &[0.0; 15], 3, 1, &mut e, None);
    }
}
