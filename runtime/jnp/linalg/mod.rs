//! `jnp.linalg`: factorizations, solves, determinants, norms and spectral
//! functions of matrices, over the last two axes (leading axes are a batch,
//! as in JAX). The factorizations run on faer's kernels (`runtime/rt/linalg/`);
//! the same entry points serve the jitted calls.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::__rt::linalg::{self as kernels, TriangularSolve};
use crate::element::{Complex, Element, Float};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::Complex<f32> {}
    impl Sealed for super::Complex<f64> {}
}

/// The element types of the linear-algebra functions (`jnp::linalg` and
/// `jax::scipy::linalg`): `f32`, `f64`, `Complex<f32>` and `Complex<f64>`,
/// as JAX's LAPACK kernels. [`LinalgElement::Real`] is the real type of the
/// same precision: singular values, the eigenvalues of `eigh`, norms and
/// `slogdet`'s log-determinant have it; [`LinalgElement::Complex`] is the
/// complex one, which `eig`'s results have.
///
/// Integer (and bool, f16, bf16) arrays are not accepted. JAX promotes them
/// (`jnp.linalg.inv(jnp.eye(3, dtype=int))` is f32), but here the element
/// type of a result is part of its Rust type: accepting `Array<i32, ..>`
/// would make `inv(&a)` return an array of another element type than the
/// input's, unlike every other function of this module with a result of
/// the input's shape, and would hide a precision choice (f32, or f64 under
/// x64) that the caller can state in one call: `a.astype::<f32>()`. In
/// `#[jax::jit]`, where types are JAX's, integers are promoted as JAX does.
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 2, 2>::from([[2, 0], [0, 4]]);
/// let i = jnp::linalg::inv(&a.astype::<f32>());
/// assert_eq!(i.to_vec(), [0.5, 0.0, 0.0, 0.25]);
/// ```
pub trait LinalgElement:
    Element
    + sealed::Sealed
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The real type of this precision: `f32` for `f32` and `Complex<f32>`.
    type Real: LinalgFloat;
    /// The complex type of this precision: `Complex<f32>` for `f32` and
    /// `Complex<f32>`.
    type Complex: LinalgElement<Real = Self::Real>;
    #[doc(hidden)]
    const IS_COMPLEX: bool;
    #[doc(hidden)]
    fn from_real(r: Self::Real) -> Self;
    #[doc(hidden)]
    fn conj(self) -> Self;
    /// `|x|²` in f64.
    #[doc(hidden)]
    fn modulus_squared_f64(self) -> f64;
    /// `(sign, log|det|)` from the diagonal of `U` and the number of row
    /// swaps, as JAX's `_slogdet_lu`.
    #[doc(hidden)]
    fn slogdet_from_lu(diag: &[Self], swaps: usize) -> (Self, Self::Real);
    /// `sign · exp(logdet)`, as JAX's `_det` for large matrices.
    #[doc(hidden)]
    fn sign_times_exp(sign: Self, logdet: Self::Real) -> Self;
    #[doc(hidden)]
    fn cholesky_kernel(a: &[Self], out: &mut [Self], batch: usize, n: usize);
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn triangular_solve_kernel(
        a: &[Self],
        b: &[Self],
        out: &mut [Self],
        batch: usize,
        m: usize,
        rows: usize,
        cols: usize,
        options: TriangularSolve,
        conjugate_a: bool,
    );
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn lu_kernel(
        a: &[Self],
        lu: &mut [Self],
        piv: &mut [i32],
        perm: &mut [i32],
        batch: usize,
        m: usize,
        n: usize,
    );
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn lu_solve_kernel(
        lu: &[Self],
        perm: &[i32],
        x: &mut [Self],
        batch: usize,
        n: usize,
        r: usize,
        trans: bool,
    );
    /// `q` and `r` of `batch` row-major `m × n` matrices.
    #[doc(hidden)]
    fn qr_kernel(
        a: &[Self],
        batch: usize,
        m: usize,
        n: usize,
        full: bool,
    ) -> (Vec<Self>, Vec<Self>);
    #[doc(hidden)]
    fn eigh_kernel(
        a: &[Self],
        v: &mut [Self],
        w: &mut [Self::Real],
        batch: usize,
        n: usize,
        lower: bool,
    );
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn svd_kernel(
        a: &[Self],
        s: &mut [Self::Real],
        u: &mut [Self],
        vt: &mut [Self],
        batch: usize,
        m: usize,
        n: usize,
        full: bool,
        uv: bool,
    );
    /// Eigenvalues and, with `vectors`, right eigenvectors.
    #[doc(hidden)]
    fn eig_kernel(
        a: &[Self],
        batch: usize,
        n: usize,
        vectors: bool,
    ) -> (Vec<Self::Complex>, Vec<Self::Complex>);
}

