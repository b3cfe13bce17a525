//! Kernels that are calls, not fused loops: contractions through
//! `matrixmultiply`, concatenation, arg-reductions.

use crate::element::{bf16, f16, Element};

use super::ops::Arith;

/// Element types that can be multiplied as matrices.
pub trait Gemm: Arith {
    /// `c[b, i, j] = sum_k a[b, i, k] * b[b, k, j]` for one batch entry,
    /// with row and column strides (in elements) for each operand.
    #[allow(clippy::too_many_arguments)]
    fn gemm(m: usize, k: usize, n: usize, a: &[Self], rsa: usize, csa: usize, b: &[Self], rsb: usize, csb: usize, c: &mut [Self]);
}

/// Checks that every element a strided `rows × cols` matrix touches lies in `len`.
fn fits(len: usize, rows: usize, cols: usize, rs: usize, cs: usize) -> bool {
    rows == 0 || cols == 0 || (rows - 1) * rs + (cols - 1) * cs < len
}

macro_rules! mm_gemm {
    ($t:ty, $f:path) => {
        impl Gemm for $t {
            fn gemm(m: usize, k: usize, n: usize, a: &[Self], rsa: usize, csa: usize, b: &[Self], rsb: usize, csb: usize, c: &mut [Self]) {
                assert!(fits(a.len(), m, k, rsa, csa) && fits(b.len(), k, n, rsb, csb) && c.len() >= m * n);
                if m == 0 || n == 0 {
                    return;
                }
                if k == 0 {
                    c[..m * n].iter_mut().for_each(|x| *x = 0.0);
                    return;
                }
                // SAFETY: the assertion above shows that every element the
                // strided operands and the m×n output address is in bounds,
                // and `c` does not alias `a` or `b` (it is a `&mut`).
                unsafe {
                    $f(
                        m, k, n, 1.0,
                        a.as_ptr(), rsa as isize, csa as isize,
                        b.as_ptr(), rsb as isize, csb as isize,
                        0.0,
                        c.as_mut_ptr(), n as isize, 1,
                    );
                }
            }
        }
    };
}
mm_gemm!(f32, matrixmultiply::sgemm);
mm_gemm!(f64, matrixmultiply::dgemm);

// Other types: a plain loop; half types accumulate in f32 and round once.
macro_rules! loop_gemm {
    ($($t:ty => $acc:ty, $to:expr, $from:expr;)*) => {$(
        impl Gemm for $t {
            fn gemm(m: usize, k: usize, n: usize, a: &[Self], rsa: usize, csa: usize, b: &[Self], rsb: usize, csb: usize, c: &mut [Self]) {
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = <$acc as Element>::ZERO;
                        for p in 0..k {
                            let x: $acc = ($to)(a[i * rsa + p * csa]);
                            let y: $acc = ($to)(b[p * rsb + j * csb]);
                            acc = <$acc as Arith>::add(acc, <$acc as Arith>::mul(x, y));
                        }
                        c[i * n + j] = ($from)(acc);
                    }
                }
            }
        }
    )*};
}
loop_gemm! {
    bool => bool, |x| x, |x| x;
    u8 => u8, |x| x, |x| x;
    u16 => u16, |x| x, |x| x;
    u32 => u32, |x| x, |x| x;
    u64 => u64, |x| x, |x| x;
    i8 => i8, |x| x, |x| x;
    i16 => i16, |x| x, |x| x;
    i32 => i32, |x| x, |x| x;
    i64 => i64, |x| x, |x| x;
    f16 => f32, f16::to_f32, f16::from_f32;
    bf16 => f32, bf16::to_f32, bf16::from_f32;
}

fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1];
    }
    s
}

/// The stride that walks a group of axes as one, when they are adjacent and
/// in order (then the group is a single strided axis); 0 for no axes.
fn group_stride(shape: &[usize], strides: &[usize], axes: &[usize]) -> Option<usize> {
    if axes.is_empty() {
        return Some(0);
    }
    if axes.windows(2).all(|w| w[1] == w[0] + 1) {
        Some(strides[*axes.last().unwrap()])
    } else {
        let _ = shape;
        None
    }
}

