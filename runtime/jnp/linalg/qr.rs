//! `jnp.linalg.qr` (modes "reduced", "complete", "r"), `eig` and
//! `eigvals` over the last two axes, leading axes a batch, on the
//! runtime's faer kernels (`__rt::linalg::qr_f32`/`qr_f64`, which jitted
//! code calls too, and `eig_f32`/`eig_f64`).

use super::LinalgElement;
use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::shape;

/// `jnp.linalg.qr`'s `mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QrMode {
    /// `q [.., m, k]`, `r [.., k, n]` with `k = min(m, n)` (JAX's default).
    #[default]
    Reduced,
    /// `q [.., m, m]`, `r [.., m, n]`.
    Complete,
    /// `r [.., k, n]` alone.
    R,
}

/// What `qr_with` returns: `(q, r)` for `QrMode::Reduced` and
/// `QrMode::Complete`, `r` alone for `QrMode::R` (JAX returns a bare `r`
/// there); the caller's annotation picks it.
pub trait QrResult<T: LinalgElement>: Sized {
    #[doc(hidden)]
    fn from_factors(
        mode: QrMode,
        dims: &[usize],
        k: usize,
        q: Vec<T>,
        r: Vec<T>,
        weak: bool,
    ) -> Self;
}

fn factor_shape(dims: &[usize], rows: usize, cols: usize) -> Vec<usize> {
    let mut s = dims[..dims.len() - 2].to_vec();
    s.extend([rows, cols]);
    s
}

impl<T: LinalgElement, Q: ArrayType<Elem = T>, R: ArrayType<Elem = T>> QrResult<T> for (Q, R) {
    #[track_caller]
    fn from_factors(
        mode: QrMode,
        dims: &[usize],
        k: usize,
        q: Vec<T>,
        r: Vec<T>,
        weak: bool,
    ) -> Self {
        assert!(
            mode != QrMode::R,
            "qr_with(a, QrMode::R) returns r alone: annotate one array, not a tuple"
        );
        let (m, n) = (dims[dims.len() - 2], dims[dims.len() - 1]);
        shape::check_result::<Q>("qr's q", T::DTYPE, &factor_shape(dims, m, k));
        shape::check_result::<R>("qr's r", T::DTYPE, &factor_shape(dims, k, n));
        (
            Q::from_data(q).set_weak(weak),
            R::from_data(r).set_weak(weak),
        )
    }
}

impl<
        T: LinalgElement,
        const D0: usize,
        const D1: usize,
        const D2: usize,
        const D3: usize,
        const D4: usize,
        const D5: usize,
    > QrResult<T> for crate::Array<T, D0, D1, D2, D3, D4, D5>
where
    crate::Array<T, D0, D1, D2, D3, D4, D5>: ArrayType<Elem = T>,
{
    #[track_caller]
    fn from_factors(
        mode: QrMode,
        dims: &[usize],
        k: usize,
        _: Vec<T>,
        r: Vec<T>,
        weak: bool,
    ) -> Self {
        assert!(
            mode == QrMode::R,
            "qr_with(a, {mode:?}) returns (q, r): annotate a tuple of two arrays"
        );
        let n = dims[dims.len() - 1];
        shape::check_result::<Self>("qr's r", T::DTYPE, &factor_shape(dims, k, n));
        Self::from_data(r).set_weak(weak)
    }
}

/// The QR decomposition `a = q · r` of each matrix (the last two axes;
/// leading axes are a batch), reduced as `jnp.linalg.qr(a)`: `q` is
/// `[.., m, k]` with orthonormal columns, `r` `[.., k, n]` upper
/// triangular, `k = min(m, n)`. The signs are LAPACK's (as JAX's): a
/// Householder reflection per column, `r`'s diagonal of the opposite sign
/// to the column's leading element.
///
/// The result types are the caller's annotation (Rust cannot compute `k`
/// from the input's type) and are checked when the call runs: a wrong one
/// panics naming the right type, as an out-of-bounds index does. An input
/// of rank below 2 panics with JAX's message.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 3, 2>::from([[3.0, 1.0], [4.0, 2.0], [0.0, 2.0]]);
/// let (q, r): (Array<f32, 3, 2>, Array<f32, 2, 2>) = jnp::linalg::qr(&a);
/// assert!((r.to_vec()[0] + 5.0).abs() < 1e-6); // -‖(3, 4, 0)‖, LAPACK's sign
/// let back = q.matmul(&r);
/// assert!(back.to_vec().iter().zip(a.to_vec()).all(|(x, y)| (x - y).abs() < 1e-5));
/// ```
#[track_caller]
pub fn qr<A, Q, R>(a: A) -> (Q, R)
where
    A: AsArray,
    <A::Array as ArrayType>::Elem: LinalgElement,
    Q: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    R: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
{
    qr_with(a, QrMode::Reduced)
}

