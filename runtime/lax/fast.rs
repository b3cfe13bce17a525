//! The `f32`/`f64` paths of the eager reductions: the same loop
//! drivers as jitted code (`__rt::par`: threads, SIMD dispatch, the
//! vectorizable `exp`) and the same order of operations, so an eager call
//! gives the bits its `#[jax::jit]` twin gives.
//!
//! The orders are the compiler's (`backend/emit/reduce.rs`, kernels in
//! `__rt::axis`):
//! - over every element: [`par::reduce`] in chunks of [`par::REDUCE_CHUNK`],
//!   each folded in [`par::LANES`] lanes ([`par::fold_lanes`]);
//! - along the last axis (any rank, with or without `keepdims`, and inside
//!   row programs): each row folded in that same order (`__rt::axis::fold_slice`),
//!   rows split over threads;
//! - along any other axis: each result folded left to right, vectorized
//!   across neighbouring results, split over threads.
//!
//! Every loop body is passed three times to the `par::*3` drivers (one copy
//! per SIMD level), so it is compiled with AVX2/AVX-512 and FMA where the CPU
//! has them: a body called through one closure from several places runs at
//! the baseline level, where the `exp` polynomial's fused multiply-adds are
//! library calls (`fmaf`), which made eager softmax 15x slower than jitted.
//!
//! The entry points are not generic (one per dtype), so they are compiled in
//! this crate: a user's `[profile.dev.package."*"] opt-level = 3` covers them.

// Loops index several slices at once, the form that vectorizes.
#![allow(clippy::needless_range_loop)]

use crate::__rt::axis::{extreme_of_slice, fold_middle, fold_rows, fold_slice, three};
use crate::__rt::complex::Transcendental;
use crate::__rt::identity::Extremes;
use crate::__rt::{ops, par};
use crate::ops::{AddMul, Arith, SubDiv};

/// A fold the fast paths run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fold {
    Sum,
    Mean,
    Max,
    Min,
}

/// How the jitted code orders a reduction along one axis (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// One flat fold in fixed chunks of lanes.
    Chunks,
    /// Each row (contiguous) folded in lanes.
    RowLanes,
    /// Each result folded left to right.
    Sequential,
}

/// The order jitted code uses for a reduction along `axis` of `shape`.
fn order(shape: &[usize], axis: usize) -> Order {
    if shape.len() == 1 {
        Order::Chunks
    } else if axis + 1 == shape.len() {
        Order::RowLanes
    } else {
        Order::Sequential
    }
}

/// `shape` around `axis`: (product before, length, product after).
fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

pub(crate) trait Fast:
    crate::element::Element + AddMul + Arith + SubDiv + Transcendental + Extremes + Send + Sync
{
    fn from_len(n: usize) -> Self;
}
impl Fast for f32 {
    #[inline(always)]
    fn from_len(n: usize) -> Self {
        n as f32
    }
}
impl Fast for f64 {
    #[inline(always)]
    fn from_len(n: usize) -> Self {
        n as f64
    }
}

#[inline(always)]
fn identity<T: Fast>(f: Fold) -> T {
    match f {
        Fold::Sum | Fold::Mean => T::ZERO,
        Fold::Max => T::LOWEST,
        Fold::Min => T::HIGHEST,
    }
}

/// Each fold's combining operation, written out per fold so that each loop
/// is monomorphic and vectorizes.
macro_rules! with_combine {
    ($f:expr, |$c:ident| $body:expr) => {
        match $f {
            Fold::Sum | Fold::Mean => {
                let $c = ops::add::<T>;
                $body
            }
            Fold::Max => {
                let $c = ops::max::<T>;
                $body
            }
            Fold::Min => {
                let $c = ops::min::<T>;
                $body
            }
        }
    };
}

/// The fold of every element, as a jitted whole-array reduction.
#[inline(always)]
fn all<T: Fast>(x: &[T], f: Fold) -> T {
    let id = identity::<T>(f);
    let r = with_combine!(f, |c| {
        let (f0, f1, f2) = three!(|(a, b): (usize, usize)| {
            match f {
                Fold::Max | Fold::Min => extreme_of_slice(&x[a..b], f == Fold::Max),
                _ => fold_slice(&x[a..b], id, |v| v, c),
            }
        });
        par::reduce3(x.len(), par::REDUCE_CHUNK, f0, f1, f2, c)
    });
    finish_mean(r, f, x.len())
}

#[inline(always)]
fn finish_mean<T: Fast>(r: T, f: Fold, n: usize) -> T {
    if f == Fold::Mean {
        ops::div(r, T::from_len(n))
    } else {
        r
    }
}

