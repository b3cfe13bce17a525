//! The f32/f64 fast paths of the eager reductions and softmax (the jitted
//! code's loop drivers and order of operations): each against a plain f64
//! reference, bit for bit against its `#[jax::jit]` twin, over shapes with
//! odd sizes, axes, keepdims and both float dtypes, and bit for bit across
//! thread counts.
#![allow(clippy::needless_range_loop)]

use jax::nn;
use jax::prelude::*;

/// Deterministic values in about [-6, 6): a hash of the index.
fn value(i: usize, seed: u64) -> f64 {
    let mut h = (i as u64 ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    (h % 12_000) as f64 / 1000.0 - 6.0
}

/// `shape` around `axis`: (product before, length, product after).
fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

/// The lanes along the middle axis of `outer × len × inner`, in f64.
fn lanes(x: &[f64], shape: &[usize], axis: usize) -> Vec<Vec<f64>> {
    let (outer, len, inner) = split(shape, axis);
    let mut out = Vec::new();
    for o in 0..outer {
        for k in 0..inner {
            out.push((0..len).map(|i| x[(o * len + i) * inner + k]).collect());
        }
    }
    out
}

fn ref_lse(l: &[f64]) -> f64 {
    let m = l.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    l.iter().map(|v| (v - m).exp()).sum::<f64>().ln() + m
}

/// Reference results along `axis`: sum, mean, max, min, logsumexp.
fn ref_folds(x: &[f64], shape: &[usize], axis: usize) -> [Vec<f64>; 5] {
    let l = lanes(x, shape, axis);
    [
        l.iter().map(|l| l.iter().sum()).collect(),
        l.iter()
            .map(|l| l.iter().sum::<f64>() / l.len() as f64)
            .collect(),
        l.iter()
            .map(|l| l.iter().cloned().fold(f64::NEG_INFINITY, f64::max))
            .collect(),
        l.iter()
            .map(|l| l.iter().cloned().fold(f64::INFINITY, f64::min))
            .collect(),
        l.iter().map(|l| ref_lse(l)).collect(),
    ]
}

/// Reference softmax and log_softmax along `axis`, in the input's layout.
fn ref_softmax(x: &[f64], shape: &[usize], axis: usize) -> (Vec<f64>, Vec<f64>) {
    let (outer, len, inner) = split(shape, axis);
    let (mut p, mut lp) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    for o in 0..outer {
        for k in 0..inner {
            let at = |i: usize| (o * len + i) * inner + k;
            let l: Vec<f64> = (0..len).map(|i| x[at(i)]).collect();
            let lse = ref_lse(&l);
            for i in 0..len {
                p[at(i)] = (l[i] - lse).exp();
                lp[at(i)] = l[i] - lse;
            }
        }
    }
    (p, lp)
}

/// `got` within `tol` (relative to the scale of the inputs) of `want`.
#[track_caller]
fn close(what: &str, got: &[f64], want: &[f64], tol: f64, scale: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (scale + w.abs()),
            "{what}[{i}]: {g} vs reference {w}"
        );
    }
}

/// The same bits (NaNs of any payload count as equal).
#[track_caller]
fn same(what: &str, a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{what}: length");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            "{what}[{i}]: eager {x:e} vs jit {y:e}"
        );
    }
}

/// The jitted bits; for logsumexp, within rounding errors of them: eager
/// `logsumexp` runs its primitives one by one as JAX's does (the
/// exponentials materialized, then summed in lanes), while the jitted sum
/// reads them through a fused broadcast and folds left to right, which over
/// 51,000 elements is a few units in the sixth digit less accurate.
#[track_caller]
fn jit_like(what: &str, eager: &[f64], jit: &[f64], tol: f64) {
    if what.starts_with("logsumexp") {
        let finite: Vec<bool> = jit.iter().map(|v| v.is_finite()).collect();
        let e: Vec<f64> = eager
            .iter()
            .zip(&finite)
            .map(|(v, f)| if *f { *v } else { 0.0 })
            .collect();
        let j: Vec<f64> = jit
            .iter()
            .zip(&finite)
            .map(|(v, f)| if *f { *v } else { 0.0 })
            .collect();
        close(what, &e, &j, tol, 0.0);
        let bad = |v: &[f64]| v.iter().map(|v| v.is_finite()).collect::<Vec<_>>();
        assert_eq!(bad(eager), bad(jit), "{what}: non-finite results");
    } else {
        same(what, eager, jit);
    }
}

