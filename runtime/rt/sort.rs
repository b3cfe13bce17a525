//! The `sort` kernel: XLA's sort of several operands of one shape along one
//! axis, ordered by the first `num_keys` of them (lexicographically), in
//! JAX's total order: NaNs last and equal to each other, `-0.0 == 0.0`.
//! Eager `jnp::sort`/`argsort`/`lax::sort` and jitted code share it.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::element::Element;

/// Elements compared by position: one sort key (a row-major buffer).
pub trait SortKey: Sync {
    /// The order of the elements at flat positions `i` and `j`.
    fn compare(&self, i: usize, j: usize) -> Ordering;
}

/// JAX's order of two elements: NaN after everything and equal to any NaN,
/// `-0.0` equal to `0.0` (so a stable sort keeps their order).
#[inline]
pub fn total_cmp<T: Element + PartialOrd>(a: T, b: T) -> Ordering {
    #[allow(clippy::eq_op)]
    let (a_nan, b_nan) = (a != a, b != b);
    match (a_nan, b_nan) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// IEEE 754's totalOrder, as XLA's `top_k` compares: `-NaN < -inf < .. <
/// -0.0 < 0.0 < .. < inf < NaN`.
#[inline]
pub fn ieee_total_cmp<T: Element + PartialOrd>(a: T, b: T) -> Ordering {
    if T::DTYPE.is_float() {
        a.to_f64().total_cmp(&b.to_f64())
    } else {
        a.partial_cmp(&b).unwrap_or(Ordering::Equal)
    }
}

impl<T: Element + PartialOrd> SortKey for &[T] {
    #[inline]
    fn compare(&self, i: usize, j: usize) -> Ordering {
        total_cmp(self[i], self[j])
    }
}

/// Lanes of this many elements or more in all are sorted on several threads.
const PARALLEL_ELEMENTS: usize = 1 << 14;

/// For every lane along `dim` of arrays of `shape`, the order that sorts it
/// by `keys` (stable: equal keys keep their order): `perm[p]` is the flat
/// position whose element goes to flat position `p`.
///
/// # Panics
///
/// If a key's length is not the shape's size or `dim` is out of range.
pub fn permutation(keys: &[&dyn SortKey], shape: &[usize], dim: usize) -> Vec<usize> {
    assert!(dim < shape.len(), "sort: dimension {dim} out of range");
    let n = shape[dim];
    let inner: usize = shape[dim + 1..].iter().product();
    let outer: usize = shape[..dim].iter().product();
    let size = n * inner * outer;
    let lane = |l: usize| -> Vec<usize> {
        let (o, i) = (l / inner.max(1), l % inner.max(1));
        let base = o * n * inner + i;
        let mut idx: Vec<usize> = (0..n).map(|k| base + k * inner).collect();
        // `sort_by` is stable.
        idx.sort_by(|&a, &b| {
            keys.iter()
                .map(|k| k.compare(a, b))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        });
        idx
    };
    let lanes = outer * inner;
    let sorted: Vec<Vec<usize>> = if size >= PARALLEL_ELEMENTS && lanes > 1 {
        (0..lanes).into_par_iter().map(lane).collect()
    } else {
        (0..lanes).map(lane).collect()
    };
    let mut perm = vec![0usize; size];
    for (l, idx) in sorted.into_iter().enumerate() {
        let (o, i) = (l / inner.max(1), l % inner.max(1));
        let base = o * n * inner + i;
        for (k, src) in idx.into_iter().enumerate() {
            perm[base + k * inner] = src;
        }
    }
    perm
}

/// `x` rearranged by a [`permutation`]: element `p` of the result is
/// `x[perm[p]]`.
pub fn permute<T: Element>(x: &[T], perm: &[usize]) -> Vec<T> {
    perm.iter().map(|&p| x[p]).collect()
}

/// The flat positions of a [`permutation`] within their lanes (argsort's
/// indices), as `I`.
pub fn lane_positions<I: Element>(perm: &[usize], shape: &[usize], dim: usize) -> Vec<I> {
    let inner: usize = shape[dim + 1..].iter().product();
    let n = shape[dim].max(1);
    perm.iter()
        .map(|&p| I::from_value(crate::element::Value::Int(((p / inner.max(1)) % n) as i128)))
        .collect()
}

/// The `k` largest elements of every lane along `axis` (`lax.top_k`),
/// largest first in IEEE's total order (NaN largest, -NaN smallest, `0.0`
/// before `-0.0`; equal elements in their order), and their indices in the
/// lane.
///
/// # Panics
///
/// If `k` exceeds the lane length.
pub fn top_k<T: Element + PartialOrd, I: Element>(
    x: &[T],
    shape: &[usize],
    axis: usize,
    k: usize,
) -> (Vec<T>, Vec<I>) {
    let n = shape[axis];
    assert!(k <= n, "top_k: k={k} exceeds the axis length {n}");
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut values = Vec::with_capacity(outer * k * inner);
    let mut indices = Vec::with_capacity(outer * k * inner);
    values.resize(outer * k * inner, T::ZERO);
    indices.resize(outer * k * inner, I::ZERO);
    let mut idx: Vec<usize> = Vec::with_capacity(n);
    for o in 0..outer {
        for i in 0..inner {
            let at = |m: usize| (o * n + m) * inner + i;
            idx.clear();
            idx.extend(0..n);
            // Stable, descending: equal elements keep their order.
            idx.sort_by(|&a, &b| ieee_total_cmp(x[at(b)], x[at(a)]));
            for (j, &m) in idx[..k].iter().enumerate() {
                let to = (o * k + j) * inner + i;
                values[to] = x[at(m)];
                indices[to] = I::from_value(crate::element::Value::Int(m as i128));
            }
        }
    }
    (values, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_last_and_signed_zeros_equal() {
        let x = [
            0.0f32,
            -0.0,
            f32::NAN,
            f32::NEG_INFINITY,
            1.0,
            -f32::NAN,
            0.0,
            -0.0,
        ];
        let perm = permutation(&[&&x[..]], &[8], 0);
        assert_eq!(perm, [3, 0, 1, 6, 7, 4, 2, 5]);
    }

    #[test]
    fn along_the_first_axis_with_a_second_key() {
        // Columns sorted by the first key, ties by the second.
        let k0 = [1i32, 0, 1, 0];
        let k1 = [5i32, 9, 2, 3];
        let perm = permutation(&[&&k0[..], &&k1[..]], &[2, 2], 0);
        assert_eq!(perm, [2, 3, 0, 1]);
        assert_eq!(lane_positions::<i32>(&perm, &[2, 2], 0), [1, 1, 0, 0]);
    }
}
