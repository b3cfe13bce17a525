//! `jax.scipy.linalg`'s Cholesky functions and triangular solves:
//! `cholesky(a, lower)`, `cho_factor`, `cho_solve`, `solve_triangular` and
//! `solve_triangular_with`, over `__rt::linalg`'s kernels (faer), the same
//! ones jitted code calls. Leading axes are a batch, as JAX.

use crate::__rt::linalg::TriangularSolve;
use crate::array::{ArrayType, AsArray};
use crate::jnp::linalg::cholesky::{adjoint_each, lower_factors, square_batch, ElemOf};
use crate::jnp::linalg::LinalgElement;

/// The Cholesky factor of a symmetric positive-definite matrix (or of each
/// of a batch `[.., N, N]`): upper `U` with `a = Uᵀ U` by default, as
/// SciPy (`lower = false`), or lower `L` with `a = L Lᵀ`
/// (`jax.scipy.linalg.cholesky(a, lower)`). Only the triangle named by
/// `lower` is read; no symmetrization. A matrix that is not positive
/// definite gives NaN in the factor's triangle, not an error.
///
/// A non-square matrix panics: shapes are types, so it is a programming
/// error like an out-of-bounds index (a compile error in `#[jax::jit]`).
///
/// ```
/// use jax::prelude::*;
/// use jax::scipy::linalg;
/// let a = Array::<f64, 2, 2>::from([[4.0, 2.0], [2.0, 5.0]]);
/// assert_eq!(linalg::cholesky(&a, false).to_vec(), [2.0, 1.0, 0.0, 2.0]);
/// assert_eq!(linalg::cholesky(&a, true).to_vec(), [2.0, 0.0, 1.0, 2.0]);
/// ```
#[track_caller]
pub fn cholesky<A>(a: A, lower: bool) -> A::Array
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
{
    let (batch, n) = square_batch("cholesky", <A::Array as ArrayType>::SHAPE);
    let a = a.into_array();
    let data = if lower {
        lower_factors(a.data(), batch, n)
    } else {
        // JAX: the factor of `aᴴ`, conjugate-transposed back.
        let l = lower_factors(&adjoint_each(a.data(), n), batch, n);
        adjoint_each(&l, n)
    };
    A::Array::from_data(data).set_weak(a.is_weak())
}

/// The factor [`cho_solve`] takes, and which triangle it is
/// (`jax.scipy.linalg.cho_factor(a, lower)`): `(cholesky(a, lower), lower)`.
/// As JAX, the other triangle of the factor is zero (SciPy leaves it
/// unspecified).
///
/// ```
/// use jax::prelude::*;
/// use jax::scipy::linalg;
/// let a = Array::<f64, 2, 2>::from([[4.0, 2.0], [2.0, 5.0]]);
/// let (c, lower) = linalg::cho_factor(&a, true);
/// assert!(lower);
/// assert_eq!(c.to_vec(), [2.0, 0.0, 1.0, 2.0]);
/// ```
#[track_caller]
pub fn cho_factor<A>(a: A, lower: bool) -> (A::Array, bool)
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
{
    (cholesky(a, lower), lower)
}

/// `x` with `a x = b`, from `a`'s Cholesky factor as [`cho_factor`] gives it
/// (`jax.scipy.linalg.cho_solve((c, lower), b)`): two triangular solves.
/// `b` is a vector `[.., N]` (one axis fewer than `c`) or matrix `[.., N, K]`
/// of right-hand sides.
///
/// ```
/// use jax::prelude::*;
/// use jax::scipy::linalg;
/// let a = Array::<f64, 2, 2>::from([[4.0, 2.0], [2.0, 5.0]]);
/// let b = Array::<f64, 2>::from([8.0, 12.0]);
/// let x = linalg::cho_solve(linalg::cho_factor(&a, false), &b);
/// for (got, want) in x.to_vec().iter().zip([1.0, 2.0]) {
///     assert!((got - want).abs() < 1e-12);
/// }
/// ```
#[track_caller]
pub fn cho_solve<C, B>(c_and_lower: (C, bool), b: B) -> B::Array
where
    C: AsArray,
    B: AsArray,
    B::Array: ArrayType<Elem = ElemOf<C>>,
    ElemOf<C>: LinalgElement,
{
    let (c, lower) = c_and_lower;
    let first = TriangularSolve {
        left_side: true,
        lower,
        transpose_a: !lower,
        unit_diagonal: false,
    };
    let second = TriangularSolve {
        transpose_a: lower,
        ..first
    };
    let c = c.into_array();
    let b = b.into_array();
    let shape_c = <C::Array as ArrayType>::SHAPE;
    let shape_b = <B::Array as ArrayType>::SHAPE;
    // As JAX, each transposed solve is conjugated too (`Lᴴ`, `Uᴴ`).
    let y = solve_left(
        "cho_solve",
        c.data(),
        shape_c,
        b.data(),
        shape_b,
        first,
        !lower,
    );
    let x = solve_left("cho_solve", c.data(), shape_c, &y, shape_b, second, lower);
    B::Array::from_data(x).set_weak(b.is_weak())
}

/// SciPy's `trans`: which of `a x = b` (`N`), `aᵀ x = b` (`T`) or
/// `aᴴ x = b` (`C`, the same as `T` for real matrices) to solve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trans {
    /// `a x = b` (SciPy's `0` or `'N'`).
    #[default]
    N,
    /// `aᵀ x = b` (`1` or `'T'`).
    T,
    /// `aᴴ x = b` (`2` or `'C'`).
    C,
}