/// One shape and axis: jitted twins of every fast path, and a test running
/// eager, jitted and reference. `$kept` is the shape with `axis` kept as 1.
macro_rules! case {
    ($m:ident, $t:ident, [$($d:literal),+], $axis:literal, [$($k:literal),+], $tol:expr) => {
        mod $m {
            use super::*;
            type X = Array<$t, $($d),+>;
            type K = Array<$t, $($k),+>;
            const SHAPE: &[usize] = &[$($d),+];

            #[jax::jit]
            fn sum_all(x: &Array<$t, $($d),+>) -> Array<$t> { jnp::sum(x) }
            #[jax::jit]
            fn mean_all(x: &Array<$t, $($d),+>) -> Array<$t> { jnp::mean(x) }
            #[jax::jit]
            fn max_all(x: &Array<$t, $($d),+>) -> Array<$t> { jnp::max(x) }
            #[jax::jit]
            fn min_all(x: &Array<$t, $($d),+>) -> Array<$t> { jnp::min(x) }
            #[jax::jit]
            fn lse_all(x: &Array<$t, $($d),+>) -> Array<$t> { jnp::logsumexp(x) }
            #[jax::jit]
            fn sum_ax(x: &Array<$t, $($d),+>) -> Array<$t, $($k),+> { jnp::sum_axis(x, $axis, true) }
            #[jax::jit]
            fn mean_ax(x: &Array<$t, $($d),+>) -> Array<$t, $($k),+> { jnp::mean_axis(x, $axis, true) }
            #[jax::jit]
            fn max_ax(x: &Array<$t, $($d),+>) -> Array<$t, $($k),+> { jnp::max_axis(x, $axis, true) }
            #[jax::jit]
            fn min_ax(x: &Array<$t, $($d),+>) -> Array<$t, $($k),+> { jnp::min_axis(x, $axis, true) }
            #[jax::jit]
            fn lse_ax(x: &Array<$t, $($d),+>) -> Array<$t, $($k),+> { nn::logsumexp(x, $axis, true) }
            #[jax::jit]
            fn softmax(x: &Array<$t, $($d),+>) -> Array<$t, $($d),+> { jnp::softmax(x, $axis) }
            #[jax::jit]
            fn log_softmax(x: &Array<$t, $($d),+>) -> Array<$t, $($d),+> { jnp::log_softmax(x, $axis) }

            fn wide(v: Vec<$t>) -> Vec<f64> {
                v.into_iter().map(|x| x as f64).collect()
            }

            fn check(x: &X, reference: bool) {
                let axis = ($axis as isize).rem_euclid(SHAPE.len() as isize) as usize;
                let xs = wide(x.to_vec());
                let scale = xs.iter().map(|v| v.abs()).sum::<f64>() / xs.len() as f64;
                let alls: [(&str, Vec<f64>, Vec<f64>); 5] = [
                    ("sum", wide(jnp::sum(x).to_vec()), wide(sum_all(x).to_vec())),
                    ("mean", wide(jnp::mean(x).to_vec()), wide(mean_all(x).to_vec())),
                    ("max", wide(jnp::max(x).to_vec()), wide(max_all(x).to_vec())),
                    ("min", wide(jnp::min(x).to_vec()), wide(min_all(x).to_vec())),
                    ("logsumexp", wide(jnp::logsumexp(x).to_vec()), wide(lse_all(x).to_vec())),
                ];
                let flat = [xs.len()];
                let ref_all = ref_folds(&xs, &flat, 0);
                for ((name, eager, jit), want) in alls.iter().zip(&ref_all) {
                    jit_like(name, eager, jit, $tol);
                    if reference {
                        let n = if *name == "sum" { xs.len() as f64 } else { 1.0 };
                        close(name, eager, want, $tol, scale * n);
                    }
                }
                let sum_k: K = jnp::sum_axis(x, $axis, true);
                let mean_k: K = jnp::mean_axis(x, $axis, true);
                let max_k: K = jnp::max_axis(x, $axis, true);
                let min_k: K = jnp::min_axis(x, $axis, true);
                let lse_k: K = nn::logsumexp(x, $axis, true);
                let axes: [(&str, Vec<f64>, Vec<f64>); 5] = [
                    ("sum_axis", wide(sum_k.to_vec()), wide(sum_ax(x).to_vec())),
                    ("mean_axis", wide(mean_k.to_vec()), wide(mean_ax(x).to_vec())),
                    ("max_axis", wide(max_k.to_vec()), wide(max_ax(x).to_vec())),
                    ("min_axis", wide(min_k.to_vec()), wide(min_ax(x).to_vec())),
                    ("logsumexp_axis", wide(lse_k.to_vec()), wide(lse_ax(x).to_vec())),
                ];
                let ref_axis = ref_folds(&xs, SHAPE, axis);
                for ((name, eager, jit), want) in axes.iter().zip(&ref_axis) {
                    jit_like(name, eager, jit, $tol);
                    if reference {
                        let n = if *name == "sum_axis" { SHAPE[axis] as f64 } else { 1.0 };
                        close(name, eager, want, $tol, scale * n);
                    }
                }
                let (p, lp) = ref_softmax(&xs, SHAPE, axis);
                let e = wide(jnp::softmax(x, $axis).to_vec());
                same("softmax", &e, &wide(softmax(x).to_vec()));
                let le = wide(jnp::log_softmax(x, $axis).to_vec());
                same("log_softmax", &le, &wide(log_softmax(x).to_vec()));
                if reference {
                    close("softmax", &e, &p, $tol, 1e-3);
                    close("log_softmax", &le, &lp, $tol, scale);
                }
            }

            #[test]
            fn eager_matches_jit_and_reference() {
                let x = X::from_fn(|i| value(i, 1) as $t);
                check(&x, true);
                // Large magnitudes, infinities and NaN: still the jitted bits.
                let y = X::from_fn(|i| match i % 97 {
                    3 => $t::INFINITY,
                    5 => $t::NEG_INFINITY,
                    11 if i > 200 => $t::NAN,
                    _ => (value(i, 2) * 300.0) as $t,
                });
                check(&y, false);
                let z = X::from_fn(|_| $t::NEG_INFINITY);
                check(&z, false);
            }
        }
    };
}

