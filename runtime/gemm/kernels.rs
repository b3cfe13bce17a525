//! Microkernels: one `MR × NR` block of C from a packed `MR × kc` panel of
//! A (`kc` columns of `MR` values) and a packed `kc × NR` panel of B (`kc`
//! rows of `NR` values). Each broadcasts one value of A per row and
//! multiply-adds it into `NR / lanes` vectors of its row, so one tile keeps
//! `MR · NR / lanes` independent FMA chains in registers. Every element's sum
//! runs over `p = 0..kc` in order with one rounding per step (FMA), so the
//! AVX2 and AVX-512 kernels give the same bits for the same `kc`.

// The AVX-512 intrinsics are stable since Rust 1.89, the crate's
// `rust-version`.
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// `C[i][j] (row stride ldc) = (accumulate ? C[i][j] : 0) + Σ_p a[p·MR + i] · b[p·NR + j]`.
/// With `src` not null, B's panel is packed on the way: its row `p` is read
/// from `src + p·src_rs` and written to `b`, so the first tile of each
/// panel packs it while multiplying instead of in a pass of its own. `pf`
/// names memory to prefetch during the call.
pub(super) type KernelFn<T> = unsafe fn(
    kc: usize,
    a: *const T,
    b: *const T,
    c: *mut T,
    ldc: usize,
    accumulate: bool,
    src: *const T,
    src_rs: usize,
    pf: Prefetch,
);

/// Lines of memory a kernel call asks for, into L2, one per step of its k
/// loop: `rows` rows of `lines` lines each, `stride` bytes apart, from line
/// `line` of the row at `start` (64-byte aligned). The caller names the
/// source of the next panel of B it will pack, so those reads overlap this
/// call's arithmetic instead of stalling the packing. A prefetch never
/// faults, so no address is dereferenced.
#[derive(Clone, Copy)]
pub(super) struct Prefetch {
    pub start: *const i8,
    pub stride: usize,
    pub lines: usize,
    pub line: usize,
    /// Rows left, counting the one at `start`; 0: nothing to prefetch.
    pub rows: usize,
}

impl Prefetch {
    pub const NONE: Prefetch = Prefetch {
        start: std::ptr::null(),
        stride: 0,
        lines: 0,
        line: 0,
        rows: 0,
    };
}

/// Defines one microkernel from the intrinsics of a vector type.
macro_rules! micro {
    ($name:ident, $t:ty, $feat:literal, $mr:expr, $nv:expr, $lanes:expr,
     $zero:ident, $load:ident, $store:ident, $set1:ident, $fma:ident, $add:ident) => {
        /// # Safety
        /// The CPU has the enabled features; `a` holds `kc · MR` values, `b`
        /// `kc · NR`, and `c` an `MR × NR` block with row stride `ldc`. If
        /// `src` is not null, `b` is writable and `src` holds `kc` rows of
        /// `NR` values, `src_rs` apart.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        #[allow(clippy::needless_range_loop, clippy::too_many_arguments)]
        pub(super) unsafe fn $name(
            kc: usize,
            a: *const $t,
            b: *const $t,
            c: *mut $t,
            ldc: usize,
            accumulate: bool,
            src: *const $t,
            src_rs: usize,
            pf: Prefetch,
        ) {
            const MR: usize = $mr;
            const NV: usize = $nv;
            const L: usize = $lanes;
            let mut acc = [[$zero(); NV]; MR];
            let (mut a, mut b) = (a, b);
            // SAFETY: every pointer read and write below is bounded by the
            // caller's contract: kc·MR, kc·NR and the MR × NR block.
            unsafe {
                // C's tile is read (or written) after the loop: start its
                // lines on their way now.
                for i in 0..MR {
                    for v in 0..NV {
                        _mm_prefetch::<_MM_HINT_T0>(c.add(i * ldc + v * L).cast::<i8>());
                    }
                }
                // The k loop: each step multiplies a row of B's panel by a
                // column of A's into every accumulator. `pack`: the row is
                // read from B itself and written to the panel on the way;
                // `prefetch`: one line of `pf` is requested.
                macro_rules! k_loop {
                            ($from:ident, $pf:ident) => {{
                                // (Each combination uses some of these.)
                                #[allow(unused_mut)]
                                let (mut row, mut line, mut rows, mut src) =
                                    (pf.start, pf.line, pf.rows, src);
                                for _ in 0..kc {
                                    k_loop!(@pf $pf, row, line, rows);
                                    let mut bv = [$zero(); NV];
                                    for v in 0..NV {
                                        bv[v] = k_loop!(@load $from, src, b, v);
                                    }
                                    k_loop!(@next $from, src);
                                    for i in 0..MR {
                                        let ai = $set1(*a.add(i));
                                        for v in 0..NV {
                                            acc[i][v] = $fma(ai, bv[v], acc[i][v]);
                                        }
                                    }
                                    a = a.add(MR);
                                    b = b.add(NV * L);
                                }
                                let _ = (row, line, rows, src);
                            }};
                            (@pf prefetch, $row:ident, $line:ident, $rows:ident) => {
                                if $rows > 0 {
                                    _mm_prefetch::<_MM_HINT_T1>($row.wrapping_add($line * 64));
                                    $line += 1;
                                    if $line == pf.lines {
                                        $line = 0;
                                        $row = $row.wrapping_add(pf.stride);
                                        $rows -= 1;
                                    }
                                }
                            };
                            (@pf none, $row:ident, $line:ident, $rows:ident) => {};
                            (@load panel, $src:ident, $b:ident, $v:ident) => {
                                $load($b.add($v * L))
                            };
                            (@load pack, $src:ident, $b:ident, $v:ident) => {{
                                let x = $load($src.add($v * L));
                                $store($b.cast_mut().add($v * L), x);
                                x
                            }};
                            (@next panel, $src:ident) => {};
                            (@next pack, $src:ident) => {
                                $src = $src.add(src_rs);
                            };
                        }
                match (src.is_null(), pf.rows == 0) {
                    (true, true) => k_loop!(panel, none),
                    (true, false) => k_loop!(panel, prefetch),
                    (false, true) => k_loop!(pack, none),
                    (false, false) => k_loop!(pack, prefetch),
                }
                for i in 0..MR {
                    let row = c.add(i * ldc);
                    for v in 0..NV {
                        let p = row.add(v * L);
                        let x = if accumulate {
                            $add($load(p), acc[i][v])
                        } else {
                            acc[i][v]
                        };
                        $store(p, x);
                    }
                }
            }
        }
    };
}

micro!(
    s_avx512,
    f32,
    "avx512f,avx2,fma",
    12,
    2,
    16,
    _mm512_setzero_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_set1_ps,
    _mm512_fmadd_ps,
    _mm512_add_ps
);
micro!(
    d_avx512,
    f64,
    "avx512f,avx2,fma",
    12,
    2,
    8,
    _mm512_setzero_pd,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_set1_pd,
    _mm512_fmadd_pd,
    _mm512_add_pd
);
micro!(
    s_avx2,
    f32,
    "avx2,fma",
    6,
    2,
    8,
    _mm256_setzero_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_set1_ps,
    _mm256_fmadd_ps,
    _mm256_add_ps
);
micro!(
    d_avx2,
    f64,
    "avx2,fma",
    6,
    2,
    4,
    _mm256_setzero_pd,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_set1_pd,
    _mm256_fmadd_pd,
    _mm256_add_pd
);
