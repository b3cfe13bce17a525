//! Contractions of the strict layer: `lax.dot_general`, `lax.dot`,
//! `lax.batch_matmul`, and the gemm kernel behind every matrix product.
//!
//! `f32` and `f64` products go to the packed kernels of `crate::gemm`
//! (`matrixmultiply` at the baseline SIMD level) with strides, so operands
//! whose contracted axes come first (transposed) are not copied. Other dtypes use a plain loop: `f16`/`bf16` accumulate in `f32`
//! and round once, integers wrap, `bool` is "or of ands", as XLA's.

use std::any::{Any, TypeId};

use crate::array::{Array, ArrayType, AsArray, NONE};
use crate::element::{Complex, DType, Element, Promote, Value};
use crate::gemm::{Epilogue, Tile};
use crate::lax::{as_i128, permute};
use crate::ops::AddMul;
use crate::shape;
use crate::shape::ConstMsg;

#[path = "small_gemm.rs"]
mod small_gemm;
pub(crate) use small_gemm::{matvec_cols, small_gemm_as, small_gemm_into_as, SMALL_PRODUCT};

use crate::array::ElemOf as E;

/// `s` as a slice of `U` when `T` is `U`.
pub(super) fn same_slice<T: 'static, U: 'static>(s: &[T]) -> Option<&[U]> {
    if TypeId::of::<T>() == TypeId::of::<U>() {
        // SAFETY: T and U are the same type (equal TypeIds), so the pointer,
        // length, alignment and validity of the elements are unchanged.
        Some(unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<U>(), s.len()) })
    } else {
        None
    }
}

/// `s` as a mutable slice of `U` when `T` is `U`.
fn same_slice_mut<T: 'static, U: 'static>(s: &mut [T]) -> Option<&mut [U]> {
    if TypeId::of::<T>() == TypeId::of::<U>() {
        // SAFETY: as in `same_slice`; the borrow is unique.
        Some(unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<U>(), s.len()) })
    } else {
        None
    }
}

/// An epilogue on `T` blocks as one on `U` blocks; `T` must be `U`.
pub(super) fn same_epilogue<'e, T: 'static, U: 'static>(
    e: &'e (dyn Fn(Tile<'_, T>) + Sync + 'e),
) -> Epilogue<'e, U> {
    assert_eq!(
        TypeId::of::<T>(),
        TypeId::of::<U>(),
        "internal error: element types differ"
    );
    // SAFETY: T and U are the same type, so the two trait objects have the
    // same layout and vtable.
    unsafe { std::mem::transmute::<&'e (dyn Fn(Tile<'_, T>) + Sync + 'e), Epilogue<'e, U>>(e) }
}

/// `v` as a `Vec<U>`; `T` must be `U`.
pub(super) fn same_vec<T: 'static, U: 'static>(v: Vec<T>) -> Vec<U> {
    *(Box::new(v) as Box<dyn Any>)
        .downcast::<Vec<U>>()
        .expect("internal error: element types differ")
}

/// The elements of `s` converted to `P` (borrowed when already `P`).
pub(crate) fn promoted<T: Element, P: Element>(s: &[T]) -> std::borrow::Cow<'_, [P]> {
    match same_slice::<T, P>(s) {
        Some(p) => std::borrow::Cow::Borrowed(p),
        None => std::borrow::Cow::Owned(s.iter().map(|&x| x.cast::<P>()).collect()),
    }
}

/// A matrix operand: data, and the strides of its rows and columns in elements.
#[derive(Clone, Copy)]
pub(crate) struct Mat<'a, T> {
    pub data: &'a [T],
    pub rs: usize,
    pub cs: usize,
}

/// Small products and matrix-vector ones: plain loops along the contiguous
/// axis (gemm's packing and thread dispatch would cost more than the
/// arithmetic, as in a loop body's `W h`).
fn is_small(m: usize, k: usize, n: usize) -> bool {
    m * k * n <= SMALL_PRODUCT || ((m == 1 || n == 1 || k == 1) && m * k * n <= 1 << 22)
}

