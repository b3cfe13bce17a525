//! `jnp.linalg.lstsq`: least squares through the SVD kernel
//! (`__rt::linalg::svd_*`), with JAX's `rcond=None` cutoff. As JAX's, it
//! takes one matrix `a` (no batch) and `b` a vector or a matrix.

use crate::array::{ArrayType, AsArray};
use crate::element::{DefaultInt, Element};
use crate::shape;

use super::eigh::{svd_data, ElemOf};
use super::pinv::{eps, rounder};
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
    let (a, b) = (a.into_array(), b.into_array());
    let (ad, bd) = (
        <A::Array as ArrayType>::SHAPE,
        <B::Array as ArrayType>::SHAPE,
    );
    assert!(
        ad.len() == 2,
        "lstsq: {}-dimensional array given. Array must be two-dimensional",
        ad.len()
    );
    assert!(
        bd.len() == 1 || bd.len() == 2,
        "lstsq: {}-dimensional array given. Array must be one or two-dimensional",
        bd.len()
    );
    assert!(
        ad[0] == bd[0],
        "lstsq: Leading dimensions of input arrays must match (a {ad:?}, b {bd:?})"
    );
    let (m, n) = (ad[0], ad[1]);
    let kb = if bd.len() == 2 { bd[1] } else { 1 };
    let k = m.min(n);
    let rd = rounder::<ElemOf<A>>();
    let f = |v: &ElemOf<A>| v.to_f64();
    let (ad_, bd_): (Vec<f64>, Vec<f64>) = (
        a.data().iter().map(f).collect(),
        b.data().iter().map(f).collect(),
    );
    let mut x = vec![0.0; n * kb];
    let mut rank = 0;
    let mut s_out = Vec::new();
    if k > 0 {
        let (s, u, vt, _) = svd_data("lstsq", a.data(), ad, false, true);
        let (s, u, vt): (Vec<f64>, Vec<f64>, Vec<f64>) = (
            s.iter().map(f).collect(),
            u.iter().map(f).collect(),
            vt.iter().map(f).collect(),
        );
        let rcond = rd(eps::<ElemOf<A>>() * m.max(n) as f64);
        let limit = rd(rcond * s[0]);
        let mask: Vec<bool> = s.iter().map(|&v| v > 0.0 && v >= limit).collect();
        rank = mask.iter().filter(|&&m| m).count();
        let s_inv: Vec<f64> = s
            .iter()
            .zip(&mask)
            .map(|(&v, &keep)| if keep { rd(1.0 / v) } else { 0.0 })
            .collect();
        // uᵀ·b scaled by s_inv, then vtᵀ times it.
        let mut utb = vec![0.0; k * kb];
        for l in 0..k {
            for c in 0..kb {
                let mut acc = 0.0;
                for i in 0..m {
                    acc = rd(acc + rd(u[i * k + l] * bd_[i * kb + c]));
                }
                utb[l * kb + c] = rd(s_inv[l] * acc);
            }
        }
        for i in 0..n {
            for c in 0..kb {
                let mut acc = 0.0;
                for l in 0..k {
                    acc = rd(acc + rd(vt[l * n + i] * utb[l * kb + c]));
                }
                x[i * kb + c] = acc;
            }
        }
        s_out = s;
    }
    // resid = norm(b - a·x, axis=0) ** 2, rounded as JAX computes it.
    let resid: Vec<f64> = (0..kb)
        .map(|c| {
            let mut sq = 0.0;
            for i in 0..m {
                let mut est = 0.0;
                for j in 0..n {
                    est = rd(est + rd(ad_[i * n + j] * x[j * kb + c]));
                }
                let d = rd(bd_[i * kb + c] - est);
                sq = rd(sq + rd(d * d));
            }
            let norm = rd(sq.sqrt());
            rd(norm * norm)
        })
        .collect();
    let dtype = <ElemOf<A> as Element>::DTYPE;
    let x_shape: Vec<usize> = if bd.len() == 2 { vec![n, kb] } else { vec![n] };
    shape::check_result::<X>("lstsq", dtype, &x_shape);
    shape::check_result::<R>("lstsq", dtype, &[kb]);
    shape::check_result::<S>("lstsq", dtype, &[k]);
    let to = |v: Vec<f64>| {
        v.into_iter()
            .map(<ElemOf<A> as Element>::from_f64)
            .collect()
    };
    (
        X::from_data(to(x)),
        R::from_data(to(resid)),
        crate::Array::<DefaultInt>::from_data(vec![rank as DefaultInt]),
        S::from_data(to(s_out)),
    )
}
