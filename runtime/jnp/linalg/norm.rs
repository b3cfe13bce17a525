//! `jnp.linalg.norm`: vector norms (`ord` 2, 1, ∞, −∞, 0, p) over one
//! axis, matrix norms (Frobenius, nuclear, 1, −1, 2, −2, ∞, −∞) over two,
//! and the 2-norm of all elements, as `jax.numpy.linalg.norm`. The
//! spectral ones (2, −2, nuclear) use the SVD kernel (`__rt::linalg::svd_*`).
//! The arithmetic is done in `f64`, rounded to the element type after each
//! operation.

use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::shape;

use super::eigh::{svd_data, ElemOf};
use super::pinv::rounder;
use super::{LinalgElement, LinalgFloat};

/// `jnp.linalg.norm(x)`: the 2-norm of all of `x`'s elements (the
/// Frobenius norm of a matrix), `sqrt(sum(|x|²))`, real for complex `x`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 2>::from([[3.0, 0.0], [0.0, 4.0]]);
/// assert_eq!(jnp::linalg::norm(&x).item(), 5.0);
/// let z = Array::<Complex<f64>, 2>::from([Complex::new(3.0, 4.0), Complex::new(0.0, 0.0)]);
/// assert_eq!(jnp::linalg::norm(&z).item(), 5.0);
/// ```
pub fn norm<A>(x: A) -> crate::Array<<ElemOf<A> as LinalgElement>::Real>
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
{
    let x = x.into_array();
    let sum = x
        .data()
        .iter()
        .fold(0.0f64, |acc, v| acc + v.modulus_squared_f64());
    crate::Array::from_data(vec![
        <<ElemOf<A> as LinalgElement>::Real as Element>::from_f64(sum.sqrt()),
    ])
}

/// `jnp.linalg.norm`'s `ord`. (Named `NormOrd`, not `Ord`, so that
/// importing it does not shadow the standard `Ord` trait.)
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum NormOrd {
    /// `ord=None`: the 2-norm of a vector, the Frobenius norm of a matrix
    /// (and, with `NormAxis::All`, the 2-norm of all elements of any rank).
    #[default]
    Default,
    /// `'fro'`: the Frobenius norm (matrices only).
    Fro,
    /// `'nuc'`: the nuclear norm, the sum of the singular values
    /// (matrices only).
    Nuc,
    /// `inf`: the largest `|x|` of a vector; the largest absolute row sum
    /// of a matrix.
    Inf,
    /// `-inf`: the smallest `|x|`; the smallest absolute row sum.
    NegInf,
    /// A number `p`: `(Σ|x|ᵖ)^(1/p)` of a vector (`0` counts the nonzero
    /// elements); for a matrix only `1`, `-1` (extreme absolute column
    /// sums), `2`, `-2` (extreme singular values) are norms.
    P(f64),
}

/// `jnp.linalg.norm`'s `axis`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NormAxis {
    /// `axis=None`: every axis (a vector norm of a 1-D input, a matrix
    /// norm of a 2-D one; other ranks take only `NormOrd::Default`).
    #[default]
    All,
    /// One axis (negative counts from the end): a vector norm along it.
    Vector(isize),
    /// Two axes, rows then columns: a matrix norm over them.
    Matrix(isize, isize),
}

/// `jnp.linalg.norm`'s keyword arguments, for [`norm_with`]: `ord`,
/// `axis` and `keepdims`. Rust has no keyword arguments, so the `_with`
/// form takes this struct; `NormOptions::default()` is JAX's defaults. In
/// `#[jax::jit]` write it as a literal (`NormOptions { ord: NormOrd::Nuc,
/// ..Default::default() }`): the options are read when the function compiles.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NormOptions {
    /// Which norm.
    pub ord: NormOrd,
    /// Over which axes.
    pub axis: NormAxis,
    /// Whether the reduced axes stay, with size 1.
    pub keepdims: bool,
}

/// `ord` as JAX's error messages print it.
fn ord_text(ord: NormOrd) -> String {
    match ord {
        NormOrd::Default => "None".into(),
        NormOrd::Fro => "fro".into(),
        NormOrd::Nuc => "nuc".into(),
        NormOrd::Inf => "inf".into(),
        NormOrd::NegInf => "-inf".into(),
        NormOrd::P(p) => format!("{p}"),
    }
}

