//! `jnp.linalg.cholesky`, and the batch helpers `scipy::linalg`'s Cholesky
//! and triangular-solve functions share: the kernels of
//! `__rt::linalg` (faer) over the last two axes, leading axes a batch.

use super::LinalgElement;
use crate::array::{ArrayType, AsArray};

/// The element type of an array argument.
pub(crate) use crate::array::ElemOf;

/// `(batch, n)` of a batch of square matrices, or a panic naming `op`:
/// shapes are types here, so a non-square matrix is a programming error
/// like an out-of-bounds index (in `#[jax::jit]` it is a compile error).
#[track_caller]
pub(crate) fn square_batch(op: &str, dims: &[usize]) -> (usize, usize) {
    assert!(
        dims.len() >= 2,
        "{op}: needs a matrix or a batch of matrices, got shape {dims:?}"
    );
    let (r, c) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    assert!(
        r == c,
        "The input to {op} must be a square matrix. Got shape ({r}, {c})."
    );
    (dims[..dims.len() - 2].iter().product(), r)
}

/// Each `n × n` matrix of a batch conjugate-transposed (transposed, for
/// real matrices).
pub(crate) fn adjoint_each<T: LinalgElement>(x: &[T], n: usize) -> Vec<T> {
    let mut out = x.to_vec();
    for (src, dst) in x.chunks(n * n).zip(out.chunks_mut(n * n)) {
        for i in 0..n {
            for j in 0..n {
                dst[j * n + i] = src[i * n + j].conj();
            }
        }
    }
    out
}

/// `(a + aᴴ) / 2` of each matrix, on and below the diagonal only (the
/// Cholesky kernel reads nothing else; the upper triangle is left zero),
/// in 32×32 tiles so the transposed reads stay in cache.
fn symmetrized_lower<T: LinalgElement>(x: &[T], n: usize) -> Vec<T> {
    const TILE: usize = 32;
    let two = T::ONE + T::ONE;
    let mut out = vec![T::ZERO; x.len()];
    for (src, dst) in x.chunks(n * n).zip(out.chunks_mut(n * n)) {
        for bi in (0..n).step_by(TILE) {
            for bj in (0..=bi).step_by(TILE) {
                for i in bi..(bi + TILE).min(n) {
                    for j in bj..(bj + TILE).min(i + 1) {
                        dst[i * n + j] = (src[i * n + j] + src[j * n + i].conj()) / two;
                    }
                }
            }
        }
    }
    out
}

/// The lower factors of a batch (only the lower triangles read), NaN
/// below the diagonal of one that is not positive definite and zeros above
/// (the primitive then JAX's `_tril`).
pub(crate) fn lower_factors<T: LinalgElement>(a: &[T], batch: usize, n: usize) -> Vec<T> {
    let mut out = vec![T::ZERO; a.len()];
    T::cholesky_kernel(a, &mut out, batch, n);
    for m in out.chunks_mut((n * n).max(1)) {
        for i in 0..n {
            for v in &mut m[i * n + i + 1..(i + 1) * n] {
                *v = T::ZERO;
            }
        }
    }
    out
}

/// The Cholesky factor `L` (lower triangular, `a = L Lᴴ`) of a symmetric
/// (Hermitian, for complex elements) positive-definite matrix, or of each
/// matrix of a batch `[.., N, N]` (`jnp.linalg.cholesky(a)`). As JAX, the
/// input is symmetrized first (`(a + aᴴ) / 2`), and a matrix that is not
/// positive definite gives NaN (below and on the diagonal), not an error:
/// check with `is_nan`.
///
/// A non-square matrix panics: shapes are types, so it is a programming
/// error like an out-of-bounds index (in `#[jax::jit]` it is a compile
/// error at the call).
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<f32, 2, 2>::from([[4.0, 2.0], [2.0, 5.0]]);
/// let l = jnp::linalg::cholesky(&a);
/// assert_eq!(l.to_vec(), [2.0, 0.0, 1.0, 2.0]);
/// let bad = Array::<f32, 2, 2>::from([[1.0, 2.0], [2.0, 1.0]]);
/// assert!(jnp::linalg::cholesky(&bad).to_vec()[0].is_nan());
/// let h = Array::<Complex<f64>, 2, 2>::from([
///     [Complex::new(4.0, 0.0), Complex::new(2.0, 2.0)],
///     [Complex::new(2.0, -2.0), Complex::new(6.0, 0.0)],
/// ]);
/// let l = jnp::linalg::cholesky(&h).to_vec();
/// assert_eq!((l[0], l[2], l[3]), (Complex::new(2.0, 0.0), Complex::new(1.0, -1.0), Complex::new(2.0, 0.0)));
/// ```
#[track_caller]
pub fn cholesky<A>(a: A) -> A::Array
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
{
    let (batch, n) = square_batch("cholesky", <A::Array as ArrayType>::SHAPE);
    let a = a.into_array();
    let sym = symmetrized_lower(a.data(), n);
    A::Array::from_data(lower_factors(&sym, batch, n)).set_weak(a.is_weak())
}
