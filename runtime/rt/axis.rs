//! Folds along axes, for jitted reductions whose result is an array and for
//! the eager fast paths (`lax/fast.rs`), which share these orders so
//! eager and jitted calls give the same bits. With `x` seen as `outer × len ×
//! inner` (row-major; the reduced axes are the middle group):
//!
//! - `inner == 1` (the reduced axes are the trailing ones): each result is
//!   the fold of a contiguous row of `len` elements in the order of a jitted
//!   whole-array fold ([`chunked_fold`]: chunks of [`par::REDUCE_CHUNK`],
//!   each folded in [`par::LANES`] lanes by [`par::fold_lanes`], partials
//!   combined left to right). Row programs fold their rows the same way.
//! - otherwise: each result is folded left to right over the `len` elements,
//!   vectorized across `inner` neighbouring results (whole rows of `inner`
//!   accumulators, the form that vectorizes without reassociating).
//!
//! Both split the results (never one result) over threads, so the result does
//! not depend on the thread count, and run each chunk compiled for the best
//! SIMD level (three copies of the body, see [`par::dispatch3`]).

// Lane loops index the accumulators and a block at once (the form that vectorizes).
#![allow(clippy::needless_range_loop)]

use super::par;

/// The fold of `value(0..n)` in the order of a jitted whole-array fold:
/// chunks of [`par::REDUCE_CHUNK`] folded by [`par::fold_lanes`], the
/// partials combined left to right (the order of [`par::reduce`], on this
/// thread).
///
/// ```
/// use jax::__rt::axis::chunked_fold;
/// let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
/// assert_eq!(chunked_fold(x.len(), 0.0, |i| x[i], |a, b| a + b), 499_500.0);
/// ```
#[inline(always)]
pub fn chunked_fold<T: Copy>(
    n: usize,
    id: T,
    value: impl Fn(usize) -> T,
    c: impl Fn(T, T) -> T,
) -> T {
    let mut start = 0;
    let mut acc: Option<T> = None;
    loop {
        let end = (start + par::REDUCE_CHUNK).min(n);
        let p = par::fold_lanes(end - start, id, |i| value(start + i), &c);
        acc = Some(match acc {
            None => p,
            Some(a) => c(a, p),
        });
        start = end;
        if start >= n {
            return acc.expect("one chunk at least");
        }
    }
}

/// The fold of `f(s[0]), ..., f(s[n - 1])` in [`chunked_fold`]'s order
/// (the same bits), for a slice: each block of [`par::LANES`] elements is
/// re-cut to exactly `LANES`, so the lanes need no bounds checks and stay in
/// registers (with an index closure they were a stack array, stored and
/// reloaded every step: 3x slower).
///
/// ```
/// use jax::__rt::axis::{chunked_fold, fold_slice};
/// let x: Vec<f32> = (0..1000).map(|i| (i as f32).sin()).collect();
/// let a = fold_slice(&x, 0.0, |v| v, |a, b| a + b);
/// assert_eq!(a, chunked_fold(x.len(), 0.0, |i| x[i], |a, b| a + b));
/// ```
#[inline(always)]
pub fn fold_slice<T: Copy, U: Copy>(
    s: &[U],
    id: T,
    f: impl Fn(U) -> T,
    c: impl Fn(T, T) -> T,
) -> T {
    let mut start = 0;
    let mut acc: Option<T> = None;
    loop {
        let end = (start + par::REDUCE_CHUNK).min(s.len());
        let p = lanes_of_slice(&s[start..end], id, &f, &c);
        acc = Some(match acc {
            None => p,
            Some(a) => c(a, p),
        });
        start = end;
        if start >= s.len() {
            return acc.expect("one chunk at least");
        }
    }
}

/// [`fold_slice`] of a float slice with `lax.max` (`max`) or `lax.min`, the
/// way jitted folds run it (`backend/emit/reduce.rs`): one `maxps`/`minps`
/// per block and a NaN flag per lane, and the exact fold only when that
/// result could differ (`ops::needs_exact_fold`). The same bits as
/// `fold_slice(s, id, |v| v, ops::max)`.
///
/// ```
/// use jax::__rt::axis::{extreme_of_slice, fold_slice};
/// use jax::__rt::ops;
/// let x = [3.0f32, -0.0, 0.0, f32::NAN, 7.5];
/// for n in 0..=x.len() {
///     let (a, b) = (extreme_of_slice(&x[..n], true), fold_slice(&x[..n], f32::NEG_INFINITY, |v| v, ops::max));
///     assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
/// }
/// ```
#[inline(always)]
pub fn extreme_of_slice<T: crate::ops::Arith + crate::__rt::identity::Extremes>(
    s: &[T],
    max: bool,
) -> T {
    use crate::__rt::ops;
    type Combine<T> = fn(T, T) -> T;
    let (id, fast, exact): (T, Combine<T>, Combine<T>) = if max {
        (T::LOWEST, ops::max_unordered::<T>, ops::max::<T>)
    } else {
        (T::HIGHEST, ops::min_unordered::<T>, ops::min::<T>)
    };
    let mut acc = [id; par::LANES];
    let mut nan = [false; par::LANES];
    let mut base = 0;
    while base + par::LANES <= s.len() {
        let b = &s[base..base + par::LANES];
        acc = std::array::from_fn(|l| fast(acc[l], b[l]));
        nan = std::array::from_fn(|l| nan[l] | ops::is_nan(b[l]));
        base += par::LANES;
    }
    for (l, &v) in s[base..].iter().enumerate() {
        acc[l] = fast(acc[l], v);
        nan[l] |= ops::is_nan(v);
    }
    let r = acc.iter().fold(id, |a, &b| fast(a, b));
    if ops::needs_exact_fold(r, nan.iter().any(|&n| n)) {
        fold_slice(s, id, |v| v, exact)
    } else {
        r
    }
}