case!(f32_vector_long, f32, [20011], 0, [1], 1e-5);
case!(f32_vector_7, f32, [7], -1, [1], 1e-5);
case!(f32_rows_7x33, f32, [7, 33], -1, [7, 1], 1e-5);
case!(f32_cols_7x33, f32, [7, 33], 0, [1, 33], 1e-5);
case!(f32_rows_129x17, f32, [129, 17], 1, [129, 1], 1e-5);
case!(f32_one_row_1x65, f32, [1, 65], -1, [1, 1], 1e-5);
case!(f32_long_rows_3x17000, f32, [3, 17000], 1, [3, 1], 1e-5);
case!(f32_3d_middle, f32, [3, 5, 17], 1, [3, 1, 17], 1e-5);
case!(f32_3d_last, f32, [3, 5, 17], 2, [3, 5, 1], 1e-5);
case!(f64_rows_65x33, f64, [65, 33], 1, [65, 1], 1e-12);
case!(f64_cols_33x7, f64, [33, 7], 0, [1, 7], 1e-12);
case!(f64_vector_long, f64, [16385], 0, [1], 1e-12);
// Edge sizes (1, 7, 17, 33, 65, 129) along each axis of rank 2 and 3: the
// row folds in lanes (last axis) and the column folds (other axes).
case!(f32_rows_65x129, f32, [65, 129], 1, [65, 1], 1e-5);
case!(f32_cols_129x65, f32, [129, 65], 0, [1, 65], 1e-5);
case!(f32_cols_129x1, f32, [129, 1], 0, [1, 1], 1e-5);
case!(f32_3d_first, f32, [17, 7, 33], 0, [1, 7, 33], 1e-5);
case!(f32_3d_last_129, f32, [7, 17, 129], -1, [7, 17, 1], 1e-5);
case!(f64_3d_first, f64, [7, 33, 1], 0, [1, 33, 1], 1e-12);
case!(f64_3d_middle, f64, [17, 65, 7], 1, [17, 1, 7], 1e-12);
case!(f64_3d_last, f64, [33, 7, 17], 2, [33, 7, 1], 1e-12);
case!(f64_rows_1x129, f64, [1, 129], 1, [1, 1], 1e-12);

