//! LU with partial pivoting (`lax.linalg.lu`): for each `m×n` matrix of a
//! batch, the packed factors (`L` unit lower below the diagonal, `U` on and
//! above), LAPACK's `ipiv` (0-based: row `i` was swapped with row
//! `pivots[i]`, in order) and the permutation they compose (`A[perm] = L·U`).
//! Large matrices run on faer's blocked LU; small ones, and any matrix with
//! an exactly zero pivot, on LAPACK's unblocked `getf2` order, which leaves a
//! zero pivot's column unscaled (so a singular matrix gives a zero on `U`'s
//! diagonal, hence inf/nan in solves and a zero determinant, as JAX).
//!
//! [`lu_solve_f32`]/[`lu_solve_f64`] solve `A·x = b` or `Aᵀ·x = b` from the
//! factors, for the eager `solve`, `inv` and `lu_solve`.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor as faer_lu;
use faer::reborrow::ReborrowMut;
use faer::{MatMut, Par};
use rayon::prelude::*;

/// The element types LU runs on.
trait LuFloat: faer::traits::RealField + Copy + Default + Send + Sync + PartialOrd {
    const ZERO: Self;
    const ONE: Self;
    fn abs_val(self) -> Self;
    fn is_finite_val(self) -> bool;
}

macro_rules! lu_float {
    ($($t:ty),*) => {$(
        impl LuFloat for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn abs_val(self) -> Self {
                self.abs()
            }
            fn is_finite_val(self) -> bool {
                self.is_finite()
            }
        }
    )*};
}
lu_float!(f32, f64);

/// From this many rows and columns on, faer's blocked LU (and above
/// [`PAR_SIZE`] its threads) beats the unblocked loop.
const BLOCKED_SIZE: usize = 48;
/// From this many elements on, the LU runs on a column-major copy.
const COPY_COL_MAJOR: usize = 128 * 128;
/// From this size on, one matrix's LU runs on several threads.
const PAR_SIZE: usize = 256;

