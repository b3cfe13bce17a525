//! SciPy's LU functions (`jax.scipy.linalg.lu`, `lu_factor`, `lu_solve`)
//! over the LU kernel that `jnp::linalg::solve` and jitted code use.

use crate::array::{ArrayType, AsArray};
use crate::element::DType;
use crate::jnp::linalg::lu::{by_dtype, cast_vec, lu_parts, matrices, square, Field};
use crate::jnp::linalg::LinalgElement;
use crate::shape;

use crate::array::ElemOf;

fn lu_impl<T: LinalgElement, R: Field>(
    a: Vec<T>,
    batch: usize,
    n: usize,
) -> (Vec<T>, Vec<T>, Vec<T>) {
    let f = lu_parts::<R>(&cast_vec(a), batch, n, n);
    let (mut p, mut l, mut u) = (
        vec![R::ZERO; batch * n * n],
        vec![R::ZERO; batch * n * n],
        vec![R::ZERO; batch * n * n],
    );
    for k in 0..batch {
        let o = k * n * n;
        for i in 0..n {
            // `a = p·l·u`: row `perm[i]` of `a` is row `i` of `l·u`.
            p[o + f.perm[k * n + i] as usize * n + i] = R::ONE;
            for j in 0..n {
                let v = f.lu[o + i * n + j];
                match i.cmp(&j) {
                    std::cmp::Ordering::Greater => l[o + i * n + j] = v,
                    std::cmp::Ordering::Equal => {
                        l[o + i * n + j] = R::ONE;
                        u[o + i * n + j] = v;
                    }
                    std::cmp::Ordering::Less => u[o + i * n + j] = v,
                }
            }
        }
    }
    (cast_vec(p), cast_vec(l), cast_vec(u))
}

/// The LU decomposition with partial pivoting of each square matrix of
/// `[.., N, N]` (`jax.scipy.linalg.lu`): `(p, l, u)` with `a = p·l·u`, `p`
/// a permutation matrix, `l` unit lower and `u` upper triangular. (JAX also
/// takes non-square matrices; here the factors have `a`'s type, so `a` must
/// be square: a non-square one panics.)
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
/// let (p, l, u) = jax::scipy::linalg::lu(&a);
/// assert_eq!(p.to_vec(), [0.0, 1.0, 1.0, 0.0]);
/// assert_eq!(u.to_vec()[..2], [3.0, 4.0]);
/// assert_eq!(l.to_vec()[0], 1.0);
/// ```
#[track_caller]
pub fn lu<A>(a: A) -> (A::Array, A::Array, A::Array)
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
{
    let (batch, n) = square("lu", <A::Array as ArrayType>::SHAPE, |t| {
        format!("lu: this crate's `lu` takes square matrices [..., n, n], got {t}")
    });
    let a = a.into_array();
    let (p, l, u) = by_dtype!(ElemOf<A>, lu_impl(a.data().to_vec(), batch, n));
    (
        A::Array::from_data(p),
        A::Array::from_data(l),
        A::Array::from_data(u),
    )
}

fn lu_factor_impl<T: LinalgElement, R: Field>(
    a: Vec<T>,
    batch: usize,
    m: usize,
    n: usize,
) -> (Vec<T>, Vec<i32>) {
    let f = lu_parts::<R>(&cast_vec(a), batch, m, n);
    (cast_vec(f.lu), f.pivots)
}

/// The packed LU factorization of each `[.., M, N]` matrix
/// (`jax.scipy.linalg.lu_factor`): `(lu, piv)`, `lu` holding `l` below the
/// diagonal (its unit diagonal implied) and `u` on and above, `piv` the
/// LAPACK pivots (row `i` was swapped with row `piv[i]`), an i32 array
/// `[.., min(M, N)]` of the annotated type (checked when the call runs).
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
/// let (lu, piv): (_, Array<i32, 2>) = jax::scipy::linalg::lu_factor(&a);
/// assert_eq!(piv.to_vec(), [1, 1]);
/// assert_eq!(lu.to_vec()[..2], [3.0, 4.0]);
/// ```
#[track_caller]
pub fn lu_factor<Piv, A>(a: A) -> (A::Array, Piv)
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    Piv: ArrayType<Elem = i32>,
{
    let dims = <A::Array as ArrayType>::SHAPE;
    let (batch, m, n) = matrices("lu_factor", dims);
    let mut pd = dims[..dims.len() - 2].to_vec();
    pd.push(m.min(n));
    shape::check_result::<Piv>("lu_factor", DType::I32, &pd);
    let a = a.into_array();
    let (lu, piv) = by_dtype!(ElemOf<A>, lu_factor_impl(a.data().to_vec(), batch, m, n));
    (A::Array::from_data(lu), Piv::from_data(piv))
}

