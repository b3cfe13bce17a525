//! Kernels that move elements to new places, `pad` and `rev`, on row-major
//! data (the eager `lax::pad` runs the same `pad`), `tile`, and `iota`.

use crate::element::Element;
use crate::shape;

/// `lax.pad`: per axis `(lo, hi, interior)` elements of `value` before,
/// after and between the elements of `x` (negative edges crop).
pub fn pad<T: Element>(x: &[T], src: &[usize], config: &[(i64, i64, i64)], value: T) -> Vec<T> {
    let out: Vec<usize> = src
        .iter()
        .zip(config)
        .map(|(&n, &(lo, hi, interior))| {
            let n = n as i64;
            (lo + hi + n + (n - 1).max(0) * interior).max(0) as usize
        })
        .collect();
    let src_strides = shape::strides(src);
    let out_strides = shape::strides(&out);
    let size: usize = out.iter().product();
    (0..size)
        .map(|o| {
            let mut off = 0;
            let mut rem = o;
            for k in 0..src.len() {
                let i = (rem / out_strides[k]) as i64;
                rem %= out_strides[k];
                let (lo, _, interior) = config[k];
                let j = i - lo;
                if j < 0 || j % (interior + 1) != 0 || j / (interior + 1) >= src[k] as i64 {
                    return value;
                }
                off += (j / (interior + 1)) as usize * src_strides[k];
            }
            x[off]
        })
        .collect()
}

/// `lax.rev`: the order of elements along `dims` reversed.
pub fn rev<T: Element>(x: &[T], src: &[usize], dims: &[usize]) -> Vec<T> {
    let strides = shape::strides(src);
    (0..x.len())
        .map(|o| {
            let mut off = 0;
            for k in 0..src.len() {
                let i = o / strides[k] % src[k];
                let i = if dims.contains(&k) { src[k] - 1 - i } else { i };
                off += i * strides[k];
            }
            x[off]
        })
        .collect()
}

/// `lax.broadcasted_iota`: each element's index along `dimension`.
pub fn iota<T: Element>(shape: &[usize], dimension: usize) -> Vec<T> {
    // Runs of `inner` equal values, `0..n` in turn, repeated: one value
    // conversion per index, not a division and a conversion per element
    // (this is the mask of `tril`/`triu` in every jitted Cholesky).
    let size: usize = shape.iter().product();
    let n = shape[dimension];
    let inner: usize = shape[dimension + 1..].iter().product();
    let values: Vec<T> = (0..n)
        .map(|k| T::from_value(crate::element::Value::Int(k as i128)))
        .collect();
    let mut out = Vec::with_capacity(size);
    if size == 0 {
        return out;
    }
    while out.len() < size {
        for v in &values {
            out.extend(std::iter::repeat_n(*v, inner));
        }
    }
    out
}

/// `lax.tile`: `x` repeated `reps[k]` times along axis `k` (same rank).
pub fn tile<T: Element>(x: &[T], src: &[usize], reps: &[usize]) -> Vec<T> {
    let out: Vec<usize> = src.iter().zip(reps).map(|(n, r)| n * r).collect();
    let src_strides = shape::strides(src);
    let out_strides = shape::strides(&out);
    let size: usize = out.iter().product();
    (0..size)
        .map(|o| {
            let off: usize = (0..src.len())
                .map(|k| (o / out_strides[k] % out[k]) % src[k] * src_strides[k])
                .sum();
            x[off]
        })
        .collect()
}

/// Joins row-major arrays (data and shape) along `axis`; their other
/// dimensions match.
pub fn concatenate_raw<T: Copy>(parts: &[(&[usize], &[T])], axis: usize) -> Vec<T> {
    let outer: usize = parts[0].0[..axis].iter().product();
    let chunks: Vec<usize> = parts
        .iter()
        .map(|(s, _)| s[axis..].iter().product())
        .collect();
    let mut data = Vec::with_capacity(parts.iter().map(|(_, d)| d.len()).sum());
    if chunks.iter().all(|&c| c == 1) {
        // One element of each part per outer position (stacking index
        // components into the last axis): no copy call per element.
        for o in 0..outer {
            data.extend(parts.iter().map(|(_, d)| d[o]));
        }
        return data;
    }
    for o in 0..outer {
        for ((_, d), &chunk) in parts.iter().zip(&chunks) {
            data.extend_from_slice(&d[o * chunk..(o + 1) * chunk]);
        }
    }
    data
}

#[cfg(test)]
mod iota_tests {
    use super::iota;

    #[test]
    fn iota_is_the_index_along_its_axis() {
        // Each element's index along `dimension`, from its row-major offset.
        for shape in [vec![3usize, 4, 2], vec![5], vec![2, 0, 3], vec![1, 6]] {
            let strides = crate::shape::strides(&shape);
            let size: usize = shape.iter().product();
            for d in 0..shape.len() {
                let got = iota::<i32>(&shape, d);
                let want: Vec<i32> = (0..size)
                    .map(|o| (o / strides[d] % shape[d]) as i32)
                    .collect();
                assert_eq!(got, want, "shape {shape:?} dimension {d}");
            }
        }
        assert_eq!(iota::<f32>(&[2, 2], 1), [0.0, 1.0, 0.0, 1.0]);
    }
}