/// LAPACK's unblocked `getf2`: pivot on the first largest magnitude in the
/// column, swap whole rows, scale the column below by the pivot (skipped for
/// a zero pivot), update the trailing block.
fn getf2<T: LuFloat>(lu: &mut [T], pivots: &mut [i32], m: usize, n: usize) {
    let k = m.min(n);
    for j in 0..k {
        let mut p = j;
        let mut best = lu[j * n + j].abs_val();
        for i in j + 1..m {
            let v = lu[i * n + j].abs_val();
            // BLAS's idamax: the first largest (a NaN never compares larger).
            if v > best {
                best = v;
                p = i;
            }
        }
        pivots[j] = p as i32;
        if lu[p * n + j] != T::ZERO {
            if p != j {
                for c in 0..n {
                    lu.swap(j * n + c, p * n + c);
                }
            }
            let inv = T::ONE / lu[j * n + j];
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

/// faer's blocked LU in place, its row permutation turned into LAPACK's
/// pivots; `false` when a pivot is zero or not finite (then the caller
/// redoes the matrix with [`getf2`], which treats zero pivots as LAPACK).
fn faer_lu_in_place<T: LuFloat>(lu: &mut [T], pivots: &mut [i32], m: usize, n: usize) -> bool {
    let k = m.min(n);
    let mut perm = vec![0usize; m];
    let mut perm_inv = vec![0usize; m];
    let par = if m.min(n) >= PAR_SIZE {
        Par::rayon(0)
    } else {
        Par::Seq
    };
    let params = Default::default();
    let mut mem = MemBuffer::new(faer_lu::lu_in_place_scratch::<usize, T>(m, n, par, params));
    let stack = MemStack::new(&mut mem);
    if m * n >= COPY_COL_MAJOR {
        // faer's LU runs down columns: on a column-major copy it is
        // faster than on the row-major view by more than the two copies.
        let mut c = vec![T::ZERO; m * n];
        super::transpose(lu, m, n, &mut c);
        let cm = MatMut::from_column_major_slice_mut(&mut c, m, n);
        faer_lu::lu_in_place(cm, &mut perm, &mut perm_inv, par, stack, params);
        super::transpose(&c, n, m, lu);
    } else {
        let a = MatMut::from_row_major_slice_mut(lu, m, n);
        faer_lu::lu_in_place(a, &mut perm, &mut perm_inv, par, stack, params);
    }
    // Replay the swaps: `cur` is the row order so far, `at` its inverse.
    let mut cur: Vec<usize> = (0..m).collect();
    let mut at: Vec<usize> = (0..m).collect();
    for j in 0..k {
        let p = at[perm[j]];
        pivots[j] = p as i32;
        let (a, b) = (cur[j], cur[p]);
        cur.swap(j, p);
        at[a] = p;
        at[b] = j;
    }
    (0..k).all(|j| {
        let d = lu[j * n + j];
        d != T::ZERO && d.is_finite_val()
    })
}

/// The permutation LAPACK's pivots compose (`lax.linalg.lu_pivots_to_permutation`).
pub fn pivots_to_permutation(pivots: &[i32], perm: &mut [i32]) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i as i32;
    }
    for (j, &p) in pivots.iter().enumerate() {
        let p = p as usize;
        if p < perm.len() {
            perm.swap(j, p);
        }
    }
}

fn lu_one<T: LuFloat>(
    a: &[T],
    lu: &mut [T],
    pivots: &mut [i32],
    perm: &mut [i32],
    m: usize,
    n: usize,
) {
    lu.copy_from_slice(a);
    let blocked = m.min(n) >= BLOCKED_SIZE && faer_lu_in_place(lu, pivots, m, n);
    if !blocked {
        lu.copy_from_slice(a);
        getf2(lu, pivots, m, n);
    }
    pivots_to_permutation(pivots, perm);
}

#[allow(clippy::too_many_arguments)]
fn lu_batch<T: LuFloat>(
    a: &[T],
    lu: &mut [T],
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
    if mn == 0 || batch == 0 {
        for p in perm.chunks_mut(m.max(1)).take(batch) {
            pivots_to_permutation(&[], p);
        }
        return;
    }
    type Item<'a, T> = (((&'a [T], &'a mut [T]), &'a mut [i32]), &'a mut [i32]);
    let work = |(((a, lu), piv), perm): Item<'_, T>| lu_one(a, lu, piv, perm, m, n);
    let k1 = k.max(1);
    let items = a
        .chunks(mn)
        .zip(lu.chunks_mut(mn))
        .zip(pivots.chunks_mut(k1))
        .zip(perm.chunks_mut(m))
        .take(batch);
    // Many small matrices: one per thread at a time; one large: faer's threads.
    if batch > 1 && batch * mn * k >= 1 << 15 {
        items.collect::<Vec<_>>().into_par_iter().for_each(work);
    } else {
        items.for_each(work);
    }
}

/// LU of `batch` row-major `m×n` f32 matrices: `lu` gets the packed factors,
/// `pivots` `min(m, n)` LAPACK pivots (0-based) and `perm` `m` row indices
/// per matrix. Never panics on values: a singular matrix gives a zero on
/// `U`'s diagonal.
pub fn lu_f32(
    a: &[f32],
    lu: &mut [f32],
    pivots: &mut [i32],
    perm: &mut [i32],
    batch: usize,
    m: usize,
    n: usize,
) {
    lu_batch(a, lu, pivots, perm, batch, m, n)
}

/// [`lu_f32`] for f64.
pub fn lu_f64(
    a: &[f64],
    lu: &mut [f64],
    pivots: &mut [i32],
    perm: &mut [i32],
    batch: usize,
    m: usize,
    n: usize,
) {
    lu_batch(a, lu, pivots, perm, batch, m, n)
}

/// Below this many unknowns (or right-hand sides times unknowns) one system
/// is solved by the plain loops of [`lu_solve_small`]; above, by faer's
/// blocked triangular solves (which use its matmul for the updates).
const SOLVE_BLOCKED: usize = 64 * 64;

