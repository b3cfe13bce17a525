//! `jnp.linalg.pinv` and `matrix_rank`, through the SVD kernel
//! (`__rt::linalg::svd_*`, which jitted code calls too) with JAX's
//! cutoffs. The arithmetic after the SVD is done in `f64` and rounded to
//! the element type after every operation, which for `+ - * /` gives the
//! element type's own result.

use crate::array::{ArrayType, AsArray};
use crate::element::{DefaultInt, Element};
use crate::shape;

use super::eigh::{hermitian_input, matrix_dims, svd_data, ElemOf};
use super::LinalgFloat;

/// Rounds an `f64` to `T` and back: every operation of the code below is
/// followed by it, so the results are `T`'s.
pub(super) fn rounder<T: LinalgFloat>() -> fn(f64) -> f64 {
    if T::DTYPE == crate::DType::F32 {
        |x| x as f32 as f64
    } else {
        |x| x
    }
}

/// `T`'s machine epsilon as `f64`.
pub(super) fn eps<T: LinalgFloat>() -> f64 {
    T::EPSILON.to_f64()
}

/// `jnp.linalg.pinv`'s keyword arguments, for [`pinv_with`]: `rtol` (the
/// relative cutoff of small singular values; `None` is JAX's default,
/// `10 · max(M, N) · eps`) and `hermitian` (`a` is symmetric; JAX then
/// uses `(a + aᵀ) / 2`). Rust has no keyword arguments, so the `_with`
/// form takes this struct; in `#[jax::jit]` write it as a literal
/// (`PinvOptions { rtol: Some(1e-3), ..Default::default() }`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PinvOptions {
    /// Singular values at or below `rtol · s_max` count as zero.
    pub rtol: Option<f64>,
    /// Whether `a` is symmetric (square), as JAX's `hermitian=True`.
    pub hermitian: bool,
}

/// The pseudo-inverses `[.., N, M]` of a batch of `M × N` matrices,
/// through [`pinv_f32`]/[`pinv_f64`]: non-generic, so their loops are
/// compiled in the `jax` crate at its opt-level, not in the caller's crate
/// (a user's `[profile.dev.package."*"] opt-level = 3` covers them). The
/// input is copied through f64, which is exact for both.
#[track_caller]
fn pinv_data<T: LinalgFloat>(a: &[T], dims: &[usize], opts: PinvOptions) -> (Vec<T>, [usize; 2]) {
    use std::any::{Any, TypeId};
    // No closures on the way: `#[track_caller]` reaches the user's call.
    let out: Box<dyn Any> = if TypeId::of::<T>() == TypeId::of::<f32>() {
        let a: Vec<f32> = a.iter().map(|v| v.to_f64() as f32).collect();
        Box::new(pinv_f32(&a, dims, opts))
    } else if TypeId::of::<T>() == TypeId::of::<f64>() {
        let a: Vec<f64> = a.iter().map(|v| v.to_f64()).collect();
        Box::new(pinv_f64(&a, dims, opts))
    } else {
        return pinv_generic(a, dims, opts);
    };
    *out.downcast::<(Vec<T>, [usize; 2])>()
        .expect("internal error: T is the routed type")
}

#[track_caller]
fn pinv_f32(a: &[f32], dims: &[usize], opts: PinvOptions) -> (Vec<f32>, [usize; 2]) {
    pinv_generic(a, dims, opts)
}

#[track_caller]
fn pinv_f64(a: &[f64], dims: &[usize], opts: PinvOptions) -> (Vec<f64>, [usize; 2]) {
    pinv_generic(a, dims, opts)
}