/// [`par::fold_lanes`] over `f` of a slice, blocks re-cut to `LANES`.
#[inline(always)]
fn lanes_of_slice<T: Copy, U: Copy>(
    s: &[U],
    id: T,
    f: &impl Fn(U) -> T,
    c: &impl Fn(T, T) -> T,
) -> T {
    let mut acc = [id; par::LANES];
    let mut base = 0;
    while base + par::LANES <= s.len() {
        let b = &s[base..base + par::LANES];
        // Rebuilt by value: the lanes stay in registers (see `fold_lanes`).
        acc = std::array::from_fn(|l| c(acc[l], f(b[l])));
        base += par::LANES;
    }
    let b = &s[base..];
    for l in 0..b.len() {
        acc[l] = c(acc[l], f(b[l]));
    }
    let mut width = par::LANES / 2;
    while width > 0 {
        for l in 0..width {
            acc[l] = c(acc[l], acc[l + width]);
        }
        width /= 2;
    }
    acc[0]
}

/// The same closure expression three times: three closure types, each with
/// one caller, so each is inlined into its SIMD level's function.
macro_rules! three {
    ($f:expr) => {
        ($f, $f, $f)
    };
}
pub(crate) use three;

/// Folds each of the `rows` contiguous rows of `len` elements of `x` with
/// `combine` from `id` ([`chunked_fold`]'s order). `threads`: whether rows
/// may be split over rayon's threads (the result is the same either way).
///
/// ```
/// use jax::__rt::axis::fold_rows;
/// let x = vec![1.0f32; 3 * 100];
/// assert_eq!(fold_rows(&x, 3, 100, 0.0, |a, b| a + b, true), vec![100.0; 3]);
/// ```
#[inline]
pub fn fold_rows<T, C>(x: &[T], rows: usize, len: usize, id: T, combine: C, threads: bool) -> Vec<T>
where
    T: crate::element::Element + Send + Sync,
    C: Fn(T, T) -> T + Sync + Copy,
{
    assert_eq!(x.len(), rows * len, "fold_rows: x is not rows × len");
    let mut out = super::buffer::<T>(rows);
    if len == 0 {
        out.fill(id);
        return out;
    }
    let per_chunk = if threads {
        par::rows_per_chunk(len)
    } else {
        rows.max(1)
    };
    let (f0, f1, f2) = three!(|(row0, o): (usize, &mut [T])| {
        for (r, o) in o.iter_mut().enumerate() {
            let row = &x[(row0 + r) * len..(row0 + r + 1) * len];
            // The next row, asked for now: a row of a page starts on a page
            // the hardware prefetcher has not seen (`sum(x, -1)` over
            // 4096 × 1024 f32: 1.13× on the Intel Xeon).
            par::prefetch_row(x, (row0 + r + 1) * len, len);
            *o = fold_slice(row, id, |v| v, combine);
        }
    });
    par::for_each_rows3(&mut out, 1, per_chunk, f0, f1, f2);
    out
}

/// Folds `x` (`outer × len × inner`, row-major) along the middle axis into
/// `outer × inner` results, each left to right from `id`, vectorized across
/// neighbouring results. `threads` as in [`fold_rows`].
///
/// ```
/// use jax::__rt::axis::fold_middle;
/// // Column sums of a 4 x 3 matrix.
/// let x: Vec<f32> = (0..12).map(|i| i as f32).collect();
/// assert_eq!(fold_middle(&x, 1, 4, 3, 0.0, |a, b| a + b, true), vec![18.0, 22.0, 26.0]);
/// ```
#[inline]
pub fn fold_middle<T, C>(
    x: &[T],
    outer: usize,
    len: usize,
    inner: usize,
    id: T,
    combine: C,
    threads: bool,
) -> Vec<T>
where
    T: crate::element::Element + Send + Sync,
    C: Fn(T, T) -> T + Sync + Copy,
{
    assert_eq!(
        x.len(),
        outer * len * inner,
        "fold_middle: x is not outer × len × inner"
    );
    let mut out = super::buffer::<T>(outer * inner);
    if out.is_empty() {
        return out;
    }
    let g = if threads {
        par::grain(len.max(1)).clamp(1, out.len())
    } else {
        out.len()
    };
    let (f0, f1, f2) = three!(|(start, chunk): (usize, &mut [T])| {
        let mut j = 0;
        while j < chunk.len() {
            let (o, k0) = ((start + j) / inner, (start + j) % inner);
            let seg = (inner - k0).min(chunk.len() - j);
            let acc = &mut chunk[j..j + seg];
            acc.fill(id);
            let base = o * len * inner + k0;
            for i in 0..len {
                let row = &x[base + i * inner..base + i * inner + seg];
                for (a, &v) in acc.iter_mut().zip(row) {
                    *a = combine(*a, v);
                }
            }
            j += seg;
        }
    });
    par::for_each_chunk3(&mut out, g, f0, f1, f2);
    out
}