/// Solves one system from packed factors: `x = U⁻¹ L⁻¹ P b` or, transposed,
/// `x = Pᵀ L⁻ᵀ U⁻ᵀ b`; `b` is `n×r` row-major, overwritten by `x`.
fn lu_solve_one<T: LuFloat>(
    lu: &[T],
    perm: &[i32],
    b: &mut [T],
    n: usize,
    r: usize,
    trans: bool,
    par: Par,
) {
    if n * n.max(r) < SOLVE_BLOCKED {
        return lu_solve_small(lu, perm, b, n, r, trans);
    }
    use faer::linalg::triangular_solve as tri;
    let f = faer::MatRef::from_row_major_slice(lu, n, n);
    if !trans {
        // P b, then L y = P b (unit lower), then U x = y.
        let mut x = vec![T::ZERO; n * r];
        for (i, &p) in perm.iter().enumerate() {
            let p = p as usize;
            x[i * r..(i + 1) * r].copy_from_slice(&b[p * r..(p + 1) * r]);
        }
        b.copy_from_slice(&x);
        let mut xm = MatMut::from_row_major_slice_mut(b, n, r);
        tri::solve_unit_lower_triangular_in_place(f, xm.rb_mut(), par);
        tri::solve_upper_triangular_in_place(f, xm, par);
    } else {
        // Uᵀ y = b (lower), then Lᵀ z = y (unit upper), then x = Pᵀ z.
        let mut xm = MatMut::from_row_major_slice_mut(b, n, r);
        tri::solve_lower_triangular_in_place(f.transpose(), xm.rb_mut(), par);
        tri::solve_unit_upper_triangular_in_place(f.transpose(), xm, par);
        let z = b.to_vec();
        for (i, &p) in perm.iter().enumerate() {
            let p = p as usize;
            b[p * r..(p + 1) * r].copy_from_slice(&z[i * r..(i + 1) * r]);
        }
    }
}

/// [`lu_solve_one`] for small systems: substitution loops, row by row.
fn lu_solve_small<T: LuFloat>(
    lu: &[T],
    perm: &[i32],
    b: &mut [T],
    n: usize,
    r: usize,
    trans: bool,
) {
    let mut x = vec![T::ZERO; n * r];
    if !trans {
        for (i, &p) in perm.iter().enumerate() {
            x[i * r..(i + 1) * r].copy_from_slice(&b[p as usize * r..(p as usize + 1) * r]);
        }
        // L y = P b (unit lower), then U x = y.
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
        // Uᵀ y = b (lower), then Lᵀ z = y (unit upper), then x = Pᵀ z.
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
            b[p as usize * r..(p as usize + 1) * r].copy_from_slice(&x[i * r..(i + 1) * r]);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn lu_solve_batch<T: LuFloat>(
    lu: &[T],
    perm: &[i32],
    b: &mut [T],
    batch: usize,
    n: usize,
    r: usize,
    trans: bool,
) {
    if n == 0 || r == 0 {
        return;
    }
    // One large system: faer's threads inside the solve.
    let par = if batch == 1 && n >= PAR_SIZE && r >= 16 && rayon::current_num_threads() > 1 {
        Par::rayon(0)
    } else {
        Par::Seq
    };
    let work =
        |((lu, perm), b): ((&[T], &[i32]), &mut [T])| lu_solve_one(lu, perm, b, n, r, trans, par);
    let items = lu
        .chunks(n * n)
        .zip(perm.chunks(n))
        .zip(b.chunks_mut(n * r))
        .take(batch);
    if batch > 1 && batch * n * n * r >= 1 << 15 {
        items.collect::<Vec<_>>().into_par_iter().for_each(work);
    } else {
        items.for_each(work);
    }
}

/// Solves `A·x = b` (or `Aᵀ·x = b` with `trans`) for each of `batch` systems
/// from [`lu_f32`]'s factors and permutation; `b` (`n×r` row-major per
/// system) is overwritten by `x`. A zero pivot gives inf/nan, as LAPACK.
pub fn lu_solve_f32(
    lu: &[f32],
    perm: &[i32],
    b: &mut [f32],
    batch: usize,
    n: usize,
    r: usize,
    trans: bool,
) {
    lu_solve_batch(lu, perm, b, batch, n, r, trans)
}

/// [`lu_solve_f32`] for f64.
pub fn lu_solve_f64(
    lu: &[f64],
    perm: &[i32],
    b: &mut [f64],
    batch: usize,
    n: usize,
    r: usize,
    trans: bool,
) {
    lu_solve_batch(lu, perm, b, batch, n, r, trans)
}