/// `a (m×k) · b (k×n)` written into the row-major `m×n` slice `c`: straight
/// from the packed f32/f64 kernels when the product is not a small one;
/// then `epilogue` over every element, C's rows numbered from `r0`.
pub(crate) fn gemm_into<T: Element>(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<'_, T>,
    b: Mat<'_, T>,
    c: &mut [T],
    epilogue: Option<(Epilogue<'_, T>, usize)>,
) {
    assert_eq!(c.len(), m * n, "internal error: gemm output");
    let shifted = epilogue.map(|(e, r0)| move |t: Tile<'_, T>| e(t.shifted(r0)));
    if m > 0 && n > 0 && k > 0 && !is_small(m, k, n) {
        if let (Some(ad), Some(bd), Some(cd)) = (
            same_slice::<T, f32>(a.data),
            same_slice::<T, f32>(b.data),
            same_slice_mut::<T, f32>(c),
        ) {
            let e = shifted.as_ref().map(|e| same_epilogue::<T, f32>(e));
            crate::gemm::sgemm_into(m, k, n, ad, a.rs, a.cs, bd, b.rs, b.cs, cd, e);
            return;
        }
        if let (Some(ad), Some(bd), Some(cd)) = (
            same_slice::<T, f64>(a.data),
            same_slice::<T, f64>(b.data),
            same_slice_mut::<T, f64>(c),
        ) {
            let e = shifted.as_ref().map(|e| same_epilogue::<T, f64>(e));
            crate::gemm::dgemm_into(m, k, n, ad, a.rs, a.cs, bd, b.rs, b.cs, cd, e);
            return;
        }
    }
    let small = m > 0 && n > 0 && k > 0 && is_small(m, k, n);
    if !(small
        && (small_gemm_into_as::<T, f32>(m, k, n, a, b, c)
            || small_gemm_into_as::<T, f64>(m, k, n, a, b, c)))
    {
        c.copy_from_slice(&gemm(m, k, n, a, b));
    }
    if let Some((e, r0)) = epilogue {
        e(Tile::whole(c, r0, n));
    }
}

/// `a (m×k) · b (k×n)` as a fresh row-major `m×n` buffer.
pub(crate) fn gemm<T: Element>(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<'_, T>,
    b: Mat<'_, T>,
) -> Vec<T> {
    if m == 0 || n == 0 {
        return Vec::new();
    }
    if k == 0 {
        return vec![T::ZERO; m * n];
    }
    // The last elements the strides reach must be inside the slices.
    assert!(
        (m - 1) * a.rs + (k - 1) * a.cs < a.data.len(),
        "internal error: gemm lhs"
    );
    assert!(
        (k - 1) * b.rs + (n - 1) * b.cs < b.data.len(),
        "internal error: gemm rhs"
    );
    if is_small(m, k, n)
        && let Some(c) = small_gemm_as::<T, f32>(m, k, n, a, b)
            .or_else(|| small_gemm_as::<T, f64>(m, k, n, a, b))
    {
        return c;
    }
    // f32 and f64: the packed kernels of `crate::gemm` into a pooled buffer
    // (its stale contents are never read).
    if let (Some(ad), Some(bd)) = (same_slice::<T, f32>(a.data), same_slice::<T, f32>(b.data)) {
        let mut c: Vec<f32> = crate::__rt::buffer(m * n);
        crate::gemm::sgemm_into(m, k, n, ad, a.rs, a.cs, bd, b.rs, b.cs, &mut c, None);
        return same_vec(c);
    }
    if let (Some(ad), Some(bd)) = (same_slice::<T, f64>(a.data), same_slice::<T, f64>(b.data)) {
        let mut c: Vec<f64> = crate::__rt::buffer(m * n);
        crate::gemm::dgemm_into(m, k, n, ad, a.rs, a.cs, bd, b.rs, b.cs, &mut c, None);
        return same_vec(c);
    }
    let at = |i: usize, p: usize| a.data[i * a.rs + p * a.cs];
    let bt = |p: usize, j: usize| b.data[p * b.rs + j * b.cs];
    let mut c = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let v = match T::DTYPE {
                // A plain loop in the element's own complex arithmetic.
                DType::C64 => {
                    let s = (0..k).fold(Complex::<f32>::ZERO, |s, p| {
                        let x = AddMul::mul(at(i, p).cast(), bt(p, j).cast());
                        AddMul::add(s, x)
                    });
                    s.cast::<T>()
                }
                DType::C128 => {
                    let s = (0..k).fold(Complex::<f64>::ZERO, |s, p| {
                        let x = AddMul::mul(at(i, p).cast(), bt(p, j).cast());
                        AddMul::add(s, x)
                    });
                    s.cast::<T>()
                }
                DType::Bool => T::from_value(Value::Bool(
                    (0..k).any(|p| at(i, p).cast::<bool>() && bt(p, j).cast::<bool>()),
                )),
                d if d.is_float() => {
                    let s = (0..k).fold(0.0f32, |s, p| {
                        s + (at(i, p).to_f64() as f32) * (bt(p, j).to_f64() as f32)
                    });
                    T::from_f64(s as f64)
                }
                _ => {
                    let s = (0..k).fold(0i128, |s, p| {
                        s.wrapping_add(as_i128(at(i, p)).wrapping_mul(as_i128(bt(p, j))))
                    });
                    T::from_value(Value::Int(s))
                }
            };
            c.push(v);
        }
    }
    c
}

