//! The complex (complex64 / complex128) entry points of the linear-algebra
//! kernels, next to the real ones: Cholesky, triangular solve (with
//! `conjugate_a`), LU with partial pivoting and its solve, Householder QR,
//! Hermitian eigendecomposition, SVD and the general eigendecomposition,
//! each over a batch of row-major matrices laid one after another.
//!
//! faer does Cholesky, the triangular solves and the three spectral
//! decompositions. LU and QR are LAPACK's unblocked `zgetf2` / `zgeqr2` +
//! `zung2r` written out, so the pivots (chosen by `|re| + |im|`, as
//! `izamax`) and the phases of `q` and `r` (`r`'s diagonal real, as
//! `zlarfg`) are JAX's. As the real kernels, nothing panics on values: a
//! singular matrix gives inf/nan, a matrix that is not positive definite a
//! Cholesky factor full of NaN, non-finite input NaN factors.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::evd::{self, self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors};
use faer::linalg::svd::{svd as faer_svd, svd_scratch, ComputeSvdVectors};
use faer::linalg::triangular_solve as tri;
use faer::{Mat, MatMut, MatRef, Par};
use num_complex::Complex;
use rayon::prelude::*;

use super::TriangularSolve;
use crate::__rt::team::SendPtr;

/// Above this many elements a single matrix lets faer use every thread;
/// below it a batch runs one matrix per thread.
const PAR_ELEMENTS: usize = 128 * 128;

fn par_for(elements: usize) -> Par {
    if elements >= PAR_ELEMENTS && rayon::current_num_threads() > 1 {
        Par::rayon(0)
    } else {
        Par::Seq
    }
}

/// Runs `one(matrix index, par)` over a batch: one matrix per rayon task
/// when they are several and small, else in order with faer's threads.
fn over_batch(batch: usize, elements: usize, one: impl Fn(usize, Par) + Sync + Send) {
    let par = par_for(elements);
    if batch > 1 && par == Par::Seq {
        (0..batch).into_par_iter().for_each(|b| one(b, Par::Seq));
    } else {
        (0..batch).for_each(|b| one(b, par));
    }
}

