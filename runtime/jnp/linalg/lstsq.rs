//! `jnp.linalg.lstsq`: least squares through the SVD, JAX's `_lstsq` with
//! `rcond=None`; the one text (`jax_core::linalg::lstsq`, which jitted
//! bodies trace) run eagerly. As JAX's, it takes one matrix `a` (no batch)
//! and `b` a vector or a matrix.

use crate::array::{ArrayType, AsArray};
use crate::eager;
use crate::element::DefaultInt;

use super::eigh::ElemOf;
use super::LinalgFloat;

/// `jnp.linalg.lstsq(a, b)`: `(x, resid, rank, s)` in JAX's order, `x`
/// minimizing `‖b − a·x‖₂`: `x` is `[N]` for a vector `b` `[M]`, else
/// `[N, K]` for `b` `[M, K]`; `resid` the squared residual norms of `b`'s
/// columns (`[1]` for a vector `b`, `[K]` else; JAX's default
/// `numpy_resid=False` always gives them); `rank` the effective rank (JAX's
/// default integer); `s` the singular values `[min(M, N)]`. Singular values
/// below `eps · max(M, N) · s_max` are dropped (JAX's `rcond=None`). The
/// result types are the caller's annotation, checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f64, 3, 2>::from([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]);
/// let b = Array::<f64, 3>::from([1.0, 2.0, 3.0]);
/// let (x, resid, rank, s): (Array<f64, 2>, Array<f64, 1>, Array<DefaultInt>, Array<f64, 2>) =
///     jnp::linalg::lstsq(&a, &b);
/// assert_eq!(x.to_vec(), vec![1.0, 2.0]);
/// assert_eq!(resid.to_vec(), vec![9.0]);
/// assert_eq!(rank.item(), 2);
/// assert_eq!(s.to_vec(), vec![1.0, 1.0]);
/// ```
///
/// # Panics
/// When `a` is not a matrix, `b` not a vector or matrix, or their leading
/// dimensions differ (JAX's messages): shapes are types here, so a wrong
/// one is a programming error (in `#[jax::jit]` it is a compile error).
#[track_caller]
pub fn lstsq<X, R, S, A, B>(a: A, b: B) -> (X, R, crate::Array<DefaultInt>, S)
where
    A: AsArray,
    B: AsArray<Array: ArrayType<Elem = ElemOf<A>>>,
    ElemOf<A>: LinalgFloat,
    X: ArrayType<Elem = ElemOf<A>>,
    R: ArrayType<Elem = ElemOf<A>>,
    S: ArrayType<Elem = ElemOf<A>>,
{
    let [x, resid, rank, s] =
        eager::call(|l| jax_core::linalg::lstsq(l, eager::arg(a), eager::arg(b)));
    (
        eager::typed("lstsq", x),
        eager::typed("lstsq", resid),
        eager::typed("lstsq", rank),
        eager::typed("lstsq", s),
    )
}