/// The real [`LinalgElement`]s, `f32` and `f64`.
pub trait LinalgFloat: LinalgElement<Real = Self> + Float {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}

/// The kernels of one element type: `$suffix` names the runtime's entry
/// points (`cholesky_f32`, `cholesky_c64`, ...).
macro_rules! kernels {
    ($t:ty, $chol:ident, $trsm:path, $lu:ident, $lu_solve:ident, $qr:ident, $eigh:ident,
     $svd:ident, $eig:ident) => {
        fn cholesky_kernel(a: &[$t], out: &mut [$t], batch: usize, n: usize) {
            kernels::$chol(a, out, batch, n)
        }
        fn triangular_solve_kernel(
            a: &[$t],
            b: &[$t],
            out: &mut [$t],
            batch: usize,
            m: usize,
            rows: usize,
            cols: usize,
            options: TriangularSolve,
            conjugate_a: bool,
        ) {
            $trsm(a, b, out, batch, m, rows, cols, options, conjugate_a)
        }
        fn lu_kernel(
            a: &[$t],
            lu: &mut [$t],
            piv: &mut [i32],
            perm: &mut [i32],
            batch: usize,
            m: usize,
            n: usize,
        ) {
            kernels::$lu(a, lu, piv, perm, batch, m, n)
        }
        fn lu_solve_kernel(
            lu: &[$t],
            perm: &[i32],
            x: &mut [$t],
            batch: usize,
            n: usize,
            r: usize,
            trans: bool,
        ) {
            kernels::$lu_solve(lu, perm, x, batch, n, r, trans)
        }
        fn qr_kernel(a: &[$t], batch: usize, m: usize, n: usize, full: bool) -> (Vec<$t>, Vec<$t>) {
            let k = if full { m } else { m.min(n) };
            let mut q = vec![<$t as Element>::ZERO; batch * m * k];
            let mut r = vec![<$t as Element>::ZERO; batch * k * n];
            kernels::$qr(a, &mut q, &mut r, batch, m, n, full);
            (q, r)
        }
        fn eigh_kernel(
            a: &[$t],
            v: &mut [$t],
            w: &mut [Self::Real],
            batch: usize,
            n: usize,
            lower: bool,
        ) {
            kernels::$eigh(a, v, w, batch, n, lower)
        }
        fn svd_kernel(
            a: &[$t],
            s: &mut [Self::Real],
            u: &mut [$t],
            vt: &mut [$t],
            batch: usize,
            m: usize,
            n: usize,
            full: bool,
            uv: bool,
        ) {
            kernels::$svd(a, s, u, vt, batch, m, n, full, uv)
        }
        fn eig_kernel(
            a: &[$t],
            batch: usize,
            n: usize,
            vectors: bool,
        ) -> (Vec<Self::Complex>, Vec<Self::Complex>) {
            let zero = <Self::Complex as Element>::ZERO;
            let mut w = vec![zero; batch * n];
            let mut v = vec![zero; if vectors { batch * n * n } else { 0 }];
            let v_out = if vectors { Some(&mut v[..]) } else { None };
            kernels::$eig(a, &mut w, v_out, batch, n);
            (w, v)
        }
    };
}