#[jax::jit]
fn sum_rows_dropped(x: &Array<f32, 9, 5>) -> Array<f32, 9> {
    jnp::sum_axis(x, 1, false)
}

#[jax::jit]
fn sum_rows_dropped_3d(x: &Array<f64, 7, 3, 129>) -> Array<f64, 7, 3> {
    jnp::sum_axis(x, -1, false)
}

#[jax::jit]
fn max_middle_dropped_3d(x: &Array<f32, 7, 65, 17>) -> Array<f32, 7, 17> {
    jnp::max_axis(x, 1, false)
}

/// A fused operand (`x * x`), materialized and folded in the same order.
#[jax::jit]
fn sum_sq_rows(x: &Array<f32, 33, 129>) -> Array<f32, 33> {
    jnp::sum_axis(x * x, -1, false)
}

#[test]
fn keepdims_false_matches_its_jitted_twin() {
    let x = Array::<f32, 9, 5>::from_fn(|i| value(i, 3) as f32);
    let e: Array<f32, 9> = jnp::sum_axis(&x, 1, false);
    let k: Array<f32, 9, 1> = jnp::sum_axis(&x, 1, true);
    // Both forms fold each row in lanes: the same bits.
    assert_eq!(e.to_vec(), k.to_vec());
    assert_eq!(e.to_vec(), sum_rows_dropped(&x).to_vec());
    let y = Array::<f64, 7, 3, 129>::from_fn(|i| value(i, 6));
    let e: Array<f64, 7, 3> = jnp::sum_axis(&y, -1, false);
    assert_eq!(e.to_vec(), sum_rows_dropped_3d(&y).to_vec());
    let z = Array::<f32, 7, 65, 17>::from_fn(|i| value(i, 7) as f32);
    let e: Array<f32, 7, 17> = jnp::max_axis(&z, 1, false);
    assert_eq!(e.to_vec(), max_middle_dropped_3d(&z).to_vec());
    let w = Array::<f32, 33, 129>::from_fn(|i| value(i, 8) as f32);
    let sq = &w * &w;
    let e: Array<f32, 33> = jnp::sum_axis(&sq, -1, false);
    assert_eq!(e.to_vec(), sum_sq_rows(&w).to_vec());
}

/// Each row's sum in `par::fold_lanes`'s order, written out: lane `l` takes
/// elements `l, l + 64, ...` left to right, then lanes combine pairwise.
fn lane_order_sum(row: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 64];
    for (i, v) in row.iter().enumerate() {
        lanes[i % 64] += v;
    }
    let mut w = 32;
    while w > 0 {
        for l in 0..w {
            lanes[l] += lanes[l + w];
        }
        w /= 2;
    }
    lanes[0]
}

