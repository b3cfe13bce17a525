//! Packing: copies of blocks of A and B laid out in the order the
//! microkernels read them, zero-padded to whole panels. Both read any
//! (row, column) strides, so transposed operands are packed without an
//! intermediate copy.

use super::Real;

/// A packing routine: [`pack_a`]'s or [`pack_b`]'s contract (`out`, the
/// operand, its row and column strides, the block's two extents, the panel
/// width).
pub(super) type PackFn<T> =
    unsafe fn(out: *mut T, src: *const T, rs: usize, cs: usize, d0: usize, d1: usize, w: usize);

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

/// Rows of a row-major B copied together into every panel. Row by row,
/// one row's writes go to every panel at once: lines a power of two apart
/// (a panel is `nr · kc` values) that evict each other before they fill.
/// Panel by panel, each read starts a new row and, for wide B, a new page.
/// Four rows keep four sequential read streams and fill each panel's lines
/// in one visit: about 1.6× the speed of either order on a 512 × 512 block
/// read from L3 (AMD Zen 5), near a plain row copy.
const ROW_GROUP: usize = 4;

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
        if cs == 1 {
            for p0 in (0..kc).step_by(ROW_GROUP) {
                for q in 0..nc.div_ceil(nr) {
                    let cols = nr.min(nc - q * nr);
                    for p in p0..(p0 + ROW_GROUP).min(kc) {
                        let o = out.add(q * nr * kc + p * nr);
                        std::ptr::copy_nonoverlapping(b.add(p * rs + q * nr), o, cols);
                        for j in cols..nr {
                            *o.add(j) = T::ZERO;
                        }
                    }
                }
            }
            return;
        }
        for q in 0..nc.div_ceil(nr) {
            let cols = nr.min(nc - q * nr);
            let o = out.add(q * nr * kc);
            let b = b.add(q * nr * cs);
            if rs == 1 {
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

/// Packing for the AVX2 `f32` kernel (`MR = 6`, `NR = 16`): the layouts of
/// [`pack_a`] and [`pack_b`], moved in 8-lane vectors. Transposed operands
/// go through 8 × 8 transposes in registers; a row-major B is read
/// [`ROW_GROUP`] rows at a time.
#[cfg(target_arch = "x86_64")]
pub(super) mod s_avx2 {
    use std::arch::x86_64::*;

    const MR: usize = 6;
    const NR: usize = 16;

    /// Stores lanes 0..6 of `v` at `o` (the two lanes after are not touched:
    /// they belong to the next panel row).
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn store6(o: *mut f32, v: __m256) {
        // SAFETY: the caller's `o` has room for six values.
        unsafe {
            _mm_storeu_ps(o, _mm256_castps256_ps128(v));
            _mm_storel_epi64(
                o.add(4).cast(),
                _mm_castps_si128(_mm256_extractf128_ps::<1>(v)),
            );
        }
    }

    /// [`super::pack_a`] for `mr = 6`.
    ///
    /// # Safety
    /// As [`super::pack_a`]; the CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(in super::super) unsafe fn pack_a(
        out: *mut f32,
        a: *const f32,
        rs: usize,
        cs: usize,
        mc: usize,
        kc: usize,
        mr: usize,
    ) {
        debug_assert_eq!(mr, MR);
        let full = mc / MR;
        // SAFETY: every read is inside the `mc × kc` block the contract
        // bounds and every write inside `out`'s whole panels.
        unsafe {
            if cs == 1 && rs != 1 {
                // Rows contiguous along k: 8 × 8 blocks transposed in
                // registers (rows 6 and 7 of each block are zero, unused).
                let k8 = kc / 8 * 8;
                for q in 0..full {
                    let o = out.add(q * MR * kc);
                    let a = a.add(q * MR * rs);
                    for p0 in (0..k8).step_by(8) {
                        let mut r = [_mm256_setzero_ps(); 8];
                        for (i, v) in r.iter_mut().take(MR).enumerate() {
                            *v = _mm256_loadu_ps(a.add(i * rs + p0));
                        }
                        for (pp, v) in transpose8(r).iter().enumerate() {
                            store6(o.add((p0 + pp) * MR), *v);
                        }
                    }
                    for p in k8..kc {
                        for i in 0..MR {
                            *o.add(p * MR + i) = *a.add(i * rs + p);
                        }
                    }
                }
            } else if rs == 1 {
                // Columns contiguous: each panel row is 6 consecutive values.
                for q in 0..full {
                    let o = out.add(q * MR * kc);
                    let a = a.add(q * MR);
                    for p in 0..kc {
                        let s = a.add(p * cs);
                        let d = o.add(p * MR);
                        _mm_storeu_ps(d, _mm_loadu_ps(s));
                        _mm_storel_epi64(d.add(4).cast(), _mm_loadl_epi64(s.add(4).cast()));
                    }
                }
            } else {
                super::pack_a(out, a, rs, cs, full * MR, kc, MR);
            }
            if full * MR < mc {
                super::pack_a(
                    out.add(full * MR * kc),
                    a.add(full * MR * rs),
                    rs,
                    cs,
                    mc - full * MR,
                    kc,
                    MR,
                );
            }
        }
    }

    /// [`super::pack_b`] for `nr = 16`.
    ///
    /// # Safety
    /// As [`super::pack_b`]; the CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(in super::super) unsafe fn pack_b(
        out: *mut f32,
        b: *const f32,
        rs: usize,
        cs: usize,
        kc: usize,
        nc: usize,
        nr: usize,
    ) {
        debug_assert_eq!(nr, NR);
        let full = nc / NR;
        // SAFETY: as in `pack_a` above.
        unsafe {
            if cs == 1 {
                // `ROW_GROUP` rows at a time across all panels (see there).
                for p0 in (0..kc).step_by(super::ROW_GROUP) {
                    let p1 = (p0 + super::ROW_GROUP).min(kc);
                    for q in 0..full {
                        let (o, s) = (out.add(q * NR * kc), b.add(q * NR));
                        for p in p0..p1 {
                            let (o, s) = (o.add(p * NR), s.add(p * rs));
                            _mm256_storeu_ps(o, _mm256_loadu_ps(s));
                            _mm256_storeu_ps(o.add(8), _mm256_loadu_ps(s.add(8)));
                        }
                    }
                }
            } else if rs == 1 {
                // Columns contiguous along k (a transposed B): 8 × 8 blocks
                // transposed in registers.
                let k8 = kc / 8 * 8;
                for q in 0..full {
                    let o = out.add(q * NR * kc);
                    let b = b.add(q * NR * cs);
                    for j0 in [0, 8] {
                        for p0 in (0..k8).step_by(8) {
                            let mut r = [_mm256_setzero_ps(); 8];
                            for (j, v) in r.iter_mut().enumerate() {
                                *v = _mm256_loadu_ps(b.add((j0 + j) * cs + p0));
                            }
                            for (pp, v) in transpose8(r).iter().enumerate() {
                                _mm256_storeu_ps(o.add((p0 + pp) * NR + j0), *v);
                            }
                        }
                        for p in k8..kc {
                            for j in 0..8 {
                                *o.add(p * NR + j0 + j) = *b.add((j0 + j) * cs + p);
                            }
                        }
                    }
                }
            } else {
                super::pack_b(out, b, rs, cs, kc, full * NR, NR);
            }
            if full * NR < nc {
                super::pack_b(
                    out.add(full * NR * kc),
                    b.add(full * NR * cs),
                    rs,
                    cs,
                    kc,
                    nc - full * NR,
                    NR,
                );
            }
        }
    }

    /// The transpose of an 8 × 8 block: `out[j]` lane `i` = `r[i]` lane `j`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn transpose8(r: [__m256; 8]) -> [__m256; 8] {
        // Pairs of rows interleaved within 128-bit lanes…
        let mut t = [_mm256_setzero_ps(); 8];
        for i in 0..4 {
            t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        // …then quads: s[4h + c], 128-bit lane L, holds rows 4h..4h+4 of
        // column c + 4L…
        let mut s = [_mm256_setzero_ps(); 8];
        for h in 0..2 {
            let (t0, t1, t2, t3) = (t[4 * h], t[4 * h + 1], t[4 * h + 2], t[4 * h + 3]);
            s[4 * h] = _mm256_shuffle_ps::<0x44>(t0, t2);
            s[4 * h + 1] = _mm256_shuffle_ps::<0xee>(t0, t2);
            s[4 * h + 2] = _mm256_shuffle_ps::<0x44>(t1, t3);
            s[4 * h + 3] = _mm256_shuffle_ps::<0xee>(t1, t3);
        }
        // …then the 128-bit lanes of the two row halves joined.
        let mut out = [_mm256_setzero_ps(); 8];
        for c in 0..4 {
            out[c] = _mm256_permute2f128_ps::<0x20>(s[c], s[4 + c]);
            out[c + 4] = _mm256_permute2f128_ps::<0x31>(s[c], s[4 + c]);
        }
        out
    }
}

