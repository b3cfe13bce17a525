//! `jnp.linalg.qr` (modes "reduced", "complete", "r") over the last two
//! axes, leading axes a batch, on the runtime's faer kernels
//! (`__rt::linalg::qr_f32`/`qr_f64`, which jitted code calls too).

use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::shape;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element types of `qr` (f32 and f64): each with its kernel.
pub trait QrFloat: Element + sealed::Sealed {
    /// `q` and `r` of `batch` row-major `m × n` matrices (see
    /// `__rt::linalg::qr_f32`).
    #[doc(hidden)]
    fn qr_kernel(a: &[Self], batch: usize, m: usize, n: usize, full: bool) -> (Vec<Self>, Vec<Self>);
}

macro_rules! qr_float {
    ($t:ty, $f:ident) => {
        impl QrFloat for $t {
            fn qr_kernel(
                a: &[$t],
                batch: usize,
                m: usize,
                n: usize,
                full: bool,
            ) -> (Vec<$t>, Vec<$t>) {
                let k = if full { m } else { m.min(n) };
                let mut q = vec![0.0; batch * m * k];
                let mut r = vec![0.0; batch * k * n];
                crate::__rt::linalg::$f(a, &mut q, &mut r, batch, m, n, full);
                (q, r)
            }
        }
    };
}
qr_float!(f32, qr_f32);
qr_float!(f64, qr_f64);

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
pub trait QrResult<T: QrFloat>: Sized {
    #[doc(hidden)]
    fn from_factors(mode: QrMode, dims: &[usize], k: usize, q: Vec<T>, r: Vec<T>, weak: bool) -> Self;
}

fn factor_shape(dims: &[usize], rows: usize, cols: usize) -> Vec<usize> {
    let mut s = dims[..dims.len() - 2].to_vec();
    s.extend([rows, cols]);
    s
}

impl<T: QrFloat, Q: ArrayType<Elem = T>, R: ArrayType<Elem = T>> QrResult<T> for (Q, R) {
    #[track_caller]
    fn from_factors(mode: QrMode, dims: &[usize], k: usize, q: Vec<T>, r: Vec<T>, weak: bool) -> Self {
        assert!(
            mode != QrMode::R,
            "qr_with(a, QrMode::R) returns r alone: annotate one array, not a tuple"
        );
        let (m, n) = (dims[dims.len() - 2], dims[dims.len() - 1]);
        shape::check_result::<Q>("qr's q", T::DTYPE, &factor_shape(dims, m, k));
        shape::check_result::<R>("qr's r", T::DTYPE, &factor_shape(dims, k, n));
        (Q::from_data(q).set_weak(weak), R::from_data(r).set_weak(weak))
    }
}

impl<T: QrFloat, const D0: usize, const D1: usize, const D2: usize, const D3: usize, const D4: usize, const D5: usize>
    QrResult<T> for crate::Array<T, D0, D1, D2, D3, D4, D5>
where
    crate::Array<T, D0, D1, D2, D3, D4, D5>: ArrayType<Elem = T>,
{
    #[track_caller]
    fn from_factors(mode: QrMode, dims: &[usize], k: usize, _: Vec<T>, r: Vec<T>, weak: bool) -> Self {
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
    <A::Array as ArrayType>::Elem: QrFloat,
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
    <A::Array as ArrayType>::Elem: QrFloat,
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
    let (q, r) = QrFloat::qr_kernel(x.data(), batch, m, n, full);
    Out::from_factors(mode, dims, k, q, r, x.is_weak())
}
