//! QR and general (non-symmetric) eigendecomposition kernels over faer:
//! `qr_f32`/`qr_f64` (Householder QR, LAPACK's `geqrf` + `orgqr` signs) and
//! `eig_f32`/`eig_f64` (eigenvalues and right eigenvectors as LAPACK's
//! `geev` returns them), each over a batch of row-major matrices.

use crate::__rt::team::SendPtr;
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::{Mat, MatRef};
use num_complex::Complex;
use rayon::prelude::*;

/// f32 and f64: faer's real field, with the arithmetic these kernels do.
trait Real:
    faer::traits::RealField
    + Copy
    + Send
    + Sync
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::AddAssign
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const NAN: Self;
    fn root(self) -> Self;
    fn finite(self) -> bool;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const NAN: Self = <$t>::NAN;
            fn root(self) -> Self {
                self.sqrt()
            }
            fn finite(self) -> bool {
                self.is_finite()
            }
        }
    };
}
real!(f32);
real!(f64);

/// Matrices at most this large (m·n) are factored one per rayon task; larger
/// ones one after another, each with faer's own parallelism.
const SMALL: usize = 128 * 128;

/// A row-major `m × n` matrix as a faer view (column-major with strides swapped).
fn view<T>(a: &[T], m: usize, n: usize) -> MatRef<'_, T> {
    MatRef::from_row_major_slice(a, m, n)
}

/// Runs `f(i)` for each matrix of a batch, in parallel when the matrices
/// are small and several.
fn for_each_matrix<F: Fn(usize) + Sync + Send>(batch: usize, size: usize, f: F) {
    if batch > 1 && size <= SMALL {
        (0..batch).into_par_iter().for_each(f);
    } else {
        (0..batch).for_each(f);
    }
}

fn qr_impl<T: Real>(
    a: &[T],
    q: &mut [T],
    r: &mut [T],
    batch: usize,
    m: usize,
    n: usize,
    full_matrices: bool,
) {
    let k = if full_matrices { m } else { m.min(n) };
    assert_eq!(a.len(), batch * m * n, "qr: input length");
    assert_eq!(q.len(), batch * m * k, "qr: q length");
    assert_eq!(r.len(), batch * k * n, "qr: r length");
    let (qp, rp) = (SendPtr(q.as_mut_ptr()), SendPtr(r.as_mut_ptr()));
    for_each_matrix(batch, m * n, |b| {
        // SAFETY: matrix `b`'s parts of q and r are disjoint from every
        // other task's and within the lengths checked above.
        let (q, r) = unsafe { (qp.part(b * m * k, m * k), rp.part(b * k * n, k * n)) };
        let x = &a[b * m * n..(b + 1) * m * n];
        if m == 0 || n == 0 {
            // JAX: q is the identity's first k columns, r zeros.
            q.iter_mut().for_each(|v| *v = T::ZERO);
            for i in 0..m.min(k) {
                q[i * k + i] = T::ONE;
            }
            r.iter_mut().for_each(|v| *v = T::ZERO);
            return;
        }
        let f = faer::linalg::solvers::Qr::new(view(x, m, n));
        let qm = if full_matrices {
            f.compute_Q()
        } else {
            f.compute_thin_Q()
        };
        for i in 0..m {
            for j in 0..k {
                q[i * k + j] = qm[(i, j)];
            }
        }
        let rm = f.R();
        for i in 0..k {
            for j in 0..n {
                // faer's R has min(m, n) rows; full QR of a tall matrix pads zeros.
                r[i * n + j] = if i < rm.nrows() && j >= i {
                    rm[(i, j)]
                } else {
                    T::ZERO
                };
            }
        }
    });
}

/// `lax.linalg.qr` of `batch` row-major `m × n` matrices: `q` is
/// `[batch, m, k]`, `r` `[batch, k, n]` with `k = m` when `full_matrices`,
/// else `min(m, n)`. Householder reflections as LAPACK's `geqrf` (R's
/// diagonal `-sign(alpha)·‖x‖`), so the signs match JAX's.
pub fn qr_f32(
    a: &[f32],
    q: &mut [f32],
    r: &mut [f32],
    batch: usize,
    m: usize,
    n: usize,
    full_matrices: bool,
) {
    qr_impl(a, q, r, batch, m, n, full_matrices)
}