/// Copies `x` into row-major order of its axes permuted by `perm`.
fn permuted<T: Element>(x: &[T], shape: &[usize], perm: &[usize]) -> Vec<T> {
    let strides = row_major_strides(shape);
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let n: usize = out_shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; perm.len()];
    for _ in 0..n {
        let off: usize = idx.iter().zip(perm).map(|(i, &p)| i * strides[p]).sum();
        out.push(x[off]);
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < out_shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// One operand as `[batch, rows, cols]` with strides, copying only when its
/// axis groups are not already adjacent.
struct Operand<'a, T: Clone> {
    data: std::borrow::Cow<'a, [T]>,
    batch_stride: usize,
    rs: usize,
    cs: usize,
}

fn operand<'a, T: Element>(x: &'a [T], shape: &[usize], batch: &[usize], rows: &[usize], cols: &[usize]) -> Operand<'a, T> {
    let strides = row_major_strides(shape);
    let groups = (
        group_stride(shape, &strides, batch),
        group_stride(shape, &strides, rows),
        group_stride(shape, &strides, cols),
    );
    if let (Some(b), Some(r), Some(c)) = groups {
        return Operand {
            data: std::borrow::Cow::Borrowed(x),
            batch_stride: b,
            rs: r,
            cs: c,
        };
    }
    let perm: Vec<usize> = batch.iter().chain(rows).chain(cols).copied().collect();
    let data = permuted(x, shape, &perm);
    let size = |axes: &[usize]| axes.iter().map(|&a| shape[a]).product::<usize>();
    let (nr, nc) = (size(rows), size(cols));
    Operand {
        data: std::borrow::Cow::Owned(data),
        batch_stride: nr * nc,
        rs: nc,
        cs: 1,
    }
}

/// `lax.dot_general`: the result has the batch axes, then the free axes of
/// the left operand, then those of the right, in row-major order.
#[allow(clippy::too_many_arguments)]
pub fn dot_general<T: Gemm>(
    lhs: &[T],
    lshape: &[usize],
    rhs: &[T],
    rshape: &[usize],
    lc: &[usize],
    rc: &[usize],
    lb: &[usize],
    rb: &[usize],
) -> Vec<T> {
    let free = |rank: usize, c: &[usize], b: &[usize]| -> Vec<usize> {
        (0..rank).filter(|a| !c.contains(a) && !b.contains(a)).collect()
    };
    let (lf, rf) = (free(lshape.len(), lc, lb), free(rshape.len(), rc, rb));
    let size = |shape: &[usize], axes: &[usize]| axes.iter().map(|&a| shape[a]).product::<usize>();
    let (nb, m, k, n) = (size(lshape, lb), size(lshape, &lf), size(lshape, lc), size(rshape, &rf));
    let a = operand(lhs, lshape, lb, &lf, lc);
    let b = operand(rhs, rshape, rb, rc, &rf);
    let mut out = vec![T::ZERO; nb * m * n];
    for batch in 0..nb {
        let (ao, bo) = (batch * a.batch_stride, batch * b.batch_stride);
        T::gemm(
            m,
            k,
            n,
            &a.data[ao..],
            a.rs,
            a.cs,
            &b.data[bo..],
            b.rs,
            b.cs,
            &mut out[batch * m * n..(batch + 1) * m * n],
        );
    }
    out
}

/// Joins row-major arrays along `axis`.
pub fn concatenate<T: Element>(parts: &[(&[T], &[usize])], axis: usize) -> Vec<T> {
    let outer: usize = parts[0].1[..axis].iter().product();
    let total: usize = parts.iter().map(|(d, _)| d.len()).sum();
    let mut out = Vec::with_capacity(total);
    for o in 0..outer {
        for (data, shape) in parts {
            let chunk: usize = shape[axis..].iter().product();
            out.extend_from_slice(&data[o * chunk..(o + 1) * chunk]);
        }
    }
    out
}