/// Packing for the AVX-512 `f32` kernel (`MR = 12`, `NR = 32`): the same
/// layouts as [`pack_a`] and [`pack_b`], with whole panels moved in vectors.
/// A transposed operand (B with its columns contiguous, A with its rows
/// contiguous) is transposed 16 × 16 in registers instead of element by
/// element; a row-major B is read [`ROW_GROUP`] rows at a time.
#[cfg(target_arch = "x86_64")]
pub(super) mod s_avx512 {
    use std::arch::x86_64::*;

    const MR: usize = 12;
    const NR: usize = 32;

    /// [`super::pack_a`] for `mr = 12`.
    ///
    /// # Safety
    /// As [`super::pack_a`]; the CPU has AVX-512F.
    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(in super::super) unsafe fn pack_a(
        out: *mut f32,
        a: *const f32,
        rs: usize,
        cs: usize,
        mc: usize,
        kc: usize,
        mr: usize,
    ) {
        debug_assert_eq!(mr, MR);
        let full = mc / MR;
        // SAFETY: every read is inside the `mc × kc` block the contract
        // bounds and every write inside `out`'s whole panels.
        unsafe {
            if cs == 1 && rs != 1 {
                // Rows contiguous along k: 16 × 16 blocks transposed in
                // registers (rows 12..16 of each block are zero and unused).
                let k16 = kc / 16 * 16;
                for q in 0..full {
                    let o = out.add(q * MR * kc);
                    let a = a.add(q * MR * rs);
                    for p0 in (0..k16).step_by(16) {
                        let mut r = [_mm512_setzero_ps(); 16];
                        for (i, v) in r.iter_mut().take(MR).enumerate() {
                            *v = _mm512_loadu_ps(a.add(i * rs + p0));
                        }
                        let t = transpose16(r);
                        for (pp, v) in t.iter().enumerate() {
                            _mm512_mask_storeu_ps(o.add((p0 + pp) * MR), 0x0fff, *v);
                        }
                    }
                    for p in k16..kc {
                        for i in 0..MR {
                            *o.add(p * MR + i) = *a.add(i * rs + p);
                        }
                    }
                }
            } else if rs == 1 {
                // Columns contiguous: each panel row is 12 consecutive values.
                for q in 0..full {
                    let o = out.add(q * MR * kc);
                    let a = a.add(q * MR);
                    for p in 0..kc {
                        let v = _mm512_maskz_loadu_ps(0x0fff, a.add(p * cs));
                        _mm512_mask_storeu_ps(o.add(p * MR), 0x0fff, v);
                    }
                }
            } else {
                super::pack_a(out, a, rs, cs, full * MR, kc, MR);
            }
            if full * MR < mc {
                super::pack_a(
                    out.add(full * MR * kc),
                    a.add(full * MR * rs),
                    rs,
                    cs,
                    mc - full * MR,
                    kc,
                    MR,
                );
            }
        }
    }