#[track_caller]
fn canonical_axis(a: isize, rank: usize) -> usize {
    crate::shape::normalize_axis("norm", a, rank)
}

/// The norm of `data` (shape `dims`) as `opts` says, and its shape.
#[track_caller]
fn norm_data<T: LinalgFloat>(
    data: &[T],
    dims: &[usize],
    opts: NormOptions,
) -> (Vec<T>, Vec<usize>) {
    let rank = dims.len();
    let r = rounder::<T>();
    let axes: Vec<usize> = match opts.axis {
        NormAxis::All if opts.ord == NormOrd::Default => (0..rank).collect(),
        NormAxis::All => {
            assert!(
                rank == 1 || rank == 2,
                "norm: Improper number of axes for norm: axis={:?}. Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm.",
                (0..rank).collect::<Vec<_>>()
            );
            (0..rank).collect()
        }
        NormAxis::Vector(a) => vec![canonical_axis(a, rank)],
        NormAxis::Matrix(a, b) => {
            let (a, b) = (canonical_axis(a, rank), canonical_axis(b, rank));
            assert!(a != b, "norm: Duplicate axes given: ({a}, {b})");
            vec![a, b]
        }
    };
    // The kept axes, then the reduced ones in `axes`'s order.
    let kept: Vec<usize> = (0..rank).filter(|d| !axes.contains(d)).collect();
    let order: Vec<usize> = kept.iter().chain(&axes).copied().collect();
    let batch: usize = kept.iter().map(|&d| dims[d]).product();
    let inner: usize = axes.iter().map(|&d| dims[d]).product();
    let mut strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    // `data` with its axes in `order`, as f64.
    let mut moved = Vec::with_capacity(data.len());
    let odims: Vec<usize> = order.iter().map(|&d| dims[d]).collect();
    let mut idx = vec![0usize; rank];
    for _ in 0..data.len() {
        let off: usize = idx.iter().zip(&order).map(|(&i, &d)| i * strides[d]).sum();
        moved.push(data[off].to_f64());
        for p in (0..rank).rev() {
            idx[p] += 1;
            if idx[p] < odims[p] {
                break;
            }
            idx[p] = 0;
        }
    }
    let sum_sq = |v: &[f64]| r(v.iter().fold(0.0, |acc, x| r(acc + r(x * x))).sqrt());
    let abs_sum = |v: &mut dyn Iterator<Item = f64>| v.fold(0.0, |acc, x| r(acc + x.abs()));
    let invalid_matrix = || -> ! {
        panic!(
            "norm: Invalid order '{}' for matrix norm.",
            ord_text(opts.ord)
        )
    };
    let out: Vec<f64> = if axes.len() == rank
        && opts.ord == NormOrd::Default
        && opts.axis == NormAxis::All
    {
        vec![sum_sq(&moved)]
    } else if axes.len() == 1 {
        moved
            .chunks(inner.max(1))
            .take(batch)
            .map(|v| match opts.ord {
                NormOrd::Default | NormOrd::P(2.0) => sum_sq(v),
                NormOrd::Inf => v.iter().fold(0.0f64, |acc, x| acc.max(x.abs())),
                NormOrd::NegInf => v.iter().fold(f64::INFINITY, |acc, x| acc.min(x.abs())),
                NormOrd::P(p) if p == f64::INFINITY => {
                    v.iter().fold(0.0f64, |acc, x| acc.max(x.abs()))
                }
                NormOrd::P(p) if p == f64::NEG_INFINITY => {
                    v.iter().fold(f64::INFINITY, |acc, x| acc.min(x.abs()))
                }
                NormOrd::P(0.0) => v.iter().filter(|&&x| x != 0.0).count() as f64,
                NormOrd::P(1.0) => abs_sum(&mut v.iter().copied()),
                NormOrd::P(p) => {
                    let p = r(p);
                    let s = v.iter().fold(0.0, |acc, x| r(acc + r(x.abs().powf(p))));
                    r(s.powf(r(1.0 / p)))
                }
                NormOrd::Fro | NormOrd::Nuc => {
                    panic!(
                        "norm: Invalid order '{}' for vector norm.",
                        ord_text(opts.ord)
                    )
                }
            })
            .collect()
    } else {
        let (rows, cols) = (dims[axes[0]], dims[axes[1]]);
        let mats: Vec<&[f64]> = if inner == 0 {
            vec![&[][..]; batch]
        } else {
            moved.chunks(inner).collect()
        };
        let col_sums = |m: &[f64]| -> Vec<f64> {
            (0..cols)
                .map(|j| abs_sum(&mut (0..rows).map(|i| m[i * cols + j])))
                .collect()
        };
        let row_sums = |m: &[f64]| -> Vec<f64> {
            (0..rows)
                .map(|i| abs_sum(&mut (0..cols).map(|j| m[i * cols + j])))
                .collect()
        };
        let max0 = |v: Vec<f64>| v.into_iter().fold(0.0, f64::max);
        let min = |v: Vec<f64>| v.into_iter().fold(f64::INFINITY, f64::min);
        match opts.ord {
            NormOrd::Default | NormOrd::Fro => mats.iter().map(|m| sum_sq(m)).collect(),
            NormOrd::P(1.0) => mats.iter().map(|m| max0(col_sums(m))).collect(),
            NormOrd::P(-1.0) => mats.iter().map(|m| min(col_sums(m))).collect(),
            NormOrd::Inf => mats.iter().map(|m| max0(row_sums(m))).collect(),
            NormOrd::P(p) if p == f64::INFINITY => mats.iter().map(|m| max0(row_sums(m))).collect(),
            NormOrd::NegInf => mats.iter().map(|m| min(row_sums(m))).collect(),
            NormOrd::P(p) if p == f64::NEG_INFINITY => {
                mats.iter().map(|m| min(row_sums(m))).collect()
            }
            NormOrd::Nuc | NormOrd::P(2.0) | NormOrd::P(-2.0) => {
                let flat: Vec<T> = moved.iter().map(|&v| T::from_f64(v)).collect();
                let k = rows.min(cols);
                let (s, ..) = svd_data("norm", &flat, &[batch, rows, cols], false, false);
                s.chunks(k.max(1))
                    .take(batch)
                    .map(|s| {
                        let s = s.iter().map(|v| v.to_f64());
                        match opts.ord {
                            NormOrd::Nuc => s.fold(0.0, |acc, x| r(acc + x)),
                            NormOrd::P(2.0) => s.fold(0.0, f64::max),
                            _ => s.fold(f64::INFINITY, f64::min),
                        }
                    })
                    .collect()
            }
            _ => invalid_matrix(),
        }
    };
    let shape: Vec<usize> = if opts.keepdims {
        (0..rank)
            .map(|d| if axes.contains(&d) { 1 } else { dims[d] })
            .collect()
    } else {
        kept.iter().map(|&d| dims[d]).collect()
    };
    (out.into_iter().map(T::from_f64).collect(), shape)
}

