//! Packing: copies of blocks of A and B laid out in the order the
//! microkernels read them, zero-padded to whole panels. Both read any
//! (row, column) strides, so transposed operands are packed without an
//! intermediate copy.

use super::Real;

/// Packs the `mc × kc` block of A at `a` (strides `rs`, `cs`) into panels of
/// `mr` rows: panel `q` holds, for `p = 0..kc`, rows `q·mr..q·mr + mr` of
/// column `p` (rows past `mc` as zeros).
///
/// # Safety
/// `a` reaches `(mc-1)·rs + (kc-1)·cs`; `out` holds `mc.div_ceil(mr)·mr·kc`.
pub(super) unsafe fn pack_a<T: Real>(
    out: *mut T,
    a: *const T,
    rs: usize,
    cs: usize,
    mc: usize,
    kc: usize,
    mr: usize,
) {
    // SAFETY: every index stays within the bounds of the contract above.
    unsafe {
        for q in 0..mc.div_ceil(mr) {
            let rows = mr.min(mc - q * mr);
            let o = out.add(q * mr * kc);
            let a = a.add(q * mr * rs);
            if cs == 1 && rs != 1 {
                // Rows contiguous along k: read each row once, in order.
                for i in 0..rows {
                    let row = a.add(i * rs);
                    for p in 0..kc {
                        *o.add(p * mr + i) = *row.add(p);
                    }
                }
                for i in rows..mr {
                    for p in 0..kc {
                        *o.add(p * mr + i) = T::ZERO;
                    }
                }
            } else {
                for p in 0..kc {
                    let col = a.add(p * cs);
                    let o = o.add(p * mr);
                    for i in 0..rows {
                        *o.add(i) = *col.add(i * rs);
                    }
                    for i in rows..mr {
                        *o.add(i) = T::ZERO;
                    }
                }
            }
        }
    }
}

/// Packs the `kc × nc` block of B at `b` (strides `rs`, `cs`) into panels of
/// `nr` columns: panel `q` holds, for `p = 0..kc`, columns `q·nr..q·nr + nr`
/// of row `p` (columns past `nc` as zeros).
///
/// # Safety
/// `b` reaches `(kc-1)·rs + (nc-1)·cs`; `out` holds `nc.div_ceil(nr)·nr·kc`.
pub(super) unsafe fn pack_b<T: Real>(
    out: *mut T,
    b: *const T,
    rs: usize,
    cs: usize,
    kc: usize,
    nc: usize,
    nr: usize,
) {
    // SAFETY: every index stays within the bounds of the contract above.
    unsafe {
        for q in 0..nc.div_ceil(nr) {
            let cols = nr.min(nc - q * nr);
            let o = out.add(q * nr * kc);
            let b = b.add(q * nr * cs);
            if cs == 1 {
                for p in 0..kc {
                    let o = o.add(p * nr);
                    std::ptr::copy_nonoverlapping(b.add(p * rs), o, cols);
                    for j in cols..nr {
                        *o.add(j) = T::ZERO;
                    }
                }
            } else if rs == 1 {
                // Columns contiguous along k (a transposed B): read each
                // column once, in order.
                for j in 0..cols {
                    let col = b.add(j * cs);
                    for p in 0..kc {
                        *o.add(p * nr + j) = *col.add(p);
                    }
                }
                for j in cols..nr {
                    for p in 0..kc {
                        *o.add(p * nr + j) = T::ZERO;
                    }
                }
            } else {
                for p in 0..kc {
                    let o = o.add(p * nr);
                    for j in 0..cols {
                        *o.add(j) = *b.add(p * rs + j * cs);
                    }
                    for j in cols..nr {
                        *o.add(j) = T::ZERO;
                    }
                }
            }
        }
    }
}