    /// [`super::pack_b`] for `nr = 32`.
    ///
    /// # Safety
    /// As [`super::pack_b`]; the CPU has AVX-512F.
    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(in super::super) unsafe fn pack_b(
        out: *mut f32,
        b: *const f32,
        rs: usize,
        cs: usize,
        kc: usize,
        nc: usize,
        nr: usize,
    ) {
        debug_assert_eq!(nr, NR);
        let full = nc / NR;
        // SAFETY: as in `pack_a` above.
        unsafe {
            if cs == 1 {
                // `ROW_GROUP` rows at a time across all panels (see there).
                for p0 in (0..kc).step_by(super::ROW_GROUP) {
                    let p1 = (p0 + super::ROW_GROUP).min(kc);
                    for q in 0..full {
                        let (o, s) = (out.add(q * NR * kc), b.add(q * NR));
                        for p in p0..p1 {
                            let (o, s) = (o.add(p * NR), s.add(p * rs));
                            _mm512_storeu_ps(o, _mm512_loadu_ps(s));
                            _mm512_storeu_ps(o.add(16), _mm512_loadu_ps(s.add(16)));
                        }
                    }
                }
            } else if rs == 1 {
                // Columns contiguous along k (a transposed B): 16 × 16
                // blocks transposed in registers.
                let k16 = kc / 16 * 16;
                for q in 0..full {
                    let o = out.add(q * NR * kc);
                    let b = b.add(q * NR * cs);
                    for j0 in [0, 16] {
                        for p0 in (0..k16).step_by(16) {
                            let mut r = [_mm512_setzero_ps(); 16];
                            for (j, v) in r.iter_mut().enumerate() {
                                *v = _mm512_loadu_ps(b.add((j0 + j) * cs + p0));
                            }
                            let t = transpose16(r);
                            for (pp, v) in t.iter().enumerate() {
                                _mm512_storeu_ps(o.add((p0 + pp) * NR + j0), *v);
                            }
                        }
                        for p in k16..kc {
                            for j in 0..16 {
                                *o.add(p * NR + j0 + j) = *b.add((j0 + j) * cs + p);
                            }
                        }
                    }
                }
            } else {
                super::pack_b(out, b, rs, cs, kc, full * NR, NR);
            }
            if full * NR < nc {
                super::pack_b(
                    out.add(full * NR * kc),
                    b.add(full * NR * cs),
                    rs,
                    cs,
                    kc,
                    nc - full * NR,
                    NR,
                );
            }
        }
    }