macro_rules! complex_kernels {
    ($module:ident, $r:ty) => {
        mod $module {
            use super::*;

            type R = $r;
            type C = Complex<$r>;
            const ZERO: C = Complex::new(0.0, 0.0);
            const ONE: C = Complex::new(1.0, 0.0);
            const NAN: C = Complex::new(<$r>::NAN, <$r>::NAN);

            fn finite(z: &C) -> bool {
                z.re.is_finite() && z.im.is_finite()
            }

            /// BLAS's `cabs1`, by which `izamax` picks the pivot.
            fn cabs1(z: C) -> R {
                z.re.abs() + z.im.abs()
            }

            fn zero_upper(x: &mut [C], n: usize) {
                for i in 0..n {
                    for v in &mut x[i * n + i + 1..(i + 1) * n] {
                        *v = ZERO;
                    }
                }
            }

            pub fn cholesky(a: &[C], out: &mut [C], batch: usize, n: usize) {
                let size = n * n;
                assert!(a.len() == batch * size && out.len() == batch * size);
                out.copy_from_slice(a);
                if size == 0 {
                    return;
                }
                let o = SendPtr::new(out);
                over_batch(batch, size, |b, par| {
                    // SAFETY: matrix `b` is this task's alone, in bounds.
                    let x = unsafe { o.part(b * size, size) };
                    let req = cholesky_in_place_scratch::<C>(n, par, Default::default());
                    let mut mem = MemBuffer::new(req);
                    let m = MatMut::from_row_major_slice_mut(x, n, n);
                    let stack = MemStack::new(&mut mem);
                    let ok =
                        cholesky_in_place(m, Default::default(), par, stack, Default::default())
                            .is_ok();
                    if ok && x.iter().all(finite) {
                        zero_upper(x, n);
                    } else {
                        x.fill(NAN);
                    }
                });
            }

            #[allow(clippy::too_many_arguments)]
            pub fn triangular_solve(
                a: &[C],
                b: &[C],
                out: &mut [C],
                batch: usize,
                m: usize,
                rows: usize,
                cols: usize,
                o: TriangularSolve,
                conjugate_a: bool,
            ) {
                let (na, nb) = (m * m, rows * cols);
                assert!(a.len() == batch * na && b.len() == batch * nb && out.len() == batch * nb);
                out.copy_from_slice(b);
                if nb == 0 || na == 0 {
                    return;
                }
                let x = SendPtr::new(out);
                over_batch(batch, na, |k, par| {
                    // SAFETY: matrix `k` is this task's alone, in bounds.
                    let x = unsafe { x.part(k * nb, nb) };
                    let a = MatRef::from_row_major_slice(&a[k * na..(k + 1) * na], m, m);
                    let x = MatMut::from_row_major_slice_mut(x, rows, cols);
                    // Left: op(A) X = B. Right: X op(A) = B is op(A)ᵀ Xᵀ = Bᵀ.
                    let (x, transposed) = if o.left_side {
                        (x, o.transpose_a)
                    } else {
                        (x.transpose_mut(), !o.transpose_a)
                    };
                    let a = if transposed { a.transpose() } else { a };
                    let lower = o.lower != transposed;
                    if conjugate_a {
                        let a = a.conjugate();
                        match (lower, o.unit_diagonal) {
                            (true, false) => tri::solve_lower_triangular_in_place(a, x, par),
                            (true, true) => tri::solve_unit_lower_triangular_in_place(a, x, par),
                            (false, false) => tri::solve_upper_triangular_in_place(a, x, par),
                            (false, true) => tri::solve_unit_upper_triangular_in_place(a, x, par),
                        }
                    } else {
                        match (lower, o.unit_diagonal) {
                            (true, false) => tri::solve_lower_triangular_in_place(a, x, par),
                            (true, true) => tri::solve_unit_lower_triangular_in_place(a, x, par),
                            (false, false) => tri::solve_upper_triangular_in_place(a, x, par),
                            (false, true) => tri::solve_unit_upper_triangular_in_place(a, x, par),
                        }
                    }
                });
            }

            /// LAPACK's `zgetf2` on one row-major `m × n` matrix.
            fn getf2(lu: &mut [C], pivots: &mut [i32], m: usize, n: usize) {
                for j in 0..m.min(n) {
                    let mut p = j;
                    let mut best = cabs1(lu[j * n + j]);
                    for i in j + 1..m {
                        let v = cabs1(lu[i * n + j]);
                        if v > best {
                            best = v;
                            p = i;
                        }
                    }
                    pivots[j] = p as i32;
                    if lu[p * n + j] != ZERO {
                        if p != j {
                            for c in 0..n {
                                lu.swap(j * n + c, p * n + c);
                            }
                        }
                        let inv = ONE / lu[j * n + j];
                        for i in j + 1..m {
                            lu[i * n + j] *= inv;
                        }
                    }
                    let (top, rest) = lu.split_at_mut((j + 1) * n);
                    let pivot_row = &top[j * n..];
                    for row in rest.chunks_mut(n).take(m - j - 1) {
                        let l = row[j];
                        for c in j + 1..n {
                            row[c] -= l * pivot_row[c];
                        }
                    }
                }
            }

            pub fn lu(
                a: &[C],
                lu: &mut [C],
                pivots: &mut [i32],
                perm: &mut [i32],
                batch: usize,
                m: usize,
                n: usize,
            ) {
                let (mn, k) = (m * n, m.min(n));
                assert!(
                    a.len() >= batch * mn && lu.len() >= batch * mn,
                    "lu: buffer too short"
                );
                assert!(
                    pivots.len() >= batch * k && perm.len() >= batch * m,
                    "lu: buffer too short"
                );
                lu[..batch * mn].copy_from_slice(&a[..batch * mn]);
                for b in 0..batch {
                    let piv = &mut pivots[b * k..(b + 1) * k];
                    if mn > 0 {
                        getf2(&mut lu[b * mn..(b + 1) * mn], piv, m, n);
                    }
                    super::super::pivots_to_permutation(piv, &mut perm[b * m..(b + 1) * m]);
                }
            }

            /// `x = U⁻¹ L⁻¹ P b`, or with `trans` `x = Pᵀ L⁻ᵀ U⁻ᵀ b` (no
            /// conjugation); `b` is `n × r` row-major, overwritten by `x`.
            fn lu_solve_one(lu: &[C], perm: &[i32], b: &mut [C], n: usize, r: usize, trans: bool) {
                let mut x = vec![ZERO; n * r];
                if !trans {
                    for (i, &p) in perm.iter().enumerate() {
                        let p = p as usize;
                        x[i * r..(i + 1) * r].copy_from_slice(&b[p * r..(p + 1) * r]);
                    }
                    for i in 0..n {
                        for k in 0..i {
                            let l = lu[i * n + k];
                            for c in 0..r {
                                let v = x[k * r + c];
                                x[i * r + c] -= l * v;
                            }
                        }
                    }
                    for i in (0..n).rev() {
                        for k in i + 1..n {
                            let u = lu[i * n + k];
                            for c in 0..r {
                                let v = x[k * r + c];
                                x[i * r + c] -= u * v;
                            }
                        }
                        let d = lu[i * n + i];
                        for c in 0..r {
                            x[i * r + c] /= d;
                        }
                    }
                    b.copy_from_slice(&x);
                } else {
                    x.copy_from_slice(b);
                    for i in 0..n {
                        for k in 0..i {
                            let u = lu[k * n + i];
                            for c in 0..r {
                                let v = x[k * r + c];
                                x[i * r + c] -= u * v;
                            }
                        }
                        let d = lu[i * n + i];
                        for c in 0..r {
                            x[i * r + c] /= d;
                        }
                    }
                    for i in (0..n).rev() {
                        for k in i + 1..n {
                            let l = lu[k * n + i];
                            for c in 0..r {
                                let v = x[k * r + c];
                                x[i * r + c] -= l * v;
                            }
                        }
                    }
                    for (i, &p) in perm.iter().enumerate() {
                        let p = p as usize;
                        b[p * r..(p + 1) * r].copy_from_slice(&x[i * r..(i + 1) * r]);
                    }
                }
            }

            #[allow(clippy::too_many_arguments)]
            pub fn lu_solve(
                lu: &[C],
                perm: &[i32],
                b: &mut [C],
                batch: usize,
                n: usize,
                r: usize,
                trans: bool,
            ) {
                if n == 0 || r == 0 {
                    return;
                }
                let x = SendPtr::new(b);
                over_batch(batch, n * n * r / n.max(1), |k, _| {
                    // SAFETY: system `k` is this task's alone, in bounds.
                    let b = unsafe { x.part(k * (n * r), n * r) };
                    let (lu, perm) = (&lu[k * n * n..(k + 1) * n * n], &perm[k * n..(k + 1) * n]);
                    lu_solve_one(lu, perm, b, n, r, trans)
                });
            }

            /// LAPACK's `zgeqr2` then `zung2r` on one row-major `m × n` matrix.
            fn qr_one(a: &[C], q: &mut [C], r: &mut [C], m: usize, n: usize, k: usize) {
                let kk = m.min(n);
                let mut w = a.to_vec();
                let mut tau = vec![ZERO; kk];
                for i in 0..kk {
                    // zlarfg: H = I - tau v vᴴ with v = [1, x / (alpha - beta)].
                    let alpha = w[i * n + i];
                    let xnorm = (i + 1..m)
                        .map(|l| w[l * n + i].norm_sqr())
                        .sum::<R>()
                        .sqrt();
                    if xnorm == 0.0 && alpha.im == 0.0 {
                        continue;
                    }
                    let size = (alpha.norm_sqr() + xnorm * xnorm).sqrt();
                    let beta = -size.copysign(alpha.re);
                    tau[i] = Complex::new((beta - alpha.re) / beta, -alpha.im / beta);
                    let scale = ONE / (alpha - beta);
                    for l in i + 1..m {
                        w[l * n + i] *= scale;
                    }
                    w[i * n + i] = Complex::new(beta, 0.0);
                    // A := Hᴴ A on the columns to the right.
                    let t = tau[i].conj();
                    for j in i + 1..n {
                        let mut s = w[i * n + j];
                        for l in i + 1..m {
                            s += w[l * n + i].conj() * w[l * n + j];
                        }
                        let ts = t * s;
                        w[i * n + j] -= ts;
                        for l in i + 1..m {
                            let v = w[l * n + i];
                            w[l * n + j] -= v * ts;
                        }
                    }
                }
                for i in 0..k {
                    for j in 0..n {
                        r[i * n + j] = if i < kk && j >= i { w[i * n + j] } else { ZERO };
                    }
                }
                // Q = H(0) H(1) … applied to the identity's first k columns.
                q.fill(ZERO);
                for i in 0..m.min(k) {
                    q[i * k + i] = ONE;
                }
                for i in (0..kk).rev() {
                    let t = tau[i];
                    for j in 0..k {
                        let mut s = q[i * k + j];
                        for l in i + 1..m {
                            s += w[l * n + i].conj() * q[l * k + j];
                        }
                        let ts = t * s;
                        q[i * k + j] -= ts;
                        for l in i + 1..m {
                            let v = w[l * n + i];
                            q[l * k + j] -= v * ts;
                        }
                    }
                }
            }

            pub fn qr(
                a: &[C],
                q: &mut [C],
                r: &mut [C],
                batch: usize,
                m: usize,
                n: usize,
                full: bool,
            ) {
                let k = if full { m } else { m.min(n) };
                assert_eq!(a.len(), batch * m * n, "qr: input length");
                assert_eq!(q.len(), batch * m * k, "qr: q length");
                assert_eq!(r.len(), batch * k * n, "qr: r length");
                let (qp, rp) = (SendPtr::new(q), SendPtr::new(r));
                over_batch(batch, 0, |b, _| {
                    let (q, r) =
                        // SAFETY: matrix `b`'s parts are this task's alone, in bounds.
                        unsafe { (qp.part(b * (m * k), m * k), rp.part(b * (k * n), k * n)) };
                    qr_one(&a[b * m * n..(b + 1) * m * n], q, r, m, n, k);
                });
            }

            pub fn eigh(a: &[C], v: &mut [C], w: &mut [R], batch: usize, n: usize, lower: bool) {
                let nn = n * n;
                assert!(a.len() == batch * nn && v.len() == batch * nn && w.len() == batch * n);
                if batch == 0 || n == 0 {
                    return;
                }
                let (vp, wp) = (SendPtr::new(v), SendPtr::new(w));
                over_batch(batch, nn, |b, par| {
                    // SAFETY: matrix `b`'s parts are this task's alone, in bounds.
                    let (v, w) = unsafe { (vp.part(b * nn, nn), wp.part(b * n, n)) };
                    let a = &a[b * nn..(b + 1) * nn];
                    let stored = MatRef::from_row_major_slice(a, n, n);
                    // faer reads the lower triangle; the upper one of A is
                    // the lower one of Aᴴ.
                    let upper_adjoint;
                    let read = if lower {
                        stored
                    } else {
                        upper_adjoint = stored.adjoint().to_owned();
                        upper_adjoint.as_ref()
                    };
                    let finite = (0..n).all(|i| {
                        (0..n).all(|j| {
                            let inside = if lower { j <= i } else { j >= i };
                            !inside || finite(&a[i * n + j])
                        })
                    });
                    let mut s = Diag::<C>::zeros(n);
                    let ok = finite && {
                        let req = self_adjoint_evd_scratch::<C>(
                            n,
                            ComputeEigenvectors::Yes,
                            par,
                            Default::default(),
                        );
                        let mut mem = MemBuffer::new(req);
                        let vm = MatMut::from_row_major_slice_mut(v, n, n);
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
                        for (i, x) in w.iter_mut().enumerate() {
                            *x = s[i].re;
                        }
                    } else {
                        v.fill(NAN);
                        w.fill(<$r>::NAN);
                    }
                });
            }

            #[allow(clippy::too_many_arguments)]
            pub fn svd(
                a: &[C],
                s: &mut [R],
                u: &mut [C],
                vt: &mut [C],
                batch: usize,
                m: usize,
                n: usize,
                full: bool,
                uv: bool,
            ) {
                let k = m.min(n);
                let (ku, kv) = match (uv, full) {
                    (false, _) => (0, 0),
                    (true, true) => (m, n),
                    (true, false) => (k, k),
                };
                let (us, vs) = (m * ku, kv * n);
                assert!(a.len() == batch * m * n && s.len() == batch * k);
                assert!(u.len() == batch * us && vt.len() == batch * vs);
                if batch == 0 {
                    return;
                }
                if m * n == 0 {
                    // Full U and Vᴴ of an empty matrix are identities, as LAPACK's.
                    for b in 0..batch {
                        for i in 0..m.min(ku) {
                            u[b * us + i * ku + i] = ONE;
                        }
                        for i in 0..kv.min(n) {
                            vt[b * vs + i * n + i] = ONE;
                        }
                    }
                    return;
                }
                let how = match (uv, full) {
                    (false, _) => ComputeSvdVectors::No,
                    (true, true) => ComputeSvdVectors::Full,
                    (true, false) => ComputeSvdVectors::Thin,
                };
                let (sp, up, vp) = (SendPtr::new(s), SendPtr::new(u), SendPtr::new(vt));
                over_batch(batch, m * n, |b, par| {
                    let (s, u, vt) =
                        // SAFETY: matrix `b`'s parts are this task's alone, in bounds.
                        unsafe { (sp.part(b * k, k), up.part(b * us, us), vp.part(b * vs, vs)) };
                    let a = &a[b * m * n..(b + 1) * m * n];
                    let mut d = Diag::<C>::zeros(k);
                    let ok = a.iter().all(finite) && {
                        let req = svd_scratch::<C>(m, n, how, how, par, Default::default());
                        let mut mem = MemBuffer::new(req);
                        // faer writes V (n × kv) into the transposed view of
                        // `vt`'s buffer: Vᵀ, conjugated below into Vᴴ.
                        let (um, vm) = if uv {
                            (
                                Some(MatMut::from_row_major_slice_mut(&mut u[..], m, ku)),
                                Some(
                                    MatMut::from_row_major_slice_mut(&mut vt[..], kv, n)
                                        .transpose_mut(),
                                ),
                            )
                        } else {
                            (None, None)
                        };
                        faer_svd(
                            MatRef::from_row_major_slice(a, m, n),
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
                            *x = d[i].re;
                        }
                        vt.iter_mut().for_each(|z| *z = z.conj());
                    } else {
                        s.fill(<$r>::NAN);
                        u.fill(NAN);
                        vt.fill(NAN);
                    }
                });
            }

            /// `zgeev`'s scaling of each eigenvector: unit 2-norm, then
            /// rotated so that its largest component is real and positive.
            fn normalize_as_geev(v: &mut [C], n: usize) {
                for j in 0..n {
                    let (mut norm2, mut big, mut big_abs) = (0.0, 0, 0.0);
                    for i in 0..n {
                        let a = v[i * n + j].norm_sqr();
                        norm2 += a;
                        if a > big_abs {
                            big_abs = a;
                            big = i;
                        }
                    }
                    if norm2 == 0.0 {
                        continue;
                    }
                    let rot = v[big * n + j].conj() / (big_abs.sqrt() * norm2.sqrt());
                    for i in 0..n {
                        v[i * n + j] *= rot;
                    }
                    v[big * n + j].im = 0.0;
                }
            }

            pub fn eig(a: &[C], w: &mut [C], v: Option<&mut [C]>, batch: usize, n: usize) {
                let nn = n * n;
                assert!(
                    a.len() == batch * nn && w.len() == batch * n,
                    "eig: lengths"
                );
                let want = v.is_some();
                let vp = v.map(|v| {
                    assert_eq!(v.len(), batch * nn, "eig: eigenvectors length");
                    SendPtr::new(v)
                });
                let wp = SendPtr::new(w);
                if n == 0 {
                    return;
                }
                over_batch(batch, nn, |b, par| {
                    // SAFETY: matrix `b`'s parts are this task's alone, in bounds.
                    let w = unsafe { wp.part(b * n, n) };
                    // SAFETY: as for `w`: matrix `b` of `v` is this task's alone.
                    let v = vp.as_ref().map(|p| unsafe { p.part(b * nn, nn) });
                    let a = &a[b * nn..(b + 1) * nn];
                    let mut s = Diag::<C>::zeros(n);
                    let mut u = Mat::<C>::zeros(if want { n } else { 0 }, if want { n } else { 0 });
                    let how = if want {
                        ComputeEigenvectors::Yes
                    } else {
                        ComputeEigenvectors::No
                    };
                    let req = evd::evd_scratch::<C>(
                        n,
                        ComputeEigenvectors::No,
                        how,
                        par,
                        Default::default(),
                    );
                    let mut mem = MemBuffer::new(req);
                    let ok = a.iter().all(finite)
                        && evd::evd_cplx(
                            MatRef::from_row_major_slice(a, n, n),
                            s.as_mut(),
                            None,
                            want.then(|| u.as_mut()),
                            par,
                            MemStack::new(&mut mem),
                            Default::default(),
                        )
                        .is_ok();
                    if !ok {
                        w.fill(NAN);
                        if let Some(v) = v {
                            v.fill(NAN);
                        }
                        return;
                    }
                    for (j, x) in w.iter_mut().enumerate() {
                        *x = s[j];
                    }
                    if let Some(v) = v {
                        for i in 0..n {
                            for j in 0..n {
                                v[i * n + j] = u[(i, j)];
                            }
                        }
                        normalize_as_geev(v, n);
                    }
                });
            }
        }
    };
}

