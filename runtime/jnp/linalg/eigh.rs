//! `jnp.linalg.eigh`, `eigvalsh`, `svd`, `svdvals` and `norm`: the
//! symmetric eigendecomposition and the singular value decomposition of a
//! matrix or of a batch of them (leading axes), on faer's kernels
//! (`__rt::linalg::eigh_*`, `svd_*`, which jitted code calls too).
//!
//! A result whose shape the input's type does not give (eigenvalues
//! `[.., N]`, singular values `[.., min(M, N)]`, the factors `u` and `vh`)
//! is the caller's annotated type, checked when the call runs. A matrix that
//! is not square where `eigh` needs one panics with JAX's message: shapes
//! are types here, so a wrong one is a programming error, like an
//! out-of-bounds index (in `#[jax::jit]` it is a compile error at the
//! call). Ill-conditioned or non-finite input is not an error: it gives
//! what LAPACK gives, or NaNs.

use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::shape;

use super::LinalgElement;

/// The element type of an array argument.
pub(super) type ElemOf<A> = <<A as AsArray>::Array as ArrayType>::Elem;

/// The batch size and the last two axes of `dims`, or a panic naming `op`.
#[track_caller]
pub(super) fn matrix_dims(op: &str, dims: &[usize]) -> (usize, usize, usize) {
    let r = dims.len();
    assert!(
        r >= 2,
        "{op}: the input must be a matrix or a batch of them ([.., M, N]), got shape {dims:?}"
    );
    (dims[..r - 2].iter().product(), dims[r - 2], dims[r - 1])
}

/// `(a + aᴴ) / 2`, as `jnp.linalg.eigh(symmetrize_input=True)`, rounded
/// in the element type as JAX computes it.
pub(super) fn symmetrize<T: LinalgElement>(a: &[T], n: usize) -> Vec<T> {
    let two = T::ONE + T::ONE;
    let mut out = a.to_vec();
    for (m, o) in a.chunks(n * n).zip(out.chunks_mut(n * n)) {
        for i in 0..n {
            for j in 0..n {
                o[i * n + j] = (m[i * n + j] + m[j * n + i].conj()) / two;
            }
        }
    }
    out
}

/// `(w, v)` of a batch of `n`×`n` matrices, reading the lower triangle.
#[track_caller]
fn eigh_data<T: LinalgElement>(op: &str, a: &[T], dims: &[usize]) -> (Vec<T::Real>, Vec<T>) {
    eigh_data_with(op, a, dims, EighOptions::default())
}

/// `(w, v)` of a batch of `n`×`n` matrices, as `opts` says.
#[track_caller]
fn eigh_data_with<T: LinalgElement>(
    op: &str,
    a: &[T],
    dims: &[usize],
    opts: EighOptions,
) -> (Vec<T::Real>, Vec<T>) {
    let (batch, m, n) = matrix_dims(op, dims);
    assert!(
        m == n,
        "{op}: Argument to symmetric eigendecomposition must have shape [..., n, n], got shape ({m}, {n})"
    );
    let a = if opts.symmetrize_input {
        symmetrize(a, n)
    } else {
        a.to_vec()
    };
    let mut v = vec![T::ZERO; batch * n * n];
    let mut w = vec![<T::Real as Element>::ZERO; batch * n];
    T::eigh_kernel(&a, &mut v, &mut w, batch, n, opts.uplo == Uplo::L);
    (w, v)
}

/// `jnp.linalg.eigh(a)`: the eigenvalues (ascending) and eigenvectors (as
/// columns: `v[.., :, i]` goes with `w[.., i]`) of a symmetric (complex:
/// Hermitian) matrix or a batch of them, as `(w, v)` (`EighResult`'s
/// order). JAX symmetrizes `a` first, `(a + aᴴ) / 2`. The eigenvalues are
/// real (`f32` for `Complex<f32>` input); their type `[.., N]` is the
/// caller's annotation, checked when the call runs. Complex eigenvectors
/// are unique up to a phase per column, which can differ from LAPACK's.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f64, 2, 2>::from([[2.0, 1.0], [1.0, 2.0]]);
/// let (w, v): (Array<f64, 2>, _) = jnp::linalg::eigh(&a);
/// let (w, v) = (w.to_vec(), v.to_vec());
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// // A v = v diag(w), column by column.
/// for k in 0..2 {
///     for i in 0..2 {
///         let av = 2.0 * v[i * 2 + k] + v[(1 - i) * 2 + k];
///         assert!((av - w[k] * v[i * 2 + k]).abs() < 1e-12);
///     }
/// }
/// ```
///
/// # Panics
/// When `a` is not square, with JAX's message.
#[track_caller]
pub fn eigh<W, A>(a: A) -> (W, A::Array)
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    W: ArrayType<Elem = <ElemOf<A> as LinalgElement>::Real>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (w, v) = eigh_data("eigh", a.data(), dims);
    shape::check_result::<W>(
        "eigh",
        <<ElemOf<A> as LinalgElement>::Real as Element>::DTYPE,
        &dims[..dims.len() - 1],
    );
    (W::from_data(w), A::Array::from_data(v))
}