/// `jnp.linalg.norm(x, ord=.., axis=.., keepdims=..)`: a vector norm over
/// one axis, a matrix norm over two, as [`NormOptions`] says. The result
/// (the kept axes, or every axis with size 1 for the reduced ones under
/// `keepdims`) is the caller's annotated type, checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// use jax::jnp::linalg::{NormAxis, NormOptions, NormOrd};
/// let x = Array::<f64, 2, 2>::from([[1.0, -2.0], [3.0, 4.0]]);
/// // The largest absolute column sum.
/// let one: Array<f64> = jnp::linalg::norm_with(&x, NormOptions { ord: NormOrd::P(1.0), ..Default::default() });
/// assert_eq!(one.item(), 6.0);
/// // The 1-norm of each row.
/// let rows: Array<f64, 2> = jnp::linalg::norm_with(
///     &x,
///     NormOptions { ord: NormOrd::P(1.0), axis: NormAxis::Vector(1), keepdims: false },
/// );
/// assert_eq!(rows.to_vec(), vec![3.0, 7.0]);
/// ```
///
/// # Panics
/// With JAX's message for an order that is not a norm of the chosen kind
/// (`'nuc'` of a vector, `3` of a matrix) or bad axes: options are
/// programming choices, like an index (in `#[jax::jit]` they are compile
/// errors).
#[track_caller]
pub fn norm_with<Out, A>(x: A, opts: NormOptions) -> Out
where
    A: AsArray,
    ElemOf<A>: LinalgFloat,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let x = x.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (out, shape) = norm_data(x.data(), dims, opts);
    shape::check_result::<Out>("norm", <ElemOf<A> as Element>::DTYPE, &shape);
    Out::from_data(out)
}
