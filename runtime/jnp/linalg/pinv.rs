//! `jnp.linalg.pinv` and `matrix_rank`: the one text of each
//! (`jax_core::linalg`, which jitted bodies trace) run eagerly, through
//! the SVD kernel (`__rt::linalg::svd_*`) and the gemm of `dot_general`.

use crate::array::{ArrayType, AsArray};
use crate::eager;
use crate::element::DefaultInt;
use jax_core::ir::Scalar;

use super::eigh::ElemOf;
use super::LinalgFloat;

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

impl From<PinvOptions> for jax_core::linalg::PinvOptions {
    fn from(o: PinvOptions) -> Self {
        jax_core::linalg::PinvOptions {
            rtol: o.rtol,
            hermitian: o.hermitian,
        }
    }
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
    let r = eager::call(|l| jax_core::linalg::pinv(l, eager::arg(a), opts.into()));
    eager::typed("pinv", r)
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
    let r = eager::call(|l| jax_core::linalg::matrix_rank(l, eager::arg(a), None));
    eager::typed("matrix_rank", r)
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
    let r = eager::call(|l| {
        let tol = jax_core::jnp::weak_literal(l, Scalar::Float(tol));
        jax_core::linalg::matrix_rank(l, eager::arg(a), Some(tol))
    });
    eager::typed("matrix_rank", r)
}