/// `jnp.linalg.eigvalsh(a)`: the eigenvalues of a symmetric matrix (or a
/// batch of them), ascending; the result type `[.., N]` is the caller's
/// annotation, checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[2.0, 1.0], [1.0, 2.0]]);
/// let w: Array<f32, 2> = jnp::linalg::eigvalsh(&a);
/// let w = w.to_vec();
/// assert!((w[0] - 1.0).abs() < 1e-6 && (w[1] - 3.0).abs() < 1e-6);
/// ```
///
/// # Panics
/// When `a` is not square, with JAX's message.
#[track_caller]
pub fn eigvalsh<W, A>(a: A) -> W
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    W: ArrayType<Elem = <ElemOf<A> as LinalgElement>::Real>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (w, _) = eigh_data("eigvalsh", a.data(), dims);
    shape::check_result::<W>(
        "eigvalsh",
        <<ElemOf<A> as LinalgElement>::Real as Element>::DTYPE,
        &dims[..dims.len() - 1],
    );
    W::from_data(w)
}

/// `(s, u, vt)` of a batch of `m`×`n` matrices (`u`, `vt` empty without `uv`).
#[allow(clippy::type_complexity)]
pub(super) fn svd_data<T: LinalgElement>(
    op: &str,
    a: &[T],
    dims: &[usize],
    full: bool,
    uv: bool,
) -> (Vec<T::Real>, Vec<T>, Vec<T>, [usize; 4]) {
    let (batch, m, n) = matrix_dims(op, dims);
    let k = m.min(n);
    let (ku, kv) = match (uv, full) {
        (false, _) => (0, 0),
        (true, true) => (m, n),
        (true, false) => (k, k),
    };
    let mut s = vec![<T::Real as Element>::ZERO; batch * k];
    let mut u = vec![T::ZERO; batch * m * ku];
    let mut vt = vec![T::ZERO; batch * kv * n];
    T::svd_kernel(a, &mut s, &mut u, &mut vt, batch, m, n, full, uv);
    (s, u, vt, [m, ku, kv, n])
}

/// `jnp.linalg.svd(a)`: `(u, s, vh)` with `a = u · diag(s) · vh`, the
/// singular values `s` descending (real, also for a complex `a`), and full matrices (`u` is `[.., M, M]`,
/// `vh` `[.., N, N]`), as JAX's defaults. The three result types are the
/// caller's annotation, checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f64, 2, 2>::from([[3.0, 0.0], [0.0, -2.0]]);
/// let (u, s, vh): (Array<f64, 2, 2>, Array<f64, 2>, Array<f64, 2, 2>) = jnp::linalg::svd(&a);
/// let (u, s, vh, a) = (u.to_vec(), s.to_vec(), vh.to_vec(), a.to_vec());
/// assert!((s[0] - 3.0).abs() < 1e-12 && (s[1] - 2.0).abs() < 1e-12);
/// // u · diag(s) · vh = a
/// for i in 0..2 {
///     for j in 0..2 {
///         let back: f64 = (0..2).map(|l| u[i * 2 + l] * s[l] * vh[l * 2 + j]).sum();
///         assert!((back - a[i * 2 + j]).abs() < 1e-12);
///     }
/// }
/// ```
#[track_caller]
pub fn svd<U, S, Vh, A>(a: A) -> (U, S, Vh)
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    U: ArrayType<Elem = ElemOf<A>>,
    S: ArrayType<Elem = <ElemOf<A> as LinalgElement>::Real>,
    Vh: ArrayType<Elem = ElemOf<A>>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (s, u, vt, [m, ku, kv, n]) = svd_data("svd", a.data(), dims, true, true);
    let dtype = <ElemOf<A> as Element>::DTYPE;
    let lead = &dims[..dims.len() - 2];
    let with = |last: &[usize]| [lead, last].concat();
    shape::check_result::<U>("svd", dtype, &with(&[m, ku]));
    let real = <<ElemOf<A> as LinalgElement>::Real as Element>::DTYPE;
    shape::check_result::<S>("svd", real, &with(&[m.min(n)]));
    shape::check_result::<Vh>("svd", dtype, &with(&[kv, n]));
    (U::from_data(u), S::from_data(s), Vh::from_data(vt))
}