#[track_caller]
fn pinv_generic<T: LinalgFloat>(
    a: &[T],
    dims: &[usize],
    opts: PinvOptions,
) -> (Vec<T>, [usize; 2]) {
    let (batch, m, n) = matrix_dims("pinv", dims);
    let k = m.min(n);
    let r = rounder::<T>();
    let mut out = vec![T::ZERO; batch * n * m];
    if k == 0 {
        return (out, [n, m]);
    }
    let data = hermitian_input("pinv", a, dims, opts.hermitian);
    let (s, u, vt, _) = svd_data("pinv", &data, dims, false, true);
    // JAX: `10. * max(M, N) * eps` in the element type.
    let rtol = r(opts
        .rtol
        .unwrap_or_else(|| r(10.0 * m.max(n) as f64) * eps::<T>()));
    for b in 0..batch {
        let (s, u, vt) = (
            &s[b * k..][..k],
            &u[b * m * k..][..m * k],
            &vt[b * k * n..][..k * n],
        );
        let cutoff = r(rtol * s[0].to_f64());
        // Singular values at or below the cutoff become inf: 1/s = 0.
        let s: Vec<f64> = s
            .iter()
            .map(|&v| {
                let v = v.to_f64();
                if v > cutoff {
                    v
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        let o = &mut out[b * n * m..][..n * m];
        // vhᵀ · (uᵀ / s[:, None])
        for i in 0..n {
            for j in 0..m {
                let mut acc = 0.0;
                for l in 0..k {
                    acc = r(acc + r(vt[l * n + i].to_f64() * r(u[j * k + l].to_f64() / s[l])));
                }
                o[i * m + j] = T::from_f64(acc);
            }
        }
    }
    (out, [n, m])
}

/// `jnp.linalg.pinv(a)`: the Moore–Penrose pseudo-inverse of a matrix (or
/// a batch of them, leading axes), through the SVD: singular values at or
/// below `10 · max(M, N) · eps · s_max` count as zero, as JAX's default.
/// The result `[.., N, M]` is the caller's annotated type, checked when
/// the call runs. Its derivative (in `#[jax::jit]`) is JAX's custom rule.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f64, 3, 2>::from([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]);
/// let p: Array<f64, 2, 3> = jnp::linalg::pinv(&a);
/// assert_eq!(p.to_vec(), vec![1.0, 0.0, 0.0, 0.0, 0.5, 0.0]);
/// ```
#[track_caller]
pub fn pinv<P, A>(a: A) -> P
where
    A: AsArray,
    ElemOf<A>: LinalgFloat,
    P: ArrayType<Elem = ElemOf<A>>,
{
    pinv_with(a, PinvOptions::default())
}

/// `jnp.linalg.pinv(a, rtol=.., hermitian=..)`: as [`pinv`] with the
/// options of [`PinvOptions`].
///
/// ```
/// use jax::prelude::*;
/// use jax::jnp::linalg::PinvOptions;
/// let a = Array::<f32, 2, 2>::from([[1.0, 0.0], [0.0, 1e-3]]);
/// // With rtol = 0.01 the small singular value counts as zero.
/// let p: Array<f32, 2, 2> =
///     jnp::linalg::pinv_with(&a, PinvOptions { rtol: Some(0.01), hermitian: false });
/// assert_eq!(p.to_vec(), vec![1.0, 0.0, 0.0, 0.0]);
/// ```
///
/// # Panics
/// When `hermitian` is set and `a` is not square.
#[track_caller]
pub fn pinv_with<P, A>(a: A, opts: PinvOptions) -> P
where
    A: AsArray,
    ElemOf<A>: LinalgFloat,
    P: ArrayType<Elem = ElemOf<A>>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (p, [n, m]) = pinv_data(a.data(), dims, opts);
    let mut out_shape = dims[..dims.len() - 2].to_vec();
    out_shape.extend([n, m]);
    shape::check_result::<P>("pinv", <ElemOf<A> as Element>::DTYPE, &out_shape);
    P::from_data(p)
}

/// The ranks of a batch of matrices: singular values above `tol`, or
/// above JAX's default `s_max · max(M, N) · eps`.
#[track_caller]
fn rank_data<T: LinalgFloat>(
    op: &str,
    a: &[T],
    dims: &[usize],
    tol: Option<f64>,
) -> Vec<DefaultInt> {
    let (batch, m, n) = matrix_dims(op, dims);
    let k = m.min(n);
    let r = rounder::<T>();
    let (s, _, _, _) = svd_data(op, a, dims, false, false);
    (0..batch)
        .map(|b| {
            let s = &s[b * k..][..k];
            let smax = s
                .iter()
                .fold(f64::NEG_INFINITY, |acc, v| acc.max(v.to_f64()));
            let tol = match tol {
                Some(t) => r(t),
                None => r(r(smax * m.max(n) as f64) * eps::<T>()),
            };
            s.iter().filter(|v| v.to_f64() > tol).count() as DefaultInt
        })
        .collect()
}

/// `jnp.linalg.matrix_rank(a)`: the number of singular values above
/// `s_max · max(M, N) · eps` (JAX's default tolerance), for a matrix or a
/// batch of them. The result (JAX's default integer, `[..]` of the batch
/// axes) is the caller's annotated type, checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[1.0, 2.0], [2.0, 4.0]]);
/// let r: Array<DefaultInt> = jnp::linalg::matrix_rank(&a);
/// assert_eq!(r.item(), 1);
/// ```
#[track_caller]
pub fn matrix_rank<R, A>(a: A) -> R
where
    A: AsArray,
    ElemOf<A>: LinalgFloat,
    R: ArrayType<Elem = DefaultInt>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let ranks = rank_data("matrix_rank", a.data(), dims, None);
    shape::check_result::<R>("matrix_rank", DefaultInt::DTYPE, &dims[..dims.len() - 2]);
    R::from_data(ranks)
}

/// `jnp.linalg.matrix_rank(a, tol)`: the number of singular values above
/// the absolute tolerance `tol` (JAX's `rtol`/`tol` argument is compared
/// with the singular values as it is, not scaled by the largest).
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f64, 2, 2>::from([[1.0, 0.0], [0.0, 1e-3]]);
/// let r: Array<DefaultInt> = jnp::linalg::matrix_rank_with(&a, 1e-2);
/// assert_eq!(r.item(), 1);
/// ```
#[track_caller]
pub fn matrix_rank_with<R, A>(a: A, tol: f64) -> R
where
    A: AsArray,
    ElemOf<A>: LinalgFloat,
    R: ArrayType<Elem = DefaultInt>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let ranks = rank_data("matrix_rank", a.data(), dims, Some(tol));
    shape::check_result::<R>("matrix_rank", DefaultInt::DTYPE, &dims[..dims.len() - 2]);
    R::from_data(ranks)
}