/// Dimension numbers of [`dot_general`]: `((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`.
pub type DotDimensionNumbers<'a> = ((&'a [usize], &'a [usize]), (&'a [usize], &'a [usize]));

/// An operand laid out as `[batch, rows, cols]` of its gemm role, with the
/// row and column strides: by strides alone when its axes are already in the
/// order `batch, first, second` or `batch, second, first`, else by a copy.
fn layout<'a, T: Copy>(
    data: &'a [T],
    s: &[usize],
    axes: [&[usize]; 3],
    rows: usize,
    cols: usize,
) -> (std::borrow::Cow<'a, [T]>, usize, usize) {
    let [b, first, second] = axes;
    let natural: Vec<usize> = (0..s.len()).collect();
    let straight: Vec<usize> = [b, first, second].concat();
    if straight == natural {
        (std::borrow::Cow::Borrowed(data), cols, 1)
    } else if [b, second, first].concat() == natural {
        (std::borrow::Cow::Borrowed(data), 1, rows)
    } else {
        (
            std::borrow::Cow::Owned(permute(data, s, &straight)),
            cols,
            1,
        )
    }
}

#[track_caller]
fn check_axes(what: &str, axes: &[usize], rank: usize) {
    for (i, &a) in axes.iter().enumerate() {
        if a >= rank || axes[..i].contains(&a) {
            panic!("dot_general: {what} {axes:?} out of bounds or repeated for rank {rank}");
        }
    }
}

