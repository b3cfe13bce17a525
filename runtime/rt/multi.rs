//! Loops writing several outputs in one pass: the compiler's multi-output
//! loops (XLA's sibling fusion), such as adam's `mu'`, `nu'` and `p'` of one
//! parameter computed and stored together, each input read once.

use super::par::{dispatch3, Level};

/// [`for_each_chunks3`] with one body for every level: a debug build's
/// generated code (see [`__per_level`](crate::__per_level)).
#[inline]
pub fn for_each_chunks1<T, F>(outs: &mut [&mut [T]], grain: usize, f: F)
where
    T: Send,
    F: Fn((usize, &mut [&mut [T]])) + Sync,
{
    for_each_chunks3(outs, grain, &f, &f, &f)
}

/// Fills the equal-length `outs` by calling `f((start, chunks))` on
/// consecutive chunks of `grain` elements, where `chunks[k]` is
/// `outs[k][start..start + len]` (the last chunk may be shorter). Runs on
/// the team's threads when there are at least two chunks, each chunk through
/// the body compiled for the CPU's SIMD level (see `par::dispatch3`).
///
/// ```
/// let x: Vec<f32> = (0..10_000).map(|i| i as f32).collect();
/// let (mut a, mut b) = (vec![0.0f32; x.len()], vec![0.0f32; x.len()]);
/// let body = |(start, outs): (usize, &mut [&mut [f32]])| {
///     let [a, b] = outs else { unreachable!() };
///     for i in 0..a.len() {
///         a[i] = x[start + i] * 2.0;
///         b[i] = a[i] + 1.0;
///     }
/// };
/// jax::__rt::multi::for_each_chunks3(&mut [&mut a[..], &mut b[..]], 1024, body, body, body);
/// assert_eq!((a[9_999], b[9_999]), (19_998.0, 19_999.0));
/// ```
#[inline]
pub fn for_each_chunks3<T, F0, F1, F2>(outs: &mut [&mut [T]], grain: usize, f0: F0, f1: F1, f2: F2)
where
    T: Send,
    F0: Fn((usize, &mut [&mut [T]])) + Sync,
    F1: Fn((usize, &mut [&mut [T]])) + Sync,
    F2: Fn((usize, &mut [&mut [T]])) + Sync,
{
    let grain = grain.max(1);
    let level = Level::current();
    let n = outs.first().map_or(0, |o| o.len());
    assert!(
        outs.iter().all(|o| o.len() == n),
        "internal error: outputs of one loop differ in length"
    );
    let chunks = n.div_ceil(grain);
    if chunks < 2 || super::team::threads() <= 1 {
        dispatch3(level, &f0, &f1, &f2, (0, outs));
        return;
    }
    let mut per: Vec<Vec<&mut [T]>> = (0..chunks)
        .map(|_| Vec::with_capacity(outs.len()))
        .collect();
    for o in outs.iter_mut() {
        for (k, c) in o.chunks_mut(grain).enumerate() {
            per[k].push(c);
        }
    }
    super::team::for_chunks(&mut per, 1, &|k, c| {
        dispatch3(level, &f0, &f1, &f2, (k * grain, &mut c[0][..]))
    });
}
