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
pub(super) type KernelFn<T> =
    unsafe fn(kc: usize, a: *const T, b: *const T, c: *mut T, ldc: usize, accumulate: bool);

/// Defines one microkernel from the intrinsics of a vector type.
macro_rules! micro {
    ($name:ident, $t:ty, $feat:literal, $mr:expr, $nv:expr, $lanes:expr,
     $zero:ident, $load:ident, $store:ident, $set1:ident, $fma:ident, $add:ident) => {
        /// # Safety
        /// The CPU has the enabled features; `a` holds `kc · MR` values, `b`
        /// `kc · NR`, and `c` an `MR × NR` block with row stride `ldc`.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        #[allow(clippy::needless_range_loop)]
        pub(super) unsafe fn $name(
            kc: usize,
            a: *const $t,
            b: *const $t,
            c: *mut $t,
            ldc: usize,
            accumulate: bool,
        ) {
            const MR: usize = $mr;
            const NV: usize = $nv;
            const L: usize = $lanes;
            let mut acc = [[$zero(); NV]; MR];
            let (mut a, mut b) = (a, b);
            // SAFETY (all pointer reads and writes below): the caller's
            // contract bounds them by kc·MR, kc·NR and the MR × NR block.
            unsafe {
                // C's tile is read (or written) after the loop: start its
                // lines on their way now.
                for i in 0..MR {
                    for v in 0..NV {
                        _mm_prefetch::<_MM_HINT_T0>(c.add(i * ldc + v * L).cast::<i8>());
                    }
                }
                for _ in 0..kc {
                    let mut bv = [$zero(); NV];
                    for v in 0..NV {
                        bv[v] = $load(b.add(v * L));
                    }
                    for i in 0..MR {
                        let ai = $set1(*a.add(i));
                        for v in 0..NV {
                            acc[i][v] = $fma(ai, bv[v], acc[i][v]);
                        }
                    }
                    a = a.add(MR);
                    b = b.add(NV * L);
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