/// Folds `x` (`outer × len × inner`, row-major) along the middle axis,
/// each result left to right ([`fold_middle`]).
#[inline(always)]
fn along_sequential<T: Fast>(x: &[T], outer: usize, len: usize, inner: usize, f: Fold) -> Vec<T> {
    let id = identity::<T>(f);
    with_combine!(f, |c| fold_middle(x, outer, len, inner, id, c, true))
}

/// Folds along `axis` of `shape` in jitted code's order. A mean of a
/// non-scalar result multiplies by `1/n`, as the compiler rewrites it.
#[inline(always)]
fn along<T: Fast>(x: &[T], shape: &[usize], axis: usize, f: Fold, keepdims: bool) -> Vec<T> {
    let (outer, len, inner) = split(shape, axis);
    let scalar_out = shape.len() == 1 && !keepdims;
    let mut out = match order(shape, axis) {
        Order::Chunks => {
            let r = all(x, if f == Fold::Mean { Fold::Sum } else { f });
            vec![r]
        }
        Order::RowLanes => {
            let id = identity::<T>(f);
            with_combine!(f, |c| fold_rows(x, outer, len, id, c, true))
        }
        Order::Sequential => along_sequential(
            x,
            outer,
            len,
            inner,
            if f == Fold::Mean { Fold::Sum } else { f },
        ),
    };
    if f == Fold::Mean {
        let n = T::from_len(len);
        if scalar_out {
            out[0] = ops::div(out[0], n);
        } else {
            let r = ops::div(T::ONE, n);
            for v in out.iter_mut() {
                *v = ops::mul(*v, r);
            }
        }
    }
    out
}

macro_rules! entry_points {
    ($($t:ty => $all:ident, $along:ident;)*) => {$(
        /// The fold of every element of `x`.
        pub(crate) fn $all(x: &[$t], f: Fold) -> $t {
            all(x, f)
        }
        /// The fold along `axis` of `x` (of `shape`), row-major.
        pub(crate) fn $along(x: &[$t], shape: &[usize], axis: usize, f: Fold, keepdims: bool) -> Vec<$t> {
            along(x, shape, axis, f, keepdims)
        }
    )*};
}
entry_points! {
    f32 => all_f32, along_f32;
    f64 => all_f64, along_f64;
}

/// `s` as a slice of `U` when `T` is `U`.
pub(crate) fn same_slice<T: 'static, U: 'static>(s: &[T]) -> Option<&[U]> {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<U>() {
        // SAFETY: T and U are the same type (equal TypeIds), so the pointer,
        // length, alignment and validity of the elements are unchanged.
        Some(unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<U>(), s.len()) })
    } else {
        None
    }
}

/// `v` as a `Vec<U>` when `T` is `U`.
pub(crate) fn same_vec<T: 'static, U: 'static>(v: Vec<T>) -> Option<Vec<U>> {
    (Box::new(v) as Box<dyn std::any::Any>)
        .downcast::<Vec<U>>()
        .ok()
        .map(|b| *b)
}

/// The fast path of a fold over every element, when `T` is `f32` or `f64`
/// and the result type `R` is `T`.
pub(crate) fn try_all<T: 'static, R: 'static>(x: &[T], f: Fold) -> Option<R> {
    if let Some(x) = same_slice::<T, f32>(x) {
        let r = all_f32(x, f);
        return same_vec::<f32, R>(vec![r]).map(|mut v| v.remove(0));
    }
    if let Some(x) = same_slice::<T, f64>(x) {
        let r = all_f64(x, f);
        return same_vec::<f64, R>(vec![r]).map(|mut v| v.remove(0));
    }
    None
}

/// The fast path of a fold along `axis`, when `T` is `f32` or `f64` and the
/// result element type `R` is `T`.
pub(crate) fn try_along<T: 'static, R: 'static>(
    x: &[T],
    shape: &[usize],
    axis: usize,
    f: Fold,
    keepdims: bool,
) -> Option<Vec<R>> {
    if let Some(x) = same_slice::<T, f32>(x)
        && std::any::TypeId::of::<R>() == std::any::TypeId::of::<f32>()
    {
        return same_vec(along_f32(x, shape, axis, f, keepdims));
    }
    if let Some(x) = same_slice::<T, f64>(x)
        && std::any::TypeId::of::<R>() == std::any::TypeId::of::<f64>()
    {
        return same_vec(along_f64(x, shape, axis, f, keepdims));
    }
    None
}
