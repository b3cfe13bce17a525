//! Everything built on LU with partial pivoting: `solve`, `inv`, `det`,
//! `slogdet` and `matrix_power` (and, through [`lu_parts`], SciPy's `lu`,
//! `lu_factor` and `lu_solve`), computed as JAX computes them on the LU
//! kernel `__rt::linalg::lu_f32`/`lu_f64` that jitted code calls too.
//!
//! A matrix that must be square and is not panics at the call with JAX's
//! message: shapes are types here, so a wrong one is a programming error
//! like an out-of-bounds index. A singular matrix is not an error: it gives
//! inf/nan (and a zero determinant), as JAX (LAPACK) does.

use std::any::Any;

use super::LinalgElement;
use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::shape;

/// The element types the LU-based functions compute in: every
/// [`LinalgElement`] carries its own kernels.
pub(crate) use super::LinalgElement as Field;

/// The element type of an array argument.
use crate::array::ElemOf;

/// A buffer of `T` as the same buffer of `R` (they are the same type:
/// [`by_dtype!`] picks `R = T`, whose kernels `LinalgElement` carries).
pub(crate) fn cast_vec<T: 'static, R: 'static>(v: Vec<T>) -> Vec<R> {
    *(Box::new(v) as Box<dyn Any>)
        .downcast::<Vec<R>>()
        .unwrap_or_else(|_| unreachable!("by_dtype! picks R = T"))
}

/// Runs `$f::<T, R>(..)` with `R` the kernels' type for element type `$t`:
/// `$t` itself, since every `LinalgElement` has its own kernels.
macro_rules! by_dtype {
    ($t:ty, $f:ident($($arg:expr),*)) => {
        $f::<$t, $t>($($arg),*)
    };
}
pub(crate) use by_dtype;

/// `(batch, rows, cols)` of an array of matrices, or JAX's message for a
/// rank below 2 (`what` names the function).
#[track_caller]
pub(crate) fn matrices(what: &str, dims: &[usize]) -> (usize, usize, usize) {
    let r = dims.len();
    assert!(
        r >= 2,
        "{what}: the input must have at least 2 dimensions [..., m, n], got {dims:?}"
    );
    (dims[..r - 2].iter().product(), dims[r - 2], dims[r - 1])
}

/// `(batch, n)` of an array of square matrices, or `message` (JAX's).
#[track_caller]
pub(crate) fn square(
    what: &str,
    dims: &[usize],
    message: impl Fn(String) -> String,
) -> (usize, usize) {
    let (b, m, n) = matrices(what, dims);
    if m != n {
        let t: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        let t = if t.len() == 1 {
            format!("({},)", t[0])
        } else {
            format!("({})", t.join(", "))
        };
        panic!("{}", message(t));
    }
    (b, n)
}

/// The packed factors, pivots and permutation of each matrix.
pub(crate) struct Lu<R> {
    pub lu: Vec<R>,
    pub pivots: Vec<i32>,
    pub perm: Vec<i32>,
}

pub(crate) fn lu_parts<R: Field>(a: &[R], batch: usize, m: usize, n: usize) -> Lu<R> {
    let mut out = Lu {
        lu: vec![R::ZERO; batch * m * n],
        pivots: vec![0; batch * m.min(n)],
        perm: vec![0; batch * m],
    };
    R::lu_kernel(a, &mut out.lu, &mut out.pivots, &mut out.perm, batch, m, n);
    out
}

/// `solve(a, b)` over matching batches: `b` holds `r` columns per system
/// (`r = 1` for vectors), `a_batch` is 1 (shared) or the batch.
fn solve_real<R: Field>(
    a: &[R],
    b: Vec<R>,
    a_batch: usize,
    batch: usize,
    n: usize,
    r: usize,
) -> Vec<R> {
    let f = lu_parts(a, a_batch, n, n);
    let mut x = b;
    if a_batch == batch {
        R::lu_solve_kernel(&f.lu, &f.perm, &mut x, batch, n, r, false);
    } else {
        for chunk in x.chunks_mut(n * r) {
            R::lu_solve_kernel(&f.lu, &f.perm, chunk, 1, n, r, false);
        }
    }
    x
}

fn solve_impl<T: LinalgElement, R: Field>(
    a: Vec<T>,
    b: Vec<T>,
    a_batch: usize,
    batch: usize,
    n: usize,
    r: usize,
) -> Vec<T> {
    cast_vec(solve_real::<R>(
        &cast_vec(a),
        cast_vec(b),
        a_batch,
        batch,
        n,
        r,
    ))
}