/// [`qr_f32`] for f64.
pub fn qr_f64(
    a: &[f64],
    q: &mut [f64],
    r: &mut [f64],
    batch: usize,
    m: usize,
    n: usize,
    full_matrices: bool,
) {
    qr_impl(a, q, r, batch, m, n, full_matrices)
}

/// One eigendecomposition: eigenvalues into `w`, right eigenvectors (columns,
/// row-major `n × n`) into `v` when asked; NaNs when it does not converge
/// (as JAX fills a failed batch element).
fn eig_one<T: Real>(x: &[T], n: usize, w: &mut [Complex<T>], v: Option<&mut [Complex<T>]>) {
    let nan = Complex::new(T::NAN, T::NAN);
    if n == 0 {
        return;
    }
    let want = if v.is_some() {
        ComputeEigenvectors::Yes
    } else {
        ComputeEigenvectors::No
    };
    let par = faer::Par::Seq;
    let mut s_re = Diag::<T>::zeros(n);
    let mut s_im = Diag::<T>::zeros(n);
    let mut u = Mat::<T>::zeros(
        if v.is_some() { n } else { 0 },
        if v.is_some() { n } else { 0 },
    );
    let mut mem = MemBuffer::new(evd::evd_scratch::<T>(
        n,
        ComputeEigenvectors::No,
        want,
        par,
        Default::default(),
    ));
    let ok = x.iter().all(|e| e.finite())
        && evd::evd_real(
            view(x, n, n),
            s_re.as_mut(),
            s_im.as_mut(),
            None,
            v.is_some().then(|| u.as_mut()),
            par,
            MemStack::new(&mut mem),
            Default::default(),
        )
        .is_ok();
    if !ok {
        w.iter_mut().for_each(|e| *e = nan);
        if let Some(v) = v {
            v.iter_mut().for_each(|e| *e = nan);
        }
        return;
    }
    for j in 0..n {
        w[j] = Complex::new(s_re[j], s_im[j]);
    }
    let Some(v) = v else { return };
    // Real eigenvalues have real vectors in column j; a conjugate pair
    // (positive imaginary part first, as geev) shares columns j, j+1 as
    // the real and imaginary parts.
    let mut j = 0;
    while j < n {
        if s_im[j] == T::ZERO || j + 1 == n {
            for i in 0..n {
                v[i * n + j] = Complex::new(u[(i, j)], T::ZERO);
            }
            j += 1;
        } else {
            for i in 0..n {
                let (re, im) = (u[(i, j)], u[(i, j + 1)]);
                v[i * n + j] = Complex::new(re, im);
                v[i * n + j + 1] = Complex::new(re, -im);
            }
            j += 2;
        }
    }
    normalize_as_geev(v, n);
}

/// LAPACK's `geev` scaling of each eigenvector: unit 2-norm, and its
/// largest-magnitude component real (so JAX's eigenvector derivative
/// convention holds).
fn normalize_as_geev<T: Real>(v: &mut [Complex<T>], n: usize) {
    for j in 0..n {
        let mut norm2 = T::ZERO;
        let mut big = 0;
        let mut big_abs = T::ZERO;
        for i in 0..n {
            let e = v[i * n + j];
            let a = e.re * e.re + e.im * e.im;
            norm2 += a;
            if a > big_abs {
                big_abs = a;
                big = i;
            }
        }
        if norm2 == T::ZERO {
            continue;
        }
        let p = v[big * n + j];
        let norm = norm2.root();
        // Real vectors keep their sign (geev leaves it); complex ones are
        // rotated so that the largest component is real and positive:
        // multiplied by conj(p) / (|p| · norm).
        let (c, s) = if p.im == T::ZERO {
            (T::ONE / norm, T::ZERO)
        } else {
            let scale = big_abs.root() * norm;
            (p.re / scale, -p.im / scale)
        };
        for i in 0..n {
            let e = v[i * n + j];
            v[i * n + j] = Complex::new(e.re * c - e.im * s, e.re * s + e.im * c);
        }
        v[big * n + j].im = T::ZERO;
    }
}