/// A general contraction (`lax.dot_general`): contracts `lhs_contracting`
/// with `rhs_contracting` axes and batches over `lhs_batch`/`rhs_batch`. The
/// result's axes are the batch axes, then the free axes of `lhs`, then those
/// of `rhs`, as in JAX. Both operands have the same dtype (a mismatch does
/// not compile); the caller names the result type, which is checked.
///
/// Each batch is one gemm call. An operand is copied only when its free and
/// contracted axes are interleaved; "contracted first" layouts use strides.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 3>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
/// let b = Array::<f32, 2, 2>::from([[1.0, 0.0], [0.0, 1.0]]);
/// // aᵀ · b: contract axis 0 of both.
/// let c: Array<f32, 3, 2> = lax::dot_general(&a, &b, ((&[0], &[0]), (&[], &[])));
/// assert_eq!(c.to_vec(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
/// ```
#[track_caller]
pub fn dot_general<A: AsArray, B: AsArray, Out: ArrayType<Elem = E<A>>>(
    lhs: A,
    rhs: B,
    dimension_numbers: DotDimensionNumbers<'_>,
) -> Out
where
    B::Array: ArrayType<Elem = E<A>>,
{
    let ((lc, rc), (lb, rb)) = dimension_numbers;
    let (ls, rs) = (
        <A::Array as ArrayType>::SHAPE,
        <B::Array as ArrayType>::SHAPE,
    );
    check_axes("lhs axes", &[lb, lc].concat(), ls.len());
    check_axes("rhs axes", &[rb, rc].concat(), rs.len());
    if lc.len() != rc.len() || lb.len() != rb.len() {
        panic!("dot_general: lhs and rhs need as many contracting and batch axes: {dimension_numbers:?}");
    }
    for (&l, &r) in lc.iter().zip(rc).chain(lb.iter().zip(rb)) {
        if ls[l] != rs[r] {
            panic!(
                "dot_general: axis {l} of {} and axis {r} of {} differ",
                shape::type_string(<E<A>>::DTYPE, ls),
                shape::type_string(<E<A>>::DTYPE, rs)
            );
        }
    }
    let lf: Vec<usize> = (0..ls.len())
        .filter(|a| !lc.contains(a) && !lb.contains(a))
        .collect();
    let rf: Vec<usize> = (0..rs.len())
        .filter(|a| !rc.contains(a) && !rb.contains(a))
        .collect();
    let out_shape: Vec<usize> = lb
        .iter()
        .map(|&a| ls[a])
        .chain(lf.iter().map(|&a| ls[a]))
        .chain(rf.iter().map(|&a| rs[a]))
        .collect();
    shape::check_result::<Out>("dot_general", <E<A>>::DTYPE, &out_shape);
    let out = dot_general_raw(
        lhs.as_array().data(),
        ls,
        rhs.as_array().data(),
        rs,
        dimension_numbers,
    );
    let weak = lhs.as_array().is_weak() && rhs.as_array().is_weak();
    Out::from_data(out).set_weak(weak)
}

/// The contraction of [`dot_general`] on row-major data with checked
/// dimension numbers: batch axes, then the free axes of `lhs`, then those of
/// `rhs`. Each batch is one gemm call; an operand is copied only when its
/// free and contracted axes are interleaved.
pub(crate) fn dot_general_raw<T: Element>(
    lhs: &[T],
    ls: &[usize],
    rhs: &[T],
    rs: &[usize],
    dimension_numbers: DotDimensionNumbers<'_>,
) -> Vec<T> {
    let ((lc, rc), (lb, rb)) = dimension_numbers;
    let lf: Vec<usize> = (0..ls.len())
        .filter(|a| !lc.contains(a) && !lb.contains(a))
        .collect();
    let rf: Vec<usize> = (0..rs.len())
        .filter(|a| !rc.contains(a) && !rb.contains(a))
        .collect();
    let prod = |s: &[usize], axes: &[usize]| axes.iter().map(|&a| s[a]).product::<usize>();
    let (nb, m, k, n) = (prod(ls, lb), prod(ls, &lf), prod(ls, lc), prod(rs, &rf));
    let (ld, lrs, lcs) = layout(lhs, ls, [lb, &lf, lc], m, k);
    let (rd, rrs, rcs) = layout(rhs, rs, [rb, rc, &rf], k, n);
    let mn = m * n;
    let mut out: Vec<T> = crate::__rt::buffer(nb * mn);
    if mn == 0 {
        return out;
    }
    // Each product straight into its place in `out`.
    let product = |i: usize, c: &mut [T]| {
        let a = Mat {
            data: &ld[i * m * k..(i + 1) * m * k],
            rs: lrs,
            cs: lcs,
        };
        let b = Mat {
            data: &rd[i * k * n..(i + 1) * k * n],
            rs: rrs,
            cs: rcs,
        };
        gemm_into(m, k, n, a, b, c, None);
    };
    if nb > 1 && is_small(m, k, n) {
        // Small products run on one thread each (per-example outer
        // products, `vmap` of a matrix-vector product): the batch splits
        // over the threads instead, in chunks of whole products.
        let per_chunk = crate::__rt::par::grain(2 * k).div_ceil(mn);
        crate::__rt::par::for_each_chunk(&mut out, per_chunk * mn, |start, chunk| {
            for (j, c) in chunk.chunks_mut(mn).enumerate() {
                product(start / mn + j, c);
            }
        });
    } else {
        for (i, c) in out.chunks_mut(mn).enumerate() {
            product(i, c);
        }
    }
    out
}