fn lu_solve_impl<T: LinalgElement, R: Field>(
    lu: Vec<T>,
    piv: &[i32],
    b: Vec<T>,
    a_batch: usize,
    n: usize,
    r: usize,
) -> Vec<T> {
    let lu: Vec<R> = cast_vec(lu);
    let mut perm = vec![0i32; a_batch * n];
    for (p, pv) in perm.chunks_mut(n.max(1)).zip(piv.chunks(n.max(1))) {
        crate::__rt::linalg::pivots_to_permutation(pv, p);
    }
    let mut x: Vec<R> = cast_vec(b);
    let batch = x.len() / (n * r).max(1);
    if a_batch == batch {
        R::lu_solve_kernel(&lu, &perm, &mut x, batch, n, r, false);
    } else {
        for chunk in x.chunks_mut((n * r).max(1)) {
            R::lu_solve_kernel(&lu, &perm, chunk, 1, n, r, false);
        }
    }
    cast_vec(x)
}

/// Solves `a·x = b` from `lu_factor(a)`'s `(lu, piv)`
/// (`jax.scipy.linalg.lu_solve`); `b` a vector `[N]` (with one matrix) or
/// matrices `[.., N, K]` whose leading axes equal `lu`'s (or `lu` is one
/// matrix shared by them). A zero pivot gives inf/nan, as JAX.
///
/// ```
/// use jax::prelude::*;
/// use jax::scipy::linalg;
/// let a = Array::<f64, 2, 2>::from([[3.0, 1.0], [1.0, 2.0]]);
/// let (lu, piv): (_, Array<i32, 2>) = linalg::lu_factor(&a);
/// let x = linalg::lu_solve((&lu, &piv), &Array::<f64, 2>::from([9.0, 8.0]));
/// assert!((x.to_vec()[0] - 2.0).abs() < 1e-12 && (x.to_vec()[1] - 3.0).abs() < 1e-12);
/// ```
#[track_caller]
pub fn lu_solve<L, P, B>(lu_and_piv: (L, P), b: B) -> B::Array
where
    L: AsArray,
    P: AsArray,
    B: AsArray,
    ElemOf<L>: LinalgElement,
    P::Array: ArrayType<Elem = i32>,
    B::Array: ArrayType<Elem = ElemOf<L>>,
{
    let (lu, piv) = lu_and_piv;
    let (ld, pd, bd) = (
        <L::Array as ArrayType>::SHAPE,
        <P::Array as ArrayType>::SHAPE,
        <B::Array as ArrayType>::SHAPE,
    );
    let (a_batch, n) = square("lu_solve", ld, |t| {
        format!("lu_solve: `lu` must have shape [..., n, n], got {t}")
    });
    let (rows, r) = if bd.len() == 1 {
        (bd[0], 1)
    } else {
        (bd[bd.len() - 2], bd[bd.len() - 1])
    };
    let (lbd, bbd) = (&ld[..ld.len() - 2], &bd[..bd.len().saturating_sub(2)]);
    let mut want_piv = lbd.to_vec();
    want_piv.push(n);
    if rows != n || pd != want_piv.as_slice() || !(lbd.is_empty() || lbd == bbd) {
        panic!("lu_solve: inconsistent shapes: lu {ld:?}, piv {pd:?}, b {bd:?}");
    }
    let (lu, piv, b) = (lu.into_array(), piv.into_array(), b.into_array());
    let x = by_dtype!(
        ElemOf<L>,
        lu_solve_impl(
            lu.data().to_vec(),
            piv.data(),
            b.data().to_vec(),
            a_batch,
            n,
            r
        )
    );
    B::Array::from_data(x)
}