/// `jnp.linalg.svdvals(a)`: the singular values, descending, of a matrix
/// or a batch of them; the result type `[.., min(M, N)]` is the caller's
/// annotation, checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 3>::from([[3.0, 0.0, 0.0], [0.0, 0.0, 4.0]]);
/// let s: Array<f32, 2> = jnp::linalg::svdvals(&a);
/// let s = s.to_vec();
/// assert!((s[0] - 4.0).abs() < 1e-6 && (s[1] - 3.0).abs() < 1e-6);
/// ```
#[track_caller]
pub fn svdvals<S, A>(a: A) -> S
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    S: ArrayType<Elem = <ElemOf<A> as LinalgElement>::Real>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (s, _, _, [m, _, _, n]) = svd_data("svdvals", a.data(), dims, true, false);
    let mut shape = dims[..dims.len() - 2].to_vec();
    shape.push(m.min(n));
    shape::check_result::<S>(
        "svdvals",
        <<ElemOf<A> as LinalgElement>::Real as Element>::DTYPE,
        &shape,
    );
    S::from_data(s)
}

/// Which triangle `eigh` reads (`UPLO`): the lower (`L`, JAX's default)
/// or the upper (`U`). It matters only without `symmetrize_input`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Uplo {
    /// The lower triangle (JAX's default, `UPLO='L'`).
    #[default]
    L,
    /// The upper triangle (`UPLO='U'`).
    U,
}

/// `jnp.linalg.eigh`'s keyword arguments, for [`eigh_with`]: `uplo`
/// (`UPLO`) and `symmetrize_input`. Rust has no keyword arguments, so the
/// `_with` form takes this struct; `EighOptions::default()` is JAX's
/// defaults (`UPLO='L'`, `symmetrize_input=True`). In `#[jax::jit]` write
/// it as a literal (`EighOptions { uplo: Uplo::U, ..Default::default() }`):
/// the options are read when the function compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EighOptions {
    /// The triangle read when the input is not symmetrized.
    pub uplo: Uplo,
    /// Whether `a` is replaced by `(a + aᴴ) / 2` first (JAX's default,
    /// which also makes the derivative symmetric).
    pub symmetrize_input: bool,
}

impl Default for EighOptions {
    fn default() -> Self {
        EighOptions {
            uplo: Uplo::L,
            symmetrize_input: true,
        }
    }
}

/// `jnp.linalg.eigh(a, UPLO=.., symmetrize_input=..)`: as [`eigh`], with
/// the options of [`EighOptions`].
///
/// ```
/// use jax::prelude::*;
/// use jax::jnp::linalg::{EighOptions, Uplo};
/// // Only the upper triangle is read: the 5.0 below the diagonal is ignored.
/// let a = Array::<f64, 2, 2>::from([[2.0, 1.0], [5.0, 2.0]]);
/// let opts = EighOptions { uplo: Uplo::U, symmetrize_input: false };
/// let (w, _v): (Array<f64, 2>, _) = jnp::linalg::eigh_with(&a, opts);
/// let w = w.to_vec();
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// ```
///
/// # Panics
/// When `a` is not square, with JAX's message.
#[track_caller]
pub fn eigh_with<W, A>(a: A, opts: EighOptions) -> (W, A::Array)
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    W: ArrayType<Elem = <ElemOf<A> as LinalgElement>::Real>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let (w, v) = eigh_data_with("eigh", a.data(), dims, opts);
    shape::check_result::<W>(
        "eigh",
        <<ElemOf<A> as LinalgElement>::Real as Element>::DTYPE,
        &dims[..dims.len() - 1],
    );
    (W::from_data(w), A::Array::from_data(v))
}

