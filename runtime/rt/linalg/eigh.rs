//! `eigh` and `svd` over faer: self-adjoint eigendecomposition (eigenvalues
//! ascending, as LAPACK's `syevd`) and the singular value decomposition
//! (singular values descending, as `gesdd`), each over a batch of
//! row-major matrices. Non-finite input, or a factorization that does not
//! converge, gives NaNs (JAX's LAPACK calls report no error either).

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors};
use faer::linalg::svd::{svd as faer_svd, svd_scratch, ComputeSvdVectors};
use faer::{MatMut, MatRef, Par};
use rayon::prelude::*;

/// Above this many elements a single matrix lets faer use every thread;
/// below it a batch runs one matrix per thread.
const PAR_ELEMENTS: usize = 128 * 128;

fn par_for(elements: usize) -> Par {
    if elements >= PAR_ELEMENTS {
        Par::rayon(0)
    } else {
        Par::Seq
    }
}

trait Real: faer::traits::RealField + Copy + Default + Send + Sync {
    const NAN: Self;
    const ZERO: Self;
    fn finite(self) -> bool;
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const NAN: $t = <$t>::NAN;
            const ZERO: $t = 0.0;
            fn finite(self) -> bool {
                self.is_finite()
            }
        }
    )*};
}
real!(f32, f64);

/// One matrix: `v` (its eigenvectors as columns, row-major) and `w`
/// (eigenvalues ascending), reading only the `lower` (else upper) triangle.
fn eigh_one<T: Real>(a: &[T], v: &mut [T], w: &mut [T], n: usize, lower: bool, par: Par) {
    let stored = MatRef::from_row_major_slice(a, n, n);
    // faer reads the lower triangle; the upper one of A is the lower of Aᵀ.
    let read = if lower { stored } else { stored.transpose() };
    let finite = (0..n).all(|i| {
        (0..n).all(|j| {
            let inside = if lower { j <= i } else { j >= i };
            !inside || a[i * n + j].finite()
        })
    });
    let mut s = Diag::<T>::zeros(n);
    // The eigenvectors in a column-major matrix, copied into `v` after: the
    // tridiagonal QR steps rotate columns, which faer vectorizes only when
    // they are contiguous (on `v`'s row-major columns it runs a scalar loop
    // and the rotations are most of the time).
    let mut vc = vec![T::ZERO; n * n];
    let vm = MatMut::from_column_major_slice_mut(&mut vc, n, n);
    let ok = finite && {
        let req =
            self_adjoint_evd_scratch::<T>(n, ComputeEigenvectors::Yes, par, Default::default());
        let mut mem = MemBuffer::new(req);
        self_adjoint_evd(
            read,
            s.as_mut(),
            Some(vm),
            par,
            MemStack::new(&mut mem),
            Default::default(),
        )
        .is_ok()
    };
    if ok {
        for (k, x) in w.iter_mut().enumerate() {
            *x = s[k];
        }
        super::transpose(&vc, n, n, v);
    } else {
        v.fill(T::NAN);
        w.fill(T::NAN);
    }
}

fn eigh_batch<T: Real>(a: &[T], v: &mut [T], w: &mut [T], batch: usize, n: usize, lower: bool) {
    let (nn, par) = (n * n, par_for(n * n));
    if batch == 0 || n == 0 {
        return;
    }
    if batch == 1 || par != Par::Seq {
        for ((a, v), w) in a.chunks(nn).zip(v.chunks_mut(nn)).zip(w.chunks_mut(n)) {
            eigh_one(a, v, w, n, lower, par);
        }
    } else {
        a.par_chunks(nn)
            .zip(v.par_chunks_mut(nn))
            .zip(w.par_chunks_mut(n))
            .for_each(|((a, v), w)| eigh_one(a, v, w, n, lower, Par::Seq));
    }
}

/// The non-generic entry points of one element type: `eigh_*` and `svd_*`.
macro_rules! entry_points {
    ($t:ty, $eigh:ident, $svd:ident, $what:literal) => {
        #[doc = concat!("`eigh` of `batch` row-major `n`×`n` ", $what, " matrices laid one after")]
        /// another: eigenvectors (as columns) into `v`, eigenvalues ascending
        /// into `w`; only the `lower` (else upper) triangle is read, as
        /// LAPACK's `syevd`.
        pub fn $eigh(a: &[$t], v: &mut [$t], w: &mut [$t], batch: usize, n: usize, lower: bool) {
            eigh_batch(a, v, w, batch, n, lower)
        }

        #[doc = concat!("`svd` of `batch` row-major `m`×`n` ", $what, " matrices: singular values")]
        /// descending into `s` (`min(m, n)` each); with `compute_uv`, `u`
        /// (`m`×`m`, or `m`×`min(m, n)` unless `full_matrices`) and `vt`
        /// (`n`×`n`, or `min(m, n)`×`n`), else `u` and `vt` are untouched.
        #[allow(clippy::too_many_arguments)]
        pub fn $svd(
            a: &[$t],
            s: &mut [$t],
            u: &mut [$t],
            vt: &mut [$t],
            batch: usize,
            m: usize,
            n: usize,
            full_matrices: bool,
            compute_uv: bool,
        ) {
            svd_batch(a, s, u, vt, batch, m, n, full_matrices, compute_uv)
        }
    };
}
entry_points!(f32, eigh_f32, svd_f32, "f32");
entry_points!(f64, eigh_f64, svd_f64, "f64");