/// The solution `x` of `a·x = b` (`jnp.linalg.solve`), through LU with
/// partial pivoting. `a` is `[.., N, N]`; `b` is a vector `[N]` (then `a`
/// must be one matrix) or matrices `[.., N, K]` whose leading axes `a`'s
/// broadcast to, as JAX broadcasts them. The result has `b`'s shape (in
/// jit, where the result's type is the caller's, `a`'s batch may also be
/// the larger one, as JAX allows).
/// A singular `a` gives inf/nan, as JAX.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[3.0, 1.0], [1.0, 2.0]]);
/// let b = Array::<f32, 2>::from([9.0, 8.0]);
/// let x = jnp::linalg::solve(&a, &b);
/// assert!((x.to_vec()[0] - 2.0).abs() < 1e-6 && (x.to_vec()[1] - 3.0).abs() < 1e-6);
/// ```
#[track_caller]
pub fn solve<A, B>(a: A, b: B) -> B::Array
where
    A: AsArray,
    B: AsArray,
    ElemOf<A>: LinalgElement,
    B::Array: ArrayType<Elem = ElemOf<A>>,
{
    let (ad, bd) = (
        <A::Array as ArrayType>::SHAPE,
        <B::Array as ArrayType>::SHAPE,
    );
    let (a_batch, n) = square("solve", ad, |t| {
        format!("solve: the left-hand side must have shape [..., n, n], got {t}")
    });
    let (batch, rows, r) = if bd.len() == 1 {
        (1, bd[0], 1)
    } else {
        matrices("solve", bd)
    };
    let (abd, bbd) = (&ad[..ad.len() - 2], &bd[..bd.len().saturating_sub(2)]);
    // JAX broadcasts the batch axes of `a` and `b`; the result here has
    // `b`'s type, so `a`'s batch must broadcast to `b`'s.
    let a_fits = abd.len() <= bbd.len()
        && abd
            .iter()
            .rev()
            .zip(bbd.iter().rev())
            .all(|(x, y)| x == y || *x == 1);
    if rows != n || !(abd.is_empty() || (bd.len() > 1 && a_fits)) {
        panic!(
            "solve: inconsistent shapes {ad:?} and {bd:?}: `b` must be [{n}] (with one matrix) or [.., {n}, K] whose leading axes `a`'s broadcast to (broadcast `b` first, e.g. with `jnp::broadcast_to`, when the result has more axes than `b`)"
        );
    }
    let (a, b) = (a.into_array(), b.into_array());
    let mut a_data = a.data().to_vec();
    let mut a_batch = a_batch;
    if !abd.is_empty() && abd != bbd {
        a_data = broadcast_batch(&a_data, abd, bbd, n * n);
        a_batch = batch;
    }
    let x = by_dtype!(
        ElemOf<A>,
        solve_impl(a_data, b.data().to_vec(), a_batch, batch, n, r)
    );
    B::Array::from_data(x)
}

/// Matrices of `size` elements over the batch `from`, repeated over the
/// batch `to` that `from` broadcasts to (NumPy's rule).
fn broadcast_batch<T: Copy>(data: &[T], from: &[usize], to: &[usize], size: usize) -> Vec<T> {
    let lead = to.len() - from.len();
    let count: usize = to.iter().product();
    let mut out = Vec::with_capacity(count * size);
    for k in 0..count {
        // The source index: `k`'s digits in `to`, size-1 axes of `from` at 0.
        let (mut rest, mut src, mut stride) = (k, 0, 1);
        for (axis, &d) in to.iter().enumerate().rev() {
            let digit = rest % d;
            rest /= d;
            if axis >= lead {
                let f = from[axis - lead];
                if f != 1 {
                    src += digit * stride;
                }
                stride *= f;
            }
        }
        out.extend_from_slice(&data[src * size..(src + 1) * size]);
    }
    out
}

fn eye<R: Field>(batch: usize, n: usize) -> Vec<R> {
    let mut e = vec![R::ZERO; batch * n * n];
    for k in 0..batch {
        for i in 0..n {
            e[k * n * n + i * n + i] = R::ONE;
        }
    }
    e
}

fn inv_real<R: Field>(a: &[R], batch: usize, n: usize) -> Vec<R> {
    solve_real(a, eye(batch, n), batch, batch, n, n)
}

fn inv_impl<T: LinalgElement, R: Field>(a: Vec<T>, batch: usize, n: usize) -> Vec<T> {
    cast_vec(inv_real::<R>(&cast_vec(a), batch, n))
}