/// The product of vectors and matrices of one dtype (`lax.dot`): 2-D × 2-D,
/// 2-D × 1-D, 1-D × 2-D, 1-D · 1-D, typed as [`jnp::matmul`](crate::jnp::matmul).
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 2, 2>::from([[1, 2], [3, 4]]);
/// let v = Array::<i32, 2>::from([1, 1]);
/// let av: Array<i32, 2> = lax::dot(&a, &v);
/// assert_eq!(av.to_vec(), [3, 7]);
/// ```
#[track_caller]
pub fn dot<A: AsArray, B: AsArray, Kind>(
    lhs: A,
    rhs: B,
) -> <A::Array as MatMul<B::Array, Kind>>::Output
where
    A::Array: MatMul<B::Array, Kind>,
    B::Array: ArrayType<Elem = E<A>>,
{
    lhs.as_array().product(rhs.as_array())
}

/// Batched matrix product of one dtype (`lax.batch_matmul`): `[B, M, K] ×
/// [B, K, N] -> [B, M, N]`. Mismatched dimensions fail to compile, with both
/// shapes in the message.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 1, 2>::from([[[1.0, 2.0]], [[3.0, 4.0]]]);
/// let b = Array::<f32, 2, 2, 1>::from([[[1.0], [1.0]], [[0.0], [1.0]]]);
/// assert_eq!(lax::batch_matmul(&a, &b).to_vec(), [3.0, 4.0]);
/// ```
#[track_caller]
pub fn batch_matmul<
    T: Element,
    const NB: usize,
    const M: usize,
    const K: usize,
    const NB2: usize,
    const K2: usize,
    const N: usize,
>(
    lhs: impl AsArray<Array = Array<T, NB, M, K>>,
    rhs: impl AsArray<Array = Array<T, NB2, K2, N>>,
) -> Array<T, NB, M, N> {
    const {
        if NB != NB2 || K != K2 || NB == NONE || M == NONE || K == NONE || N == NONE {
            let msg = ConstMsg::new()
                .str("batch_matmul needs [B, M, K] x [B, K, N]: ")
                .ty(T::DTYPE, Array::<T, NB, M, K>::SHAPE)
                .str(" @ ")
                .ty(T::DTYPE, Array::<T, NB2, K2, N>::SHAPE);
            panic!("{}", msg.as_str());
        }
    }
    dot_general::<_, _, Array<T, NB, M, N>>(lhs, rhs, ((&[2], &[1]), (&[0], &[0])))
}

/// Selects the [`MatMul`] impl for a 2-D left operand; inferred, never written.
pub struct MatrixLhs;
/// Selects the [`MatMul`] impl for a 1-D left operand; inferred, never written.
pub struct VectorLhs;

/// `Self @ Rhs` for vectors and matrices, with the result type computed from
/// both shapes. `Kind` ([`MatrixLhs`] or [`VectorLhs`]) only tells the two
/// impls apart (Rust cannot tell a 1-D array from a 2-D one with a `NONE`
/// dimension otherwise); it is always inferred.
///
/// With a 2-D left operand the inner dimensions are part of the impl, so a
/// mismatch is a type error (`expected 4, found 5`); with a 1-D one it fails
/// a compile-time assertion that prints both shapes
/// (`matmul: inner dimensions differ: f32[4] @ f32[5,6]`).
///
/// ```compile_fail
/// use jax::prelude::*;
/// let a = Array::<f32, 3, 4>::zeros();
/// let b = Array::<f32, 5, 6>::zeros();
/// let _ = a.matmul(&b);
/// ```
///
/// ```compile_fail
/// use jax::prelude::*;
/// let v = Array::<f32, 4>::zeros();
/// let b = Array::<f32, 5, 6>::zeros();
/// let _ = jnp::matmul(&v, &b);
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot multiply `{Self}` by `{Rhs}`",
    label = "the inner dimensions differ, or a rank is not 1 or 2",
    note = "matmul takes [M, K] @ [K, N], [M, K] @ [K], [K] @ [K, N] or [K] @ [K]; use jnp::batch_matmul for [B, M, K] @ [B, K, N]"
)]
pub trait MatMul<Rhs, Kind> {
    /// The product's type.
    type Output;
    /// The product.
    fn product(&self, rhs: &Rhs) -> Self::Output;
}