fn eig_impl<T: Real>(
    a: &[T],
    w: &mut [Complex<T>],
    v: Option<&mut [Complex<T>]>,
    batch: usize,
    n: usize,
) {
    assert_eq!(a.len(), batch * n * n, "eig: input length");
    assert_eq!(w.len(), batch * n, "eig: eigenvalues length");
    let wp = SendPtr(w.as_mut_ptr());
    let vp = v.map(|v| {
        assert_eq!(v.len(), batch * n * n, "eig: eigenvectors length");
        SendPtr(v.as_mut_ptr())
    });
    let vp = &vp;
    for_each_matrix(batch, n * n, |b| {
        // SAFETY: matrix `b`'s parts are disjoint from every other task's,
        // within the lengths checked above.
        let w = unsafe { wp.part(b * n, n) };
        // SAFETY: as for `w`: matrix `b` of `v` is this task's alone.
        let v = vp.as_ref().map(|p| unsafe { p.part(b * n * n, n * n) });
        eig_one(&a[b * n * n..(b + 1) * n * n], n, w, v);
    });
}

/// `lax.linalg.eig` of `batch` real row-major `n × n` matrices: eigenvalues
/// `w` `[batch, n]` and, when `v` is given, right eigenvectors `[batch, n, n]`
/// (column `j` for `w[j]`), normalized as LAPACK's `geev` (unit norm, the
/// largest component real). A conjugate pair comes positive imaginary part
/// first, as geev; the order of the pairs is faer's Schur form's, which may
/// differ from LAPACK's. A matrix with a non-finite element, or on which the
/// iteration fails, gives NaNs.
pub fn eig_f32(
    a: &[f32],
    w: &mut [Complex<f32>],
    v: Option<&mut [Complex<f32>]>,
    batch: usize,
    n: usize,
) {
    eig_impl(a, w, v, batch, n)
}

/// [`eig_f32`] for f64.
pub fn eig_f64(
    a: &[f64],
    w: &mut [Complex<f64>],
    v: Option<&mut [Complex<f64>]>,
    batch: usize,
    n: usize,
) {
    eig_impl(a, w, v, batch, n)
}

/// The element of `eig_f32`'s results (complex64), for callers that name it.
pub type EigC32 = Complex<f32>;
/// The element of `eig_f64`'s results (complex128).
pub type EigC64 = Complex<f64>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qr_reconstructs_and_eig_satisfies_av_eq_lv() {
        let a = [
            2.0f64, -1.0, 0.5, 1.0, 3.0, -2.0, 0.0, 1.0, 4.0, 1.5, 2.5, -0.5,
        ];
        let (m, n) = (4, 3);
        let (mut q, mut r) = (vec![0.0; 12], vec![0.0; 9]);
        qr_f64(&a, &mut q, &mut r, 1, m, n, false);
        for i in 0..m {
            for j in 0..n {
                let s: f64 = (0..n).map(|l| q[i * n + l] * r[l * n + j]).sum();
                assert!((s - a[i * n + j]).abs() < 1e-12);
            }
        }
        let b = [0.0f64, -1.0, 1.0, 0.0];
        let mut w = vec![Complex::new(0.0, 0.0); 2];
        let mut v = vec![Complex::new(0.0, 0.0); 4];
        eig_f64(&b, &mut w, Some(&mut v), 1, 2);
        for j in 0..2 {
            for i in 0..2 {
                let av: Complex<f64> = (0..2).map(|l| v[l * 2 + j] * b[i * 2 + l]).sum();
                assert!((av - w[j] * v[i * 2 + j]).norm() < 1e-12);
            }
        }
    }
}