/// The inverse of each matrix of `[.., N, N]` (`jnp.linalg.inv`: `solve`
/// with the identity). A singular matrix gives inf/nan, as JAX.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f64, 2, 2>::from([[4.0, 7.0], [2.0, 6.0]]);
/// let i = jnp::linalg::inv(&a).to_vec();
/// let want = [0.6, -0.7, -0.2, 0.4];
/// assert!(i.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
#[track_caller]
pub fn inv<A>(a: A) -> A::Array
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
{
    let (batch, n) = square("inv", <A::Array as ArrayType>::SHAPE, |t| {
        format!("Argument to inv must have shape [..., n, n], got {t}.")
    });
    let a = a.into_array();
    A::Array::from_data(by_dtype!(ElemOf<A>, inv_impl(a.data().to_vec(), batch, n)))
}

/// `(sign, log|det|)` of each matrix, as JAX's `_slogdet_lu`: the product
/// of `U`'s diagonal in logs, the sign from the pivots' parity and the
/// negative diagonal entries; a zero on the diagonal gives `(0, -inf)`.
pub(crate) fn slogdet_real<R: Field>(a: &[R], batch: usize, n: usize) -> (Vec<R>, Vec<R::Real>) {
    let f = lu_parts(a, batch, n, n);
    let (mut sign, mut logdet) = (Vec::with_capacity(batch), Vec::with_capacity(batch));
    for k in 0..batch {
        let diag: Vec<R> = (0..n).map(|i| f.lu[k * n * n + i * n + i]).collect();
        let zero = diag.contains(&R::ZERO);
        let swaps = (0..n).filter(|&i| f.pivots[k * n + i] != i as i32).count();
        let (s, l) = R::slogdet_from_lu(&diag, swaps);
        sign.push(if zero { R::ZERO } else { s });
        logdet.push(if zero {
            <R::Real as crate::element::Float>::NEG_INFINITY
        } else {
            l
        });
    }
    (sign, logdet)
}

/// JAX's `_det`: closed forms for 2×2 and 3×3 (in its order of
/// operations), `sign·exp(logdet)` otherwise.
fn det_real<R: Field>(a: &[R], batch: usize, n: usize) -> Vec<R> {
    let m = |k: usize, i: usize, j: usize| a[k * n * n + i * n + j];
    match n {
        2 => (0..batch)
            .map(|k| m(k, 0, 0) * m(k, 1, 1) - m(k, 0, 1) * m(k, 1, 0))
            .collect(),
        3 => (0..batch)
            .map(|k| {
                let t = |a: (usize, usize), b: (usize, usize), c: (usize, usize)| {
                    m(k, a.0, a.1) * m(k, b.0, b.1) * m(k, c.0, c.1)
                };
                t((0, 0), (1, 1), (2, 2)) + t((0, 1), (1, 2), (2, 0)) + t((0, 2), (1, 0), (2, 1))
                    - t((0, 2), (1, 1), (2, 0))
                    - t((0, 0), (1, 2), (2, 1))
                    - t((0, 1), (1, 0), (2, 2))
            })
            .collect(),
        _ => {
            let (s, l) = slogdet_real(a, batch, n);
            s.into_iter()
                .zip(l)
                .map(|(s, l)| R::sign_times_exp(s, l))
                .collect()
        }
    }
}

fn det_impl<T: LinalgElement, R: Field>(a: Vec<T>, batch: usize, n: usize) -> Vec<T> {
    cast_vec(det_real::<R>(&cast_vec(a), batch, n))
}

fn slogdet_impl<T: LinalgElement, R: Field>(
    a: Vec<T>,
    batch: usize,
    n: usize,
) -> (Vec<T>, Vec<T::Real>) {
    let (s, l) = slogdet_real::<R>(&cast_vec(a), batch, n);
    (cast_vec(s), cast_vec(l))
}

/// The determinant of each matrix of `[.., N, N]` (`jnp.linalg.det`), an
/// array of the leading axes' shape chosen by the annotation (checked when
/// the call runs). A singular matrix gives 0.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
/// let d: Array<f32> = jnp::linalg::det(&a);
/// assert_eq!(d.item(), -2.0);
/// ```
#[track_caller]
pub fn det<Out, A>(a: A) -> Out
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let dims = <A::Array as ArrayType>::SHAPE;
    let (batch, n) = square("det", dims, |t| {
        format!("Argument to _det() must have shape [..., n, n], got {t}")
    });
    shape::check_result::<Out>(
        "det",
        <ElemOf<A> as Element>::DTYPE,
        &dims[..dims.len() - 2],
    );
    let a = a.into_array();
    Out::from_data(by_dtype!(ElemOf<A>, det_impl(a.data().to_vec(), batch, n)))
}