/// The shapes of one matrix's SVD factors: `u` is `m`×`ku`, `vt` is `kv`×`n`.
fn svd_dims(m: usize, n: usize, full: bool, uv: bool) -> (usize, usize) {
    let k = m.min(n);
    match (uv, full) {
        (false, _) => (0, 0),
        (true, true) => (m, n),
        (true, false) => (k, k),
    }
}

#[allow(clippy::too_many_arguments)]
fn svd_one<T: Real>(
    a: &[T],
    s: &mut [T],
    u: &mut [T],
    vt: &mut [T],
    m: usize,
    n: usize,
    full: bool,
    uv: bool,
    par: Par,
) {
    let k = m.min(n);
    let (ku, kv) = svd_dims(m, n, full, uv);
    let am = MatRef::from_row_major_slice(a, m, n);
    let finite = a.iter().all(|x| x.finite());
    let mut d = Diag::<T>::zeros(k);
    let how = match (uv, full) {
        (false, _) => ComputeSvdVectors::No,
        (true, true) => ComputeSvdVectors::Full,
        (true, false) => ComputeSvdVectors::Thin,
    };
    let mut uc = vec![T::ZERO; if uv { m * ku } else { 0 }];
    let ok = finite && {
        let req = svd_scratch::<T>(m, n, how, how, par, Default::default());
        let mut mem = MemBuffer::new(req);
        // Vᵀ row-major is V column-major: V's view of `vt`'s buffer. `u`
        // goes through a column-major matrix, as `eigh_one`'s vectors do.
        let (um, vm) = if uv {
            (
                Some(MatMut::from_column_major_slice_mut(&mut uc, m, ku)),
                Some(MatMut::from_row_major_slice_mut(vt, kv, n).transpose_mut()),
            )
        } else {
            (None, None)
        };
        faer_svd(
            am,
            d.as_mut(),
            um,
            vm,
            par,
            MemStack::new(&mut mem),
            Default::default(),
        )
        .is_ok()
    };
    if ok {
        for (i, x) in s.iter_mut().enumerate() {
            *x = d[i];
        }
        if uv {
            super::transpose(&uc, ku, m, u);
        }
    } else {
        s.fill(T::NAN);
        u.fill(T::NAN);
        vt.fill(T::NAN);
    }
}

/// One matrix's input and its `s`, `u` and `vt` outputs, as zipped chunks.
type Chunks<'a, T> = (((&'a [T], &'a mut [T]), &'a mut [T]), &'a mut [T]);

#[allow(clippy::too_many_arguments)]
fn svd_batch<T: Real>(
    a: &[T],
    s: &mut [T],
    u: &mut [T],
    vt: &mut [T],
    batch: usize,
    m: usize,
    n: usize,
    full: bool,
    uv: bool,
) {
    let k = m.min(n);
    let (ku, kv) = svd_dims(m, n, full, uv);
    let (us, vs) = (m * ku, kv * n);
    if batch == 0 || m * n == 0 {
        // An empty matrix: no singular values; its full U and Vᵀ are
        // identities, as LAPACK's.
        for b in 0..batch {
            for i in 0..m.min(ku) {
                u[b * us + i * ku + i] = T::one_impl();
            }
            for i in 0..kv.min(n) {
                vt[b * vs + i * n + i] = T::one_impl();
            }
        }
        return;
    }
    let par = par_for(m * n);
    // Chunks of zero length are not allowed: pad the unused outputs' sizes.
    let (us1, vs1) = (us.max(1), vs.max(1));
    let mut u_pad;
    let mut vt_pad;
    let (u, vt): (&mut [T], &mut [T]) = if uv {
        (u, vt)
    } else {
        u_pad = vec![T::NAN; batch];
        vt_pad = vec![T::NAN; batch];
        (&mut u_pad, &mut vt_pad)
    };
    let one = |(((a, s), u), vt): Chunks<'_, T>, par| {
        let (u, vt) = if uv {
            (u, vt)
        } else {
            (&mut u[..0], &mut vt[..0])
        };
        svd_one(a, s, u, vt, m, n, full, uv, par)
    };
    if batch == 1 || par != Par::Seq {
        a.chunks(m * n)
            .zip(s.chunks_mut(k))
            .zip(u.chunks_mut(us1))
            .zip(vt.chunks_mut(vs1))
            .for_each(|x| one(x, par));
    } else {
        a.par_chunks(m * n)
            .zip(s.par_chunks_mut(k))
            .zip(u.par_chunks_mut(us1))
            .zip(vt.par_chunks_mut(vs1))
            .for_each(|x| one(x, Par::Seq));
    }
}