    /// The transpose of a 16 × 16 block: `out[j]` lane `i` = `r[i]` lane `j`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn transpose16(r: [__m512; 16]) -> [__m512; 16] {
        // Pairs of rows interleaved within 128-bit lanes…
        let mut t = [_mm512_setzero_ps(); 16];
        for i in 0..8 {
            t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        // …then quads: u[4g + c], 128-bit lane L, holds rows 4g..4g+4 of
        // column c + 4L…
        let mut u = [_mm512_setzero_ps(); 16];
        for g in 0..4 {
            let (t0, t1) = (_mm512_castps_pd(t[4 * g]), _mm512_castps_pd(t[4 * g + 1]));
            let (t2, t3) = (
                _mm512_castps_pd(t[4 * g + 2]),
                _mm512_castps_pd(t[4 * g + 3]),
            );
            u[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
            u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
            u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
            u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
        }
        // …then 128-bit lanes gathered across the four groups.
        let mut out = [_mm512_setzero_ps(); 16];
        for c in 0..4 {
            let w0 = _mm512_shuffle_f32x4::<0x88>(u[c], u[4 + c]);
            let w1 = _mm512_shuffle_f32x4::<0xdd>(u[c], u[4 + c]);
            let w2 = _mm512_shuffle_f32x4::<0x88>(u[8 + c], u[12 + c]);
            let w3 = _mm512_shuffle_f32x4::<0xdd>(u[8 + c], u[12 + c]);
            out[c] = _mm512_shuffle_f32x4::<0x88>(w0, w2);
            out[c + 4] = _mm512_shuffle_f32x4::<0x88>(w1, w3);
            out[c + 8] = _mm512_shuffle_f32x4::<0xdd>(w0, w2);
            out[c + 12] = _mm512_shuffle_f32x4::<0xdd>(w1, w3);
        }
        out
    }
}