/// The sign and the natural log of the absolute determinant of each matrix
/// of `[.., N, N]` (`jnp.linalg.slogdet`), in JAX's order: `let (sign,
/// logabsdet) = slogdet(&a)`. A singular matrix gives `(0, -inf)`. For a
/// complex matrix the sign is the determinant's phase `det / |det|`
/// (complex) and the log-determinant is real, as JAX's.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f64, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
/// let (sign, logdet): (Array<f64>, Array<f64>) = jnp::linalg::slogdet(&a);
/// assert_eq!(sign.item(), -1.0);
/// assert!((logdet.item() - 2f64.ln()).abs() < 1e-12);
/// let z = Array::<Complex<f64>, 1, 1>::from([[Complex::new(0.0, 2.0)]]);
/// let (sign, logdet): (Array<Complex<f64>>, Array<f64>) = jnp::linalg::slogdet(&z);
/// assert_eq!(sign.item(), Complex::new(0.0, 1.0));
/// assert!((logdet.item() - 2f64.ln()).abs() < 1e-12);
/// ```
#[track_caller]
pub fn slogdet<Sign, LogDet, A>(a: A) -> (Sign, LogDet)
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    Sign: ArrayType<Elem = ElemOf<A>>,
    LogDet: ArrayType<Elem = <ElemOf<A> as LinalgElement>::Real>,
{
    let dims = <A::Array as ArrayType>::SHAPE;
    let (batch, n) = square("slogdet", dims, |t| {
        format!("Argument to slogdet() must have shape [..., n, n], got {t}")
    });
    let lead = &dims[..dims.len() - 2];
    shape::check_result::<Sign>("slogdet", <ElemOf<A> as Element>::DTYPE, lead);
    let real = <<ElemOf<A> as LinalgElement>::Real as Element>::DTYPE;
    shape::check_result::<LogDet>("slogdet", real, lead);
    let a = a.into_array();
    let (s, l) = by_dtype!(ElemOf<A>, slogdet_impl(a.data().to_vec(), batch, n));
    (Sign::from_data(s), LogDet::from_data(l))
}

/// Batched `x @ y` of square matrices.
fn matmul_real<R: Field>(x: &[R], y: &[R], batch: usize, n: usize) -> Vec<R> {
    let mut out = vec![R::ZERO; batch * n * n];
    for k in 0..batch {
        let o = k * n * n;
        for i in 0..n {
            for j in 0..n {
                let mut s = R::ZERO;
                for l in 0..n {
                    s = s + x[o + i * n + l] * y[o + l * n + j];
                }
                out[o + i * n + j] = s;
            }
        }
    }
    out
}

/// JAX's binary powering: `a⁻¹` first for a negative power, then squares
/// of `a` multiplied in for each set bit (2 and 3 written out).
fn matrix_power_real<R: Field>(a: &[R], batch: usize, n: usize, p: i64) -> Vec<R> {
    if p == 0 {
        return eye(batch, n);
    }
    let base = if p < 0 {
        inv_real(a, batch, n)
    } else {
        a.to_vec()
    };
    let mut p = p.unsigned_abs();
    match p {
        1 => return base,
        2 => return matmul_real(&base, &base, batch, n),
        3 => return matmul_real(&matmul_real(&base, &base, batch, n), &base, batch, n),
        _ => {}
    }
    let (mut z, mut result): (Option<Vec<R>>, Option<Vec<R>>) = (None, None);
    while p > 0 {
        z = Some(match z {
            None => base.clone(),
            Some(z) => matmul_real(&z, &z, batch, n),
        });
        let bit = p % 2;
        p /= 2;
        if bit == 1 {
            let zz = z.as_ref().expect("set above");
            result = Some(match result {
                None => zz.clone(),
                Some(r) => matmul_real(&r, zz, batch, n),
            });
        }
    }
    result.expect("p > 3 has a set bit")
}

fn matrix_power_impl<T: LinalgElement, R: Field>(
    a: Vec<T>,
    batch: usize,
    n: usize,
    p: i64,
) -> Vec<T> {
    cast_vec(matrix_power_real::<R>(&cast_vec(a), batch, n, p))
}

/// `a` raised to the integer power `n` (`jnp.linalg.matrix_power`) by
/// repeated squaring; a negative power inverts first, `0` gives the
/// identity.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[1.0, 1.0], [0.0, 1.0]]);
/// assert_eq!(jnp::linalg::matrix_power(&a, 5).to_vec(), [1.0, 5.0, 0.0, 1.0]);
/// ```
#[track_caller]
pub fn matrix_power<A>(a: A, n: i64) -> A::Array
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
{
    let (batch, size) = square("matrix_power", <A::Array as ArrayType>::SHAPE, |_| {
        "Last 2 dimensions of the array must be square".to_string()
    });
    let a = a.into_array();
    A::Array::from_data(by_dtype!(
        ElemOf<A>,
        matrix_power_impl(a.data().to_vec(), batch, size, n)
    ))
}