complex_kernels!(single, f32);
complex_kernels!(double, f64);

macro_rules! entry_points {
    ($m:ident, $r:ty, $chol:ident, $trsm:ident, $lu:ident, $lu_solve:ident, $qr:ident,
     $eigh:ident, $svd:ident, $eig:ident, $what:literal) => {
        #[doc = concat!("The Cholesky factors `L` (`A = L Lᴴ`) of a batch of ", $what,
            " Hermitian positive-definite row-major `n × n` matrices; only the lower \
            triangle is read, the upper one of the result is zero, and a matrix that is \
            not positive definite gives NaN everywhere.")]
        pub fn $chol(a: &[Complex<$r>], out: &mut [Complex<$r>], batch: usize, n: usize) {
            $m::cholesky(a, out, batch, n)
        }

        #[doc = concat!("`triangular_solve` of a batch of ", $what,
            " matrices, as `triangular_solve_f32` plus JAX's `conjugate_a` (solve with \
            `conj(A)`, or `Aᴴ` together with `transpose_a`).")]
        #[allow(clippy::too_many_arguments)]
        pub fn $trsm(
            a: &[Complex<$r>],
            b: &[Complex<$r>],
            out: &mut [Complex<$r>],
            batch: usize,
            m: usize,
            rows: usize,
            cols: usize,
            options: TriangularSolve,
            conjugate_a: bool,
        ) {
            $m::triangular_solve(a, b, out, batch, m, rows, cols, options, conjugate_a)
        }

        #[doc = concat!("LU with partial pivoting of a batch of ", $what,
            " row-major `m × n` matrices, laid out as `lu_f32`'s results; the pivot is \
            the first largest `|re| + |im|`, as LAPACK's.")]
        pub fn $lu(
            a: &[Complex<$r>],
            lu: &mut [Complex<$r>],
            pivots: &mut [i32],
            perm: &mut [i32],
            batch: usize,
            m: usize,
            n: usize,
        ) {
            $m::lu(a, lu, pivots, perm, batch, m, n)
        }

        #[doc = concat!("Solves `A·x = b` (or `Aᵀ·x = b`, not conjugated, with `trans`) \
            from the ", $what, " LU factors, as `lu_solve_f32`.")]
        pub fn $lu_solve(
            lu: &[Complex<$r>],
            perm: &[i32],
            b: &mut [Complex<$r>],
            batch: usize,
            n: usize,
            r: usize,
            trans: bool,
        ) {
            $m::lu_solve(lu, perm, b, batch, n, r, trans)
        }

        #[doc = concat!("Householder QR of a batch of ", $what,
            " row-major `m × n` matrices, laid out as `qr_f32`'s; `r`'s diagonal is \
            real, `-sign(re α)·‖x‖` as LAPACK's `zgeqrf`, so the phases are JAX's.")]
        pub fn $qr(
            a: &[Complex<$r>],
            q: &mut [Complex<$r>],
            r: &mut [Complex<$r>],
            batch: usize,
            m: usize,
            n: usize,
            full_matrices: bool,
        ) {
            $m::qr(a, q, r, batch, m, n, full_matrices)
        }

        #[doc = concat!("Hermitian eigendecomposition of a batch of ", $what,
            " row-major `n × n` matrices: eigenvectors (columns) into `v`, real \
            eigenvalues ascending into `w`; only the `lower` (else upper) triangle is read.")]
        pub fn $eigh(
            a: &[Complex<$r>],
            v: &mut [Complex<$r>],
            w: &mut [$r],
            batch: usize,
            n: usize,
            lower: bool,
        ) {
            $m::eigh(a, v, w, batch, n, lower)
        }

        #[doc = concat!("SVD of a batch of ", $what,
            " row-major `m × n` matrices, laid out as `svd_f32`'s: real singular values \
            descending into `s`, `u` and `vt` (= Vᴴ) when `compute_uv`.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $svd(
            a: &[Complex<$r>],
            s: &mut [$r],
            u: &mut [Complex<$r>],
            vt: &mut [Complex<$r>],
            batch: usize,
            m: usize,
            n: usize,
            full_matrices: bool,
            compute_uv: bool,
        ) {
            $m::svd(a, s, u, vt, batch, m, n, full_matrices, compute_uv)
        }

        #[doc = concat!("Eigenvalues and, when `v` is given, right eigenvectors of a batch \
            of ", $what, " row-major `n × n` matrices, normalized as LAPACK's `zgeev` \
            (unit norm, the largest component real and positive); the eigenvalues' \
            order is faer's, which may differ from LAPACK's.")]
        pub fn $eig(
            a: &[Complex<$r>],
            w: &mut [Complex<$r>],
            v: Option<&mut [Complex<$r>]>,
            batch: usize,
            n: usize,
        ) {
            $m::eig(a, w, v, batch, n)
        }
    };
}

