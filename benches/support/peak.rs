//! The machine's f32 FMA peak: on every thread, `CHAINS` independent chains
//! of fused multiply-adds at the widest SIMD width the CPU has (AVX-512:
//! 16 lanes, AVX2+FMA: 8), enough chains to cover the FMA latency times the
//! number of FMA ports. `benches/compare.py` divides the matmul-bound rows'
//! FLOP counts by their times and prints them as a share of this peak.
//!
//! Shared by `benches/workloads.rs` and its test, `tests/bench_peak.rs`
//! (in a subdirectory, so cargo does not take it for a bench of its own).

/// Independent accumulators per thread (Zen 5 and Xeons: 4-cycle FMA
/// latency × 2 ports = 8 in flight; 12 leaves slack).
pub const CHAINS: usize = 12;

/// `acc = acc * a + b` on each of `CHAINS` chains of `width` lanes, `iters`
/// times; returns the chains' lanes, lane-major per chain. The multiplier
/// `a` just below 1 keeps the values finite however long the run.
pub fn fma_chains(iters: usize) -> (usize, Vec<f32>) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            return (16, unsafe { x86::avx512(iters) });
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA (checked just above).
            return (8, unsafe { x86::avx2(iters) });
        }
    }
    (1, reference(1, iters))
}

/// The multiplier and addend of every chain (`start(c, l)` its first value).
pub const A: f32 = 0.999_999;
pub const B: f32 = 1e-6;

/// The first value of lane `l` of chain `c`.
pub fn start(c: usize, l: usize) -> f32 {
    (c * 16 + l) as f32 * 0.01
}

/// The same chains one scalar `mul_add` at a time: what the SIMD kernels
/// must give bit for bit (an FMA rounds once either way).
pub fn reference(width: usize, iters: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(CHAINS * width);
    for c in 0..CHAINS {
        for l in 0..width {
            let mut v = start(c, l);
            for _ in 0..iters {
                v = v.mul_add(A, B);
            }
            out.push(v);
        }
    }
    out
}

/// FLOPs of one `fma_chains(iters)` call on one thread (an FMA is two).
pub fn flops(width: usize, iters: usize) -> f64 {
    2.0 * (CHAINS * width * iters) as f64
}

/// The chains in registers, one vector FMA per chain and step (explicit
/// intrinsics: a plain-Rust form was compiled to scalar `fmaf` calls,
/// measuring a hundredth of the machine).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{start, A, B, CHAINS};
    use std::arch::x86_64::*;

    macro_rules! chains {
        ($name:ident, $feat:literal, $w:expr, $v:ty, $set1:ident, $loadu:ident, $storeu:ident, $fma:ident) => {
            #[target_feature(enable = $feat)]
            pub unsafe fn $name(iters: usize) -> Vec<f32> {
                let mut init = [0.0f32; $w];
                let mut acc: [$v; CHAINS] = [$set1(0.0); CHAINS];
                for (c, v) in acc.iter_mut().enumerate() {
                    for (l, x) in init.iter_mut().enumerate() {
                        *x = start(c, l);
                    }
                    // SAFETY: `init` holds one vector's lanes.
                    *v = unsafe { $loadu(init.as_ptr()) };
                }
                let (a, b) = ($set1(A), $set1(B));
                for _ in 0..iters {
                    for v in acc.iter_mut() {
                        *v = $fma(*v, a, b);
                    }
                }
                let mut out = vec![0.0f32; CHAINS * $w];
                for (c, v) in acc.iter().enumerate() {
                    // SAFETY: `out` holds CHAINS vectors' lanes.
                    unsafe { $storeu(out.as_mut_ptr().add(c * $w), *v) };
                }
                out
            }
        };
    }
    chains!(
        avx512,
        "avx512f,avx2,fma",
        16,
        __m512,
        _mm512_set1_ps,
        _mm512_loadu_ps,
        _mm512_storeu_ps,
        _mm512_fmadd_ps
    );
    chains!(
        avx2,
        "avx2,fma",
        8,
        __m256,
        _mm256_set1_ps,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_fmadd_ps
    );
}
