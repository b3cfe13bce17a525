//! Float `max` and `min` folds in jitted code take a fast path (one
//! `maxps`/`minps` per block, a NaN flag per lane) and refold exactly when
//! its result could differ. These inputs put NaN, infinities and zeros of
//! both signs at every kind of position (first lane, a full block, the tail)
//! and check the result against a left-to-right fold of `lax.max`/`lax.min`
//! semantics, bit for bit (any NaN for NaN).

use jax::__rt::ops;
use jax::prelude::*;

#[jax::jit]
fn row_max(x: &Array<f32, 6, 100>) -> Array<f32, 6, 100> {
    x.max_axis(-1, true) * jnp::ones_like(x)
}

#[jax::jit]
fn row_min(x: &Array<f32, 6, 1024>) -> Array<f32, 6, 1024> {
    x.min_axis(-1, true) * jnp::ones_like(x)
}

#[jax::jit]
fn all_max(x: &Array<f64, 40000>) -> Array<f64> {
    jnp::max(x)
}

#[jax::jit]
fn all_min(x: &Array<f32, 37>) -> Array<f32> {
    jnp::min(x)
}

fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Rows of `len` built from a base pattern with one special value planted at
/// `at` (or none), covering the cases the fast fold must hand back.
fn cases(len: usize) -> Vec<Vec<f32>> {
    let mut out = Vec::new();
    let base: Vec<f32> = (0..len).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
    let negative: Vec<f32> = (0..len).map(|i| -1.0 - (i % 7) as f32).collect();
    let spots = [0, 1, len / 2, len - 1, len - len % 64, (len / 64) * 64 + 3];
    for &at in spots.iter().filter(|&&a| a < len) {
        for special in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0] {
            let mut r = base.clone();
            r[at] = special;
            out.push(r);
            let mut r = negative.clone();
            r[at] = special;
            out.push(r);
        }
        // Zeros of both signs, the one `+0` (or `-0`) at `at`.
        let mut r = vec![-0.0f32; len];
        r[at] = 0.0;
        out.push(r);
        let mut r = vec![0.0f32; len];
        r[at] = -0.0;
        out.push(r);
    }
    out.push(vec![-0.0; len]);
    out.push(vec![f32::NEG_INFINITY; len]);
    out.push(vec![f32::INFINITY; len]);
    out
}

fn exact(row: &[f32], max: bool) -> f32 {
    let id = if max {
        f32::NEG_INFINITY
    } else {
        f32::INFINITY
    };
    row.iter().fold(
        id,
        |a, &b| if max { ops::max(a, b) } else { ops::min(a, b) },
    )
}

#[test]
fn row_folds_match_lax_semantics() {
    for (len, max) in [(100usize, true), (1024, false)] {
        let rows = cases(len);
        for group in rows.chunks(6) {
            let mut data: Vec<f32> = group.concat();
            // Pad the last group with copies of its first row.
            while data.len() < 6 * len {
                data.extend_from_slice(&group[0]);
            }
            let got: Vec<f32> = if max {
                row_max(&Array::from_vec(data.clone()).unwrap()).to_vec()
            } else {
                row_min(&Array::from_vec(data.clone()).unwrap()).to_vec()
            };
            for r in 0..6 {
                let want = exact(&data[r * len..(r + 1) * len], max);
                let got = got[r * len];
                assert!(
                    same_f32(got, want),
                    "len {len} max {max} row {:?}: got {got:?}, want {want:?}",
                    &data[r * len..(r * len + 8).min((r + 1) * len)]
                );
            }
        }
    }
}

#[test]
fn whole_array_folds_match_lax_semantics() {
    for row in cases(37) {
        let got = all_min(&Array::from_vec(row.clone()).unwrap()).item();
        let want = exact(&row, false);
        assert!(
            same_f32(got, want),
            "min of {row:?}: got {got:?}, want {want:?}"
        );
    }
    for row in cases(40000) {
        let x: Vec<f64> = row.iter().map(|&v| v as f64).collect();
        let got = all_max(&Array::from_vec(x).unwrap()).item();
        let want = exact(&row, true) as f64;
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "max over 40000: got {got:?}, want {want:?}"
        );
    }
}

#[test]
fn eager_whole_array_folds_match_lax_semantics() {
    // The eager fast paths (`runtime/lax/fast.rs`) fold the same way.
    fn check(row: &[f32], got_max: f32, got_min: f32) {
        for (max, got) in [(true, got_max), (false, got_min)] {
            let want = exact(row, max);
            assert!(
                same_f32(got, want),
                "eager max {max} over {}: got {got:?}, want {want:?}",
                row.len()
            );
        }
    }
    for row in cases(40000) {
        let x = Array::<f32, 40000>::from_vec(row.clone()).unwrap();
        check(&row, x.max().item(), x.min().item());
    }
    for row in cases(37) {
        let x = Array::<f32, 37>::from_vec(row.clone()).unwrap();
        check(&row, x.max().item(), x.min().item());
    }
}