/// `jnp.linalg.svd`'s keyword arguments that keep its `(u, s, vh)` result,
/// for [`svd_with`]: `full_matrices` and `hermitian`.
///
/// JAX's third keyword, `compute_uv=False`, changes the result from a
/// tuple to the array `s` alone. A Rust function has one return type, so
/// that form is the separate function [`svdvals`] (which JAX also has,
/// and which is `svd(a, compute_uv=False)`), not a field here.
/// `SvdOptions::default()` is JAX's defaults (`full_matrices=True`,
/// `hermitian=False`). In `#[jax::jit]` write it as a literal: the
/// options are read when the function compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvdOptions {
    /// `u` `[.., M, M]` and `vh` `[.., N, N]` (true), or the thin factors
    /// `[.., M, K]`, `[.., K, N]` with `K = min(M, N)` (false).
    pub full_matrices: bool,
    /// `a` is symmetric: JAX then decomposes `(a + aᴴ) / 2`. Here the
    /// symmetrized matrix goes through the same SVD kernel, so `s` is
    /// JAX's; `u` and `vh` are a valid SVD of it whose column signs (a
    /// free choice of every SVD) may differ from JAX's eigh-based ones.
    pub hermitian: bool,
}

impl Default for SvdOptions {
    fn default() -> Self {
        SvdOptions {
            full_matrices: true,
            hermitian: false,
        }
    }
}

/// `jnp.linalg.svd(a, full_matrices=.., hermitian=..)`: `(u, s, vh)` as
/// [`svd`], with the options of [`SvdOptions`]. The result types are the
/// caller's annotation, checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// use jax::jnp::linalg::SvdOptions;
/// let a = Array::<f64, 3, 2>::from([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]]);
/// let opts = SvdOptions { full_matrices: false, ..Default::default() };
/// let (u, s, vh): (Array<f64, 3, 2>, Array<f64, 2>, Array<f64, 2, 2>) =
///     jnp::linalg::svd_with(&a, opts);
/// assert_eq!(s.to_vec(), vec![3.0, 2.0]);
/// let (u, vh) = (u.to_vec(), vh.to_vec());
/// // u · diag(s) · vh = a
/// let back: f64 = (0..2).map(|l| u[2 + l] * [3.0, 2.0][l] * vh[l * 2 + 1]).sum();
/// assert!((back + 2.0).abs() < 1e-12);
/// ```
///
/// # Panics
/// When `hermitian` is set and `a` is not square.
#[track_caller]
pub fn svd_with<U, S, Vh, A>(a: A, opts: SvdOptions) -> (U, S, Vh)
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
    U: ArrayType<Elem = ElemOf<A>>,
    S: ArrayType<Elem = <ElemOf<A> as LinalgElement>::Real>,
    Vh: ArrayType<Elem = ElemOf<A>>,
{
    let a = a.into_array();
    let dims = <A::Array as ArrayType>::SHAPE;
    let data = hermitian_input("svd", a.data(), dims, opts.hermitian);
    let (s, u, vt, [m, ku, kv, n]) = svd_data("svd", &data, dims, opts.full_matrices, true);
    let dtype = <ElemOf<A> as Element>::DTYPE;
    let lead = &dims[..dims.len() - 2];
    let with = |last: &[usize]| [lead, last].concat();
    shape::check_result::<U>("svd", dtype, &with(&[m, ku]));
    let real = <<ElemOf<A> as LinalgElement>::Real as Element>::DTYPE;
    shape::check_result::<S>("svd", real, &with(&[m.min(n)]));
    shape::check_result::<Vh>("svd", dtype, &with(&[kv, n]));
    (U::from_data(u), S::from_data(s), Vh::from_data(vt))
}

/// `a`, or `(a + aᴴ) / 2` when `hermitian` (square matrices only, as JAX's
/// eigh-based path needs).
#[track_caller]
pub(super) fn hermitian_input<T: LinalgElement>(
    op: &str,
    a: &[T],
    dims: &[usize],
    hermitian: bool,
) -> Vec<T> {
    if !hermitian {
        return a.to_vec();
    }
    let (_, m, n) = matrix_dims(op, dims);
    assert!(
        m == n,
        "{op}: Argument to symmetric eigendecomposition must have shape [..., n, n], got shape ({m}, {n}) (hermitian=true needs a square matrix)"
    );
    symmetrize(a, n)
}
