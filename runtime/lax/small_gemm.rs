//! Small matrix products without packing or threads: the loop-body `W h`,
//! outer products and matrix-vector products that gemm's packing and thread
//! dispatch would cost more than. A child module of `dot` (declared there).

use super::{same_slice, same_slice_mut, Element, Mat};

/// Products up to this many multiply-adds skip gemm: 32^3 measured as the
/// size where `sgemm`'s packing starts to pay.
pub(crate) const SMALL_PRODUCT: usize = 1 << 15;

/// The floats [`small_gemm_as`] runs on.
pub(crate) trait Real:
    Element + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
    /// `acc + x * y` with one rounding: an FMA instruction at the AVX2 and
    /// AVX-512 levels, libm's at the baseline, so the same bits at each.
    fn fma(acc: Self, x: Self, y: Self) -> Self;
}
impl Real for f32 {
    #[inline(always)]
    fn fma(acc: f32, x: f32, y: f32) -> f32 {
        x.mul_add(y, acc)
    }
}
impl Real for f64 {
    #[inline(always)]
    fn fma(acc: f64, x: f64, y: f64) -> f64 {
        x.mul_add(y, acc)
    }
}

/// `a (m×k) · b (k×n)` without packing or threads, when `T` is the float
/// `U`, compiled for the CPU's SIMD level. The inner loop runs along memory
/// that is contiguous:
/// - rows of `b` (`c[i, :] += a[i, p] * b[p, :]`): `x^T W`, outer products;
/// - columns of `a` with `n == 1` (`c += a[:, p] * b[p]`): `W^T x`;
/// - otherwise dot products along `p`, in 16 partial sums (`W x`).
pub(crate) fn small_gemm_as<T: Element, U: Real>(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<'_, T>,
    b: Mat<'_, T>,
) -> Option<Vec<T>> {
    same_slice::<T, U>(a.data)?;
    let mut c: Vec<T> = crate::__rt::buffer(m * n);
    small_gemm_into_as::<T, U>(m, k, n, a, b, &mut c).then_some(c)
}

/// [`small_gemm_as`] written into `c` (row-major `m×n`); false, leaving `c`
/// alone, unless `T` is `U`.
pub(crate) fn small_gemm_into_as<T: Element, U: Real>(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<'_, T>,
    b: Mat<'_, T>,
    c: &mut [T],
) -> bool {
    let (Some(a), Some(b), Some(c)) = (
        as_float::<T, U>(a),
        as_float::<T, U>(b),
        same_slice_mut::<T, U>(c),
    ) else {
        return false;
    };
    small_gemm_dispatched(m, k, n, a, b, c);
    true
}

/// `x` as a matrix of `U`, when `T` is `U`.
fn as_float<T: Element, U: Real>(x: Mat<'_, T>) -> Option<Mat<'_, U>> {
    same_slice::<T, U>(x.data).map(|data| Mat {
        data,
        rs: x.rs,
        cs: x.cs,
    })
}

/// [`small_gemm_into`] at the CPU's SIMD level.
fn small_gemm_dispatched<T: Real>(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<'_, T>,
    b: Mat<'_, T>,
    c: &mut [T],
) {
    // One closure per SIMD level, each inlined into its level's copy.
    use crate::__rt::par::{dispatch3, Level};
    dispatch3(
        Level::current(),
        &|c: &mut [T]| small_gemm_into(m, k, n, a, b, c),
        &|c: &mut [T]| small_gemm_into(m, k, n, a, b, c),
        &|c: &mut [T]| small_gemm_into(m, k, n, a, b, c),
        c,
    );
}

#[inline(always)]
fn small_gemm_into<T: Real>(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<'_, T>,
    b: Mat<'_, T>,
    c: &mut [T],
) {
    {
        let at = |i: usize, p: usize| a.data[i * a.rs + p * a.cs];
        if b.cs == 1 && n > 1 {
            for i in 0..m {
                let row = &mut c[i * n..(i + 1) * n];
                sum_of_scaled_rows(k, |p| at(i, p), b.data, b.rs, row);
            }
        } else if a.rs == 1 && n == 1 {
            sum_of_scaled_rows(k, |p| b.data[p * b.rs], a.data, a.cs, c);
        } else {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = [T::ZERO; 16];
                    let mut p = 0;
                    if a.cs == 1 && b.rs == 1 {
                        let ar = &a.data[i * a.rs..i * a.rs + k];
                        let bc = &b.data[j * b.cs..j * b.cs + k];
                        for (x, y) in ar.chunks_exact(16).zip(bc.chunks_exact(16)) {
                            for l in 0..16 {
                                acc[l] = T::fma(acc[l], x[l], y[l]);
                            }
                        }
                        p = k - k % 16;
                    }
                    let mut s = T::ZERO;
                    for v in acc {
                        s = s + v;
                    }
                    for q in p..k {
                        s = T::fma(s, at(i, q), b.data[q * b.rs + j * b.cs]);
                    }
                    c[i * n + j] = s;
                }
            }
        }
    }
}

/// `out = Σ_p scale(p) · rows[p * stride..][..out.len()]`, `p < k`. Blocks
/// of 64 sums stay in registers, in two sets taking alternate `p`: a sum
/// stored and reloaded every step, or one long chain of dependent adds,
/// would set the pace instead of the multiplies.
#[inline(always)]
fn sum_of_scaled_rows<T: Real>(
    k: usize,
    scale: impl Fn(usize) -> T,
    rows: &[T],
    stride: usize,
    out: &mut [T],
) {
    const B: usize = 64;
    let len = out.len();
    let mut j0 = 0;
    while j0 + B <= len {
        let (mut even, mut odd) = ([T::ZERO; B], [T::ZERO; B]);
        let row = |p: usize| -> &[T] { &rows[p * stride + j0..p * stride + j0 + B] };
        let mut p = 0;
        while p + 2 <= k {
            let (s0, s1) = (scale(p), scale(p + 1));
            let (r0, r1) = (row(p), row(p + 1));
            for l in 0..B {
                even[l] = T::fma(even[l], r0[l], s0);
                odd[l] = T::fma(odd[l], r1[l], s1);
            }
            p += 2;
        }
        if p < k {
            let (s0, r0) = (scale(p), row(p));
            for l in 0..B {
                even[l] = T::fma(even[l], r0[l], s0);
            }
        }
        for (l, o) in out[j0..j0 + B].iter_mut().enumerate() {
            *o = even[l] + odd[l];
        }
        j0 += B;
    }
    if j0 < len {
        let tail = &mut out[j0..];
        tail.fill(T::ZERO);
        for p in 0..k {
            let s = scale(p);
            let r = &rows[p * stride + j0..p * stride + len];
            for (o, &x) in tail.iter_mut().zip(r) {
                *o = T::fma(*o, x, s);
            }
        }
    }
}

/// `out[i] = Σ_p a[p * out.len() + i] · v[p]` for `p < v.len()`: the loop
/// [`small_gemm_as`] runs for this matrix-vector product (`a.rs == 1`, `n ==
/// 1`), so the same sums in the same order; inlined, for a loop body that
/// dispatches its whole loop once (see `__rt::ops::matvec_f32`).
#[inline(always)]
pub(crate) fn matvec_cols<T: Real>(a: &[T], v: &[T], out: &mut [T]) {
    let (k, m) = (v.len(), out.len());
    assert!(a.len() >= k * m, "internal error: matvec operands");
    sum_of_scaled_rows(k, |p| v[p], a, m, out);
}