macro_rules! real_element {
    ($t:ty, $($k:tt)*) => {
        impl LinalgElement for $t {
            type Real = $t;
            type Complex = Complex<$t>;
            const IS_COMPLEX: bool = false;
            fn from_real(r: $t) -> $t {
                r
            }
            fn conj(self) -> $t {
                self
            }
            fn modulus_squared_f64(self) -> f64 {
                let v = self as f64;
                v * v
            }
            fn slogdet_from_lu(diag: &[$t], swaps: usize) -> ($t, $t) {
                // The parity of the swaps and the negative pivots.
                let negative = diag.iter().filter(|&&d| d < 0.0).count();
                let sign = if (swaps + negative) % 2 == 1 { -1.0 } else { 1.0 };
                (sign, diag.iter().fold(0.0, |s, d| s + d.abs().ln()))
            }
            fn sign_times_exp(sign: $t, logdet: $t) -> $t {
                sign * logdet.exp()
            }
            kernels!($t, $($k)*);
        }
    };
}

macro_rules! complex_element {
    ($r:ty, $($k:tt)*) => {
        impl LinalgElement for Complex<$r> {
            type Real = $r;
            type Complex = Complex<$r>;
            const IS_COMPLEX: bool = true;
            fn from_real(r: $r) -> Self {
                Complex::new(r, 0.0)
            }
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            fn modulus_squared_f64(self) -> f64 {
                let (re, im) = (self.re as f64, self.im as f64);
                re * re + im * im
            }
            fn slogdet_from_lu(diag: &[Self], swaps: usize) -> (Self, $r) {
                // JAX: the product of the pivots' phases, times the swaps' parity.
                let phase = diag
                    .iter()
                    .fold(Complex::new(1.0, 0.0), |p, &d| p * (d / Complex::new(d.norm(), 0.0)));
                let sign = if swaps % 2 == 1 { -phase } else { phase };
                (sign, diag.iter().fold(0.0, |s, d| s + d.norm().ln()))
            }
            fn sign_times_exp(sign: Self, logdet: $r) -> Self {
                sign * Complex::new(logdet.exp(), 0.0)
            }
            kernels!(Complex<$r>, $($k)*);
        }
    };
}

/// The real triangular solves, taking (and ignoring: it has no effect on
/// real matrices) the complex ones' `conjugate_a`.
macro_rules! real_triangular_solve {
    ($name:ident, $t:ty, $kernel:ident) => {
        #[allow(clippy::too_many_arguments)]
        fn $name(
            a: &[$t],
            b: &[$t],
            out: &mut [$t],
            batch: usize,
            m: usize,
            rows: usize,
            cols: usize,
            options: TriangularSolve,
            _conjugate_a: bool,
        ) {
            kernels::$kernel(a, b, out, batch, m, rows, cols, options)
        }
    };
}
real_triangular_solve!(triangular_solve_f32, f32, triangular_solve_f32);
real_triangular_solve!(triangular_solve_f64, f64, triangular_solve_f64);

real_element!(
    f32,
    cholesky_f32,
    triangular_solve_f32,
    lu_f32,
    lu_solve_f32,
    qr_f32,
    eigh_f32,
    svd_f32,
    eig_f32
);
real_element!(
    f64,
    cholesky_f64,
    triangular_solve_f64,
    lu_f64,
    lu_solve_f64,
    qr_f64,
    eigh_f64,
    svd_f64,
    eig_f64
);
complex_element!(
    f32,
    cholesky_c64,
    kernels::triangular_solve_c64,
    lu_c64,
    lu_solve_c64,
    qr_c64,
    eigh_c64,
    svd_c64,
    eig_c64
);
complex_element!(
    f64,
    cholesky_c128,
    kernels::triangular_solve_c128,
    lu_c128,
    lu_solve_c128,
    qr_c128,
    eigh_c128,
    svd_c128,
    eig_c128
);

pub(crate) mod lu;
pub use lu::*;

mod eigh;
pub use eigh::*;
mod qr;
pub use qr::*;

pub(crate) mod cholesky;
pub use cholesky::*;

mod lstsq;
pub use lstsq::*;
mod norm;
pub use norm::*;
mod pinv;
pub use pinv::*;