pub(crate) fn weak_of(a: (DType, bool), b: (DType, bool)) -> bool {
    jax_dtypes::result_type(&[a, b], cfg!(feature = "x64")).1
}

/// `a (m×k) @ b (k×n)` in the promoted type `P`; `b` is `k` long when `n` is 1 and 1-D.
pub(crate) fn product<T: Element, U: Element, P: Element>(
    a: &[T],
    b: &[U],
    m: usize,
    k: usize,
    n: usize,
) -> Vec<P> {
    let (a, b) = (promoted::<T, P>(a), promoted::<U, P>(b));
    gemm(
        m,
        k,
        n,
        Mat {
            data: &a,
            rs: k,
            cs: 1,
        },
        Mat {
            data: &b,
            rs: n,
            cs: 1,
        },
    )
}

// [M, K] @ [K, N] and [M, K] @ [K] (N = NONE: the result is [M]).
impl<T, U, const M: usize, const K: usize, const N: usize> MatMul<Array<U, K, N>, MatrixLhs>
    for Array<T, M, K>
where
    T: Element + Promote<U>,
    U: Element,
{
    type Output = Array<<T as Promote<U>>::Out, M, N>;
    fn product(&self, rhs: &Array<U, K, N>) -> Self::Output {
        const {
            if M == NONE || K == NONE {
                panic!("matmul: the left operand must have rank 1 or 2");
            }
        }
        let n = if N == NONE { 1 } else { N };
        let out = product::<T, U, _>(self.as_slice(), rhs.as_slice(), M, K, n);
        Array::from_vec_unchecked(out).with_weak(weak_of(
            (T::DTYPE, self.weak_type()),
            (U::DTYPE, rhs.weak_type()),
        ))
    }
}

// [K] @ [K, N] (result [N]) and [K] · [K] (N = NONE: a scalar).
impl<T, U, const K: usize, const K2: usize, const N: usize> MatMul<Array<U, K2, N>, VectorLhs>
    for Array<T, K>