/// Whether `a` beats the best so far `b` for argmax (`greater`) or argmin;
/// NaN beats everything and the first of equals stays.
fn better<T: Element>(a: T, b: T, greater: bool) -> bool {
    #[allow(clippy::eq_op)]
    let (a_nan, b_nan) = (a != a, b != b);
    if b_nan {
        return false;
    }
    if a_nan {
        return true;
    }
    if greater {
        a > b
    } else {
        a < b
    }
}

fn arg_reduce<T: Element, I: Element>(x: &[T], shape: &[usize], axis: usize, greater: bool) -> Vec<I> {
    let outer: usize = shape[..axis].iter().product();
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let base = o * len * inner + i;
            let mut best = 0usize;
            for j in 1..len {
                if better(x[base + j * inner], x[base + best * inner], greater) {
                    best = j;
                }
            }
            out.push(I::from_value(crate::element::Value::Int(best as i128)));
        }
    }
    out
}

/// The index of the largest element along `axis` (NaN counts as largest; first of equals).
pub fn argmax<T: Element, I: Element>(x: &[T], shape: &[usize], axis: usize) -> Vec<I> {
    arg_reduce(x, shape, axis, true)
}

/// The index of the smallest element along `axis` (NaN counts as smallest; first of equals).
pub fn argmin<T: Element, I: Element>(x: &[T], shape: &[usize], axis: usize) -> Vec<I> {
    arg_reduce(x, shape, axis, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    #[test]
    fn matmul_and_transposed_operands() {
        let a: Vec<f32> = (0..6).map(|x| x as f32).collect(); // 2x3
        let b: Vec<f32> = (0..12).map(|x| x as f32 * 0.5).collect(); // 3x4
        let c = dot_general(&a, &[2, 3], &b, &[3, 4], &[1], &[0], &[], &[]);
        assert_eq!(c, naive(&a, &b, 2, 3, 4));
        // a^T a: contract axis 0 of both.
        let ata = dot_general(&a, &[2, 3], &a, &[2, 3], &[0], &[0], &[], &[]);
        let at = permuted(&a, &[2, 3], &[1, 0]);
        assert_eq!(ata, naive(&at, &a, 3, 2, 3));
        // Integer matmul through the loop kernel.
        let ai: Vec<i32> = (0..6).collect();
        let ci = dot_general(&ai, &[2, 3], &ai, &[3, 2], &[1], &[0], &[], &[]);
        assert_eq!(ci, vec![10, 13, 28, 40]);
    }

    #[test]
    fn batched_matmul() {
        let a: Vec<f64> = (0..12).map(|x| x as f64).collect(); // 2x2x3
        let b: Vec<f64> = (0..12).map(|x| x as f64).collect(); // 2x3x2
        let c = dot_general(&a, &[2, 2, 3], &b, &[2, 3, 2], &[2], &[1], &[0], &[0]);
        for batch in 0..2 {
            let ab: Vec<f32> = a[batch * 6..][..6].iter().map(|&x| x as f32).collect();
            let bb: Vec<f32> = b[batch * 6..][..6].iter().map(|&x| x as f32).collect();
            let want = naive(&ab, &bb, 2, 3, 2);
            let got: Vec<f32> = c[batch * 4..][..4].iter().map(|&x| x as f32).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn argmax_takes_nan_and_first_of_ties() {
        let x = [1.0f32, f32::NAN, 3.0, 3.0];
        assert_eq!(argmax::<f32, i32>(&x, &[4], 0), vec![1]);
        let y = [2.0f32, 1.0, 1.0, 0.0, 0.0];
        assert_eq!(argmin::<f32, i32>(&y, &[5], 0), vec![3]);
    }

    #[test]
    fn concatenation_along_inner_axis() {
        let a = [1, 2, 3, 4];
        let b = [5, 6];
        let c = concatenate(&[(&a[..], &[2, 2][..]), (&b[..], &[2, 1][..])], 1);
        assert_eq!(c, vec![1, 2, 5, 3, 4, 6]);
    }
}