entry_points!(
    single,
    f32,
    cholesky_c64,
    triangular_solve_c64,
    lu_c64,
    lu_solve_c64,
    qr_c64,
    eigh_c64,
    svd_c64,
    eig_c64,
    "complex64"
);
entry_points!(
    double,
    f64,
    cholesky_c128,
    triangular_solve_c128,
    lu_c128,
    lu_solve_c128,
    qr_c128,
    eigh_c128,
    svd_c128,
    eig_c128,
    "complex128"
);

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> Complex<f64> {
        Complex::new(re, im)
    }

    #[test]
    fn cholesky_and_qr_reconstruct() {
        // A = [[4, 1+i], [1-i, 3]] is Hermitian positive definite.
        let a = [c(4.0, 0.0), c(1.0, 1.0), c(1.0, -1.0), c(3.0, 0.0)];
        let mut l = [c(0.0, 0.0); 4];
        cholesky_c128(&a, &mut l, 1, 2);
        for i in 0..2 {
            for j in 0..2 {
                let s: Complex<f64> = (0..2).map(|k| l[i * 2 + k] * l[j * 2 + k].conj()).sum();
                assert!((s - a[i * 2 + j]).norm() < 1e-12, "{s} at {i},{j}");
            }
        }
        let (mut q, mut r) = ([c(0.0, 0.0); 4], [c(0.0, 0.0); 4]);
        qr_c128(&a, &mut q, &mut r, 1, 2, 2, false);
        assert!(r[0].im == 0.0 && r[3].im == 0.0 && r[2] == c(0.0, 0.0));
        for i in 0..2 {
            for j in 0..2 {
                let s: Complex<f64> = (0..2).map(|k| q[i * 2 + k] * r[k * 2 + j]).sum();
                assert!((s - a[i * 2 + j]).norm() < 1e-12);
            }
        }
    }
}