where
    T: Element + Promote<U>,
    U: Element,
{
    type Output = Array<<T as Promote<U>>::Out, N>;
    fn product(&self, rhs: &Array<U, K2, N>) -> Self::Output {
        const {
            if K == NONE || K2 == NONE {
                panic!("matmul: operands must have rank 1 or 2, not 0");
            }
            if K != K2 {
                let msg = ConstMsg::new()
                    .str("matmul: inner dimensions differ: ")
                    .ty(T::DTYPE, Array::<T, K>::SHAPE)
                    .str(" @ ")
                    .ty(U::DTYPE, Array::<U, K2, N>::SHAPE);
                panic!("{}", msg.as_str());
            }
        }
        let n = if N == NONE { 1 } else { N };
        let out = product::<T, U, _>(self.as_slice(), rhs.as_slice(), 1, K, n);
        Array::from_vec_unchecked(out).with_weak(weak_of(
            (T::DTYPE, self.weak_type()),
            (U::DTYPE, rhs.weak_type()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::f16;

    #[test]
    fn gemm_strides_and_loops_agree() {
        // a = [[1,2],[3,4]] read transposed by strides.
        let a = [1.0f32, 2.0, 3.0, 4.0];
        let at = Mat {
            data: &a[..],
            rs: 1,
            cs: 2,
        };
        let id = [1.0f32, 0.0, 0.0, 1.0];
        let i = Mat {
            data: &id[..],
            rs: 2,
            cs: 1,
        };
        assert_eq!(gemm(2, 2, 2, at, i), [1.0, 3.0, 2.0, 4.0]);
        let ai: Vec<i64> = a.iter().map(|&x| x as i64).collect();
        let ii: Vec<i64> = id.iter().map(|&x| x as i64).collect();
        let r = gemm(
            2,
            2,
            2,
            Mat {
                data: &ai[..],
                rs: 1,
                cs: 2,
            },
            Mat {
                data: &ii[..],
                rs: 2,
                cs: 1,
            },
        );
        assert_eq!(r, [1, 3, 2, 4]);
    }

    #[test]
    fn half_products_accumulate_in_f32() {
        // 2048 + 1 + 1 rounds to 2050 when accumulated in f32 and rounded once.
        let a = [f16::from_f32(2048.0), f16::ONE, f16::ONE];
        let b = [f16::ONE; 3];
        let r = gemm(
            1,
            3,
            1,
            Mat {
                data: &a[..],
                rs: 3,
                cs: 1,
            },
            Mat {
                data: &b[..],
                rs: 1,
                cs: 1,
            },
        );
        assert_eq!(r[0].to_f32(), 2050.0);
    }

    #[test]
    fn batched_small_products_are_written_in_place_by_both_threads() {
        // 96 outer-product-like products, each small (one thread), enough
        // work together to split the batch across the team's threads.
        let (nb, m, k, n) = (96, 48, 5, 80);
        let lhs: Vec<f32> = (0..nb * m * k).map(|i| (i % 7) as f32 - 3.0).collect();
        let rhs: Vec<f32> = (0..nb * k * n).map(|i| (i % 5) as f32 - 2.0).collect();
        let dims: DotDimensionNumbers<'_> = ((&[2], &[1]), (&[0], &[0]));
        let out = dot_general_raw(&lhs, &[nb, m, k], &rhs, &[nb, k, n], dims);
        assert_eq!(out.len(), nb * m * n);
        for b in 0..nb {
            for i in 0..m {
                for j in 0..n {
                    // Small integers: every order of summation is exact.
                    let want: f32 = (0..k)
                        .map(|p| lhs[(b * m + i) * k + p] * rhs[(b * k + p) * n + j])
                        .sum();
                    assert_eq!(out[(b * m + i) * n + j], want, "at [{b}, {i}, {j}]");
                }
            }
        }
        // Integers take gemm's plain loop, into the same places.
        let li: Vec<i64> = lhs.iter().map(|&x| x as i64).collect();
        let ri: Vec<i64> = rhs.iter().map(|&x| x as i64).collect();
        let oi = dot_general_raw(&li, &[nb, m, k], &ri, &[nb, k, n], dims);
        assert!(oi.iter().zip(&out).all(|(&a, &b)| a as f32 == b));
    }

    #[test]
    fn dot_general_batches_and_copies_interleaved_axes() {
        // lhs [2 (batch), 2, 3]; contract axis 2 with rhs axis 1 of [2, 3, 1].
        let l = Array::<i32, 2, 2, 3>::arange();
        let r = Array::<i32, 2, 3, 1>::ones();
        let c: Array<i32, 2, 2, 1> = dot_general(&l, &r, ((&[2], &[1]), (&[0], &[0])));
        assert_eq!(c.to_vec(), [3, 12, 21, 30]);
        // Batch axis last on the lhs forces a copy.
        let l2 = Array::<i32, 3, 2>::arange(); // [k, batch]
        let r2 = Array::<i32, 2, 3>::ones(); // [batch, k]
        let d: Array<i32, 2> = dot_general(&l2, &r2, ((&[0], &[1]), (&[1], &[0])));
        assert_eq!(d.to_vec(), [6, 9]); // column sums of [[0, 1], [2, 3], [4, 5]]
    }

    #[test]
    #[should_panic(expected = "dot_general: axis 1 of f32[2,3] and axis 0 of f32[2,2] differ")]
    fn dot_general_checks_dimensions() {
        let a = Array::<f32, 2, 3>::zeros();
        let b = Array::<f32, 2, 2>::zeros();
        let _: Array<f32, 2, 2> = dot_general(&a, &b, ((&[1], &[0]), (&[], &[])));
    }
}