#[test]
fn row_sums_follow_the_documented_lane_order() {
    let x = Array::<f32, 65, 129>::from_fn(|i| value(i, 9) as f32);
    let e: Array<f32, 65> = jnp::sum_axis(&x, -1, false);
    let d = x.to_vec();
    let want: Vec<f32> = d.chunks(129).map(lane_order_sum).collect();
    assert_eq!(e.to_vec(), want);
}

const BIG: usize = 1 << 20;

#[jax::jit]
fn big_sum(x: &Array<f32, BIG>) -> Array<f32> {
    jnp::sum(x)
}

#[jax::jit]
fn big_sumsq(x: &Array<f32, BIG>) -> Array<f32> {
    jnp::sum(x * x)
}

#[jax::jit]
fn big_softmax(x: &Array<f32, 1024, 1024>) -> Array<f32, 1024, 1024> {
    jnp::softmax(x, -1)
}

fn pool(threads: usize) -> jax::__rt::team::Threads {
    jax::__rt::team::Threads::new(threads)
}

#[test]
fn thread_counts_give_identical_bits() {
    let x = Array::<f32, BIG>::from_fn(|i| value(i, 4) as f32);
    let m = Array::<f32, 1024, 1024>::from_fn(|i| value(i, 5) as f32);
    let run = || {
        let cols: Array<f32, 1024> = jnp::sum_axis(&m, 0, false);
        let rows: Array<f32, 1024> = jnp::max_axis(&m, 1, false);
        let lse: Array<f32, 1024> = nn::logsumexp(&m, 1, false);
        (
            jnp::sum(&x).item().to_bits(),
            big_sum(&x).item().to_bits(),
            big_sumsq(&x).item().to_bits(),
            jnp::mean(&m).item().to_bits(),
            jnp::softmax(&m, -1).to_vec(),
            big_softmax(&m).to_vec(),
            cols.to_vec(),
            rows.to_vec(),
            lse.to_vec(),
        )
    };
    let one = pool(1).install(run);
    let two = pool(2).install(run);
    let three = pool(3).install(run);
    assert_eq!(one.0, two.0);
    assert_eq!(one.1, two.1);
    assert_eq!(one.0, one.1, "eager and jitted sum");
    assert_eq!(one.2, two.2);
    assert_eq!(one.3, two.3);
    assert_eq!(one.4, two.4);
    assert_eq!(one.4, one.5, "eager and jitted softmax");
    assert_eq!(one.5, two.5);
    assert_eq!((&one.6, &one.7, &one.8), (&two.6, &two.7, &two.8));
    assert_eq!(two, three);
    // And the values are right.
    let want: f64 = (0..BIG).map(|i| value(i, 4) as f32 as f64).sum();
    assert!((f32::from_bits(one.0) as f64 - want).abs() < 1e-6 * BIG as f64);
}

#[jax::jit]
fn int_folds(x: &Array<i32, 17, 65>) -> (Array<i32, 17>, Array<i32, 65>) {
    // Under x64 an int32 sum is int64, as in JAX: cast back (exact here).
    (
        jnp::sum_axis(x, -1, false).astype::<i32>(),
        jnp::max_axis(x, 0, false),
    )
}

/// Integer folds through the same runtime kernels: exact, against plain loops.
#[test]
fn integer_axis_folds_match_plain_loops() {
    let x = Array::<i32, 17, 65>::from_fn(|i| (value(i, 10) * 1000.0) as i32);
    let d = x.to_vec();
    let (rows, cols) = int_folds(&x);
    let want_rows: Vec<i32> = d.chunks(65).map(|r| r.iter().sum()).collect();
    let want_cols: Vec<i32> = (0..65)
        .map(|k| (0..17).map(|r| d[r * 65 + k]).max().unwrap())
        .collect();
    assert_eq!(rows.to_vec(), want_rows);
    assert_eq!(cols.to_vec(), want_cols);
}