/// The keywords of [`solve_triangular_with`], SciPy's names and defaults
/// (`lower = false`: the upper triangle is read).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveTriangularOptions {
    /// Read `a`'s lower triangle (else its upper one).
    pub lower: bool,
    /// Solve with `a`, `aᵀ` or `aᴴ`.
    pub trans: Trans,
    /// Take `a`'s diagonal as ones, never reading it.
    pub unit_diagonal: bool,
}

/// `x` with `a x = b` for triangular `a`, reading `a`'s lower triangle when
/// `lower`, else its upper one (`jax.scipy.linalg.solve_triangular(a, b,
/// lower=lower)`). `b` is a vector `[.., N]` (one axis fewer than `a`) or a
/// matrix `[.., N, K]`; `a` is a matrix, or a batch with `b`'s leading
/// axes. A zero on the diagonal gives inf/nan, as LAPACK, not an error.
///
/// ```
/// use jax::prelude::*;
/// use jax::scipy::linalg;
/// let l = Array::<f32, 2, 2>::from([[2.0, 0.0], [1.0, 4.0]]);
/// let b = Array::<f32, 2>::from([2.0, 9.0]);
/// assert_eq!(linalg::solve_triangular(&l, &b, true).to_vec(), [1.0, 2.0]);
/// ```
#[track_caller]
pub fn solve_triangular<A, B>(a: A, b: B, lower: bool) -> B::Array
where
    A: AsArray,
    B: AsArray,
    B::Array: ArrayType<Elem = ElemOf<A>>,
    ElemOf<A>: LinalgElement,
{
    solve_triangular_with(
        a,
        b,
        SolveTriangularOptions {
            lower,
            ..Default::default()
        },
    )
}

/// [`solve_triangular`] with SciPy's other keywords: `trans` (solve with
/// `aᵀ`) and `unit_diagonal`.
///
/// ```
/// use jax::prelude::*;
/// use jax::scipy::linalg::{self, SolveTriangularOptions, Trans};
/// let l = Array::<f32, 2, 2>::from([[2.0, 0.0], [1.0, 4.0]]);
/// let b = Array::<f32, 2>::from([4.0, 8.0]);
/// let opts = SolveTriangularOptions { lower: true, trans: Trans::T, ..Default::default() };
/// // lᵀ x = b: [[2, 1], [0, 4]] x = [4, 8]
/// assert_eq!(linalg::solve_triangular_with(&l, &b, opts).to_vec(), [1.0, 2.0]);
/// ```
#[track_caller]
pub fn solve_triangular_with<A, B>(a: A, b: B, options: SolveTriangularOptions) -> B::Array
where
    A: AsArray,
    B: AsArray,
    B::Array: ArrayType<Elem = ElemOf<A>>,
    ElemOf<A>: LinalgElement,
{
    let o = TriangularSolve {
        left_side: true,
        lower: options.lower,
        transpose_a: options.trans != Trans::N,
        unit_diagonal: options.unit_diagonal,
    };
    let a = a.into_array();
    let b = b.into_array();
    let x = solve_left(
        "solve_triangular",
        a.data(),
        <A::Array as ArrayType>::SHAPE,
        b.data(),
        <B::Array as ArrayType>::SHAPE,
        o,
        options.trans == Trans::C,
    );
    B::Array::from_data(x).set_weak(b.is_weak())
}

/// `op(a) x = b` over the batch, `b` vectors when it has one axis fewer
/// than `a` (or one axis), `a` shared by every matrix of `b` when it has
/// no batch axes.
#[track_caller]
fn solve_left<T: LinalgElement>(
    op: &str,
    a: &[T],
    shape_a: &[usize],
    b: &[T],
    shape_b: &[usize],
    o: TriangularSolve,
    conjugate_a: bool,
) -> Vec<T> {
    let (batch_a, m) = square_batch(op, shape_a);
    let vector = shape_b.len() + 1 == shape_a.len() || shape_b.len() == 1;
    // `b` as a batch of `m × cols` matrices.
    let (b_batch, cols): (&[usize], usize) = if vector {
        (&shape_b[..shape_b.len() - 1], 1)
    } else {
        assert!(
            shape_b.len() >= 2,
            "{op}: b must be a vector or a matrix, got shape {shape_b:?}"
        );
        (&shape_b[..shape_b.len() - 2], shape_b[shape_b.len() - 1])
    };
    let rows = if vector {
        shape_b[shape_b.len() - 1]
    } else {
        shape_b[shape_b.len() - 2]
    };
    assert!(
        rows == m,
        "Incompatible shapes for arguments to triangular_solve: ({m}, {m}) and ({rows}, {cols})."
    );
    let batch: usize = b_batch.iter().product();
    let a_batch = &shape_a[..shape_a.len() - 2];
    let mut out = vec![T::ZERO; b.len()];
    if a_batch == b_batch {
        T::triangular_solve_kernel(a, b, &mut out, batch, m, rows, cols, o, conjugate_a);
    } else if a_batch.is_empty() {
        // One `a` for every matrix of `b`.
        let shared: Vec<T> = (0..batch).flat_map(|_| a.iter().copied()).collect();
        T::triangular_solve_kernel(&shared, b, &mut out, batch, m, rows, cols, o, conjugate_a);
    } else {
        panic!("{op}: a's batch axes {a_batch:?} must be b's {b_batch:?}, or a a single matrix");
    }
    let _ = batch_a;
    out
}