/// `jnp.linalg.qr(a, mode)`: `(q, r)` for [`QrMode::Reduced`] (`q [.., m,
/// min(m, n)]`) and [`QrMode::Complete`] (`q [.., m, m]`, `r [.., m, n]`),
/// `r` alone for [`QrMode::R`]; see [`qr`].
///
/// ```
/// use jax::prelude::*;
/// use jax::jnp::linalg::QrMode;
/// let a = Array::<f64, 3, 2>::from([[3.0, 1.0], [4.0, 2.0], [0.0, 2.0]]);
/// let (q, r): (Array<f64, 3, 3>, Array<f64, 3, 2>) = jnp::linalg::qr_with(&a, QrMode::Complete);
/// let qtq = q.t().matmul(&q);
/// assert!((qtq.to_vec()[4] - 1.0).abs() < 1e-12);
/// assert_eq!(r.to_vec()[4..], [0.0, 0.0]);
/// let r_only: Array<f64, 2, 2> = jnp::linalg::qr_with(&a, QrMode::R);
/// assert_eq!(r_only.to_vec()[0], r.to_vec()[0]);
/// ```
#[track_caller]
pub fn qr_with<A, Out>(a: A, mode: QrMode) -> Out
where
    A: AsArray,
    <A::Array as ArrayType>::Elem: LinalgElement,
    Out: QrResult<<A::Array as ArrayType>::Elem>,
{
    let dims = <A::Array as ArrayType>::SHAPE;
    assert!(
        dims.len() >= 2,
        "Input 0 to qr must have rank at least 2, but got shape={dims:?}"
    );
    let (m, n) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    let batch: usize = dims[..dims.len() - 2].iter().product();
    let full = mode == QrMode::Complete;
    let k = if full { m } else { m.min(n) };
    let x = a.into_array();
    let (q, r) = LinalgElement::qr_kernel(x.data(), batch, m, n, full);
    Out::from_factors(mode, dims, k, q, r, x.is_weak())
}

/// The batch size and `n` of square matrices, or JAX's error as a panic
/// (shapes are types: a non-square matrix is a programming error, like an
/// out-of-bounds index).
#[track_caller]
fn square(name: &str, dims: &[usize]) -> (usize, usize) {
    assert!(
        dims.len() >= 2,
        "Input 0 to {name} must have rank at least 2, but got shape={dims:?}"
    );
    let (m, n) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    assert!(
        m == n,
        "The input to eig must be a square matrix. Got shape ({m}, {n})."
    );
    (dims[..dims.len() - 2].iter().product(), n)
}

/// `jnp.linalg.eig(a)`: the eigenvalues `w [.., n]` and right eigenvectors
/// `v [.., n, n]` (column `j` for `w[j]`) of each square matrix, real or
/// complex, as complex arrays (`Complex<f32>` for f32 and `Complex<f32>`
/// input, `Complex<f64>` for f64 and `Complex<f64>`).
/// The eigenvectors are normalized as LAPACK's `geev` (and so JAX's): unit
/// norm, largest component real. A conjugate pair comes with the positive
/// imaginary part first, as geev; the ORDER of the eigenvalues is faer's
/// Schur form's, which can differ from LAPACK's (compare them as sets).
/// A matrix with non-finite elements gives NaNs, as JAX. The result types
/// are the caller's annotation, checked when the call runs; a non-square
/// input panics with JAX's message. Eager only: `#[jax::jit]` has no
/// complex arrays yet.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f64, 2, 2>::from([[0.0, -1.0], [1.0, 0.0]]); // a rotation
/// let (w, v): (Array<Complex<f64>, 2>, Array<Complex<f64>, 2, 2>) = jnp::linalg::eig(&a);
/// assert!((w.to_vec()[0] - Complex::new(0.0, 1.0)).norm() < 1e-12);
/// // A v = λ v for the first column.
/// let (v0, v1) = (v.to_vec()[0], v.to_vec()[2]);
/// assert!((Complex::new(0.0, 0.0) * v0 - v1 - w.to_vec()[0] * v0).norm() < 1e-12);
/// ```
#[track_caller]
pub fn eig<A, W, V>(a: A) -> (W, V)
where
    A: AsArray,
    <A::Array as ArrayType>::Elem: LinalgElement,
    W: ArrayType<Elem = <<A::Array as ArrayType>::Elem as LinalgElement>::Complex>,
    V: ArrayType<Elem = <<A::Array as ArrayType>::Elem as LinalgElement>::Complex>,
{
    let dims = <A::Array as ArrayType>::SHAPE;
    let (batch, n) = square("eig", dims);
    let x = a.into_array();
    let (w, v) = LinalgElement::eig_kernel(x.data(), batch, n, true);
    let dtype = <<<A::Array as ArrayType>::Elem as LinalgElement>::Complex as Element>::DTYPE;
    shape::check_result::<W>("eig's w", dtype, &dims[..dims.len() - 1]);
    shape::check_result::<V>("eig's v", dtype, dims);
    (W::from_data(w), V::from_data(v))
}

/// `jnp.linalg.eigvals(a)`: the eigenvalues `[.., n]` of each (real or complex) square
/// matrix, complex; see [`eig`] (their order is faer's, LAPACK's may
/// differ). Eager only: `#[jax::jit]` has no complex arrays yet.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[2.0, 1.0], [0.0, 3.0]]);
/// let w: Array<Complex<f32>, 2> = jnp::linalg::eigvals(&a);
/// let mut re: Vec<f32> = w.to_vec().iter().map(|z| z.re).collect();
/// re.sort_by(f32::total_cmp);
/// assert_eq!(re, [2.0, 3.0]);
/// ```
#[track_caller]
pub fn eigvals<A, W>(a: A) -> W
where
    A: AsArray,
    <A::Array as ArrayType>::Elem: LinalgElement,
    W: ArrayType<Elem = <<A::Array as ArrayType>::Elem as LinalgElement>::Complex>,
{
    let dims = <A::Array as ArrayType>::SHAPE;
    let (batch, n) = square("eigvals", dims);
    let x = a.into_array();
    let (w, _) = LinalgElement::eig_kernel(x.data(), batch, n, false);
    let dtype = <<<A::Array as ArrayType>::Elem as LinalgElement>::Complex as Element>::DTYPE;
    shape::check_result::<W>("eigvals", dtype, &dims[..dims.len() - 1]);
    W::from_data(w)
}
