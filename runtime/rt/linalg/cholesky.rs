//! `cholesky`: the lower Cholesky factor `L` (`A = L Lᵀ`) of a batch of
//! symmetric positive-definite matrices. Only the lower triangle of each
//! `A` is read (LAPACK's `potrf` with `uplo = L`, as JAX's primitive); the
//! result's upper triangle is zero. A matrix that is not positive definite
//! gives a result full of NaN, as JAX on CPU gives, never a panic.
//!
//! Small matrices (below `DIRECT_DIM`) run an unblocked row-major loop
//! with no allocation; larger ones faer's blocked `LLᵀ` (on rayon's threads
//! from `PAR_DIM` on). Both fail on the same pivots (not positive, or not
//! finite), so the NaN rule does not depend on the size.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::{MatMut, Par};
use rayon::prelude::*;

/// One matrix this size or larger is factored on rayon's threads by faer
/// itself; smaller ones are not worth the threads' start.
const PAR_DIM: usize = 192;

/// Below this size the direct loop beats faer's blocked factorization
/// (measured on f32 and f64: faer's dispatch and scratch cost more than the
/// flops of a small matrix).
pub(crate) const DIRECT_DIM: usize = 64;

/// A batch whose total work (`batch · n³`, about 0.3 ms) is below this
/// runs on one thread: 64 matrices of 32×32 took 0.15 ms on one thread and
/// no less on two of a loaded machine, where rayon's second thread often
/// waits for a core.
const PAR_BATCH_WORK: usize = 1 << 22;

/// The element types of the direct kernel.
pub(crate) trait CholFloat:
    faer::traits::RealField
    + Copy
    + Default
    + Send
    + Sync
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::SubAssign
    + std::ops::DivAssign
{
    const NAN: Self;
    fn sqrt_val(self) -> Self;
    fn finite(self) -> bool;
}

macro_rules! chol_float {
    ($($t:ty),*) => {$(
        impl CholFloat for $t {
            const NAN: Self = <$t>::NAN;
            #[inline(always)]
            fn sqrt_val(self) -> Self { self.sqrt() }
            #[inline(always)]
            fn finite(self) -> bool { self.is_finite() }
        }
    )*};
}
chol_float!(f32, f64);

/// Right-looking Cholesky on one row-major `n × n` matrix in place, on
/// `Lᵀ`: the lower triangle is transposed into `u` (row-major upper, so
/// each trailing update is a contiguous `axpy` that vectorizes), factored,
/// and transposed back. `false` at a pivot that is not positive or not
/// finite, where faer's `LLᵀ` stops too.
#[inline(always)]
fn direct_one<T: CholFloat>(x: &mut [T], n: usize, u: &mut [T]) -> bool {
    let u = &mut u[..n * n];
    for i in 0..n {
        for j in 0..=i {
            u[j * n + i] = x[i * n + j];
        }
    }
    for k in 0..n {
        let (top, rest) = u.split_at_mut((k + 1) * n);
        let row = &mut top[k * n..];
        let d = row[k];
        if !(d > T::default() && d.finite()) {
            return false;
        }
        let d = d.sqrt_val();
        row[k] = d;
        for v in &mut row[k + 1..] {
            *v /= d;
        }
        let row = &row[..];
        for (i, below) in (k + 1..n).zip(rest.chunks_exact_mut(n)) {
            let f = row[i];
            for (b, &r) in below[i..].iter_mut().zip(&row[i..]) {
                *b -= f * r;
            }
        }
    }
    for i in 0..n {
        for j in 0..=i {
            x[i * n + j] = u[j * n + i];
        }
        for v in &mut x[i * n + i + 1..(i + 1) * n] {
            *v = T::default();
        }
    }
    true
}

/// [`direct_one`] compiled for AVX2 (8 lanes of f32 per instruction, as
/// faer's own kernels pick at run time); the caller checks the CPU has it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn direct_one_avx2<T: CholFloat>(x: &mut [T], n: usize, u: &mut [T]) -> bool {
    direct_one(x, n, u)
}

/// [`direct_one`] with the widest vectors this CPU has.
fn direct<T: CholFloat>(x: &mut [T], n: usize, u: &mut [T]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just checked to support AVX2.
        return unsafe { direct_one_avx2(x, n, u) };
    }
    direct_one(x, n, u)
}

/// Factors one row-major `n × n` matrix in place with faer, `mem` its
/// scratch (kept across the matrices of a batch).
fn faer_one<T: CholFloat>(x: &mut [T], n: usize, par: Par, mem: &mut MemBuffer) -> bool {
    let stack = MemStack::new(mem);
    let a = MatMut::from_row_major_slice_mut(x, n, n);
    if cholesky_in_place(a, Default::default(), par, stack, Default::default()).is_err() {
        return false;
    }
    for i in 0..n {
        for v in &mut x[i * n + i + 1..(i + 1) * n] {
            *v = T::default();
        }
    }
    true
}

fn scratch<T: CholFloat>(n: usize, par: Par) -> MemBuffer {
    MemBuffer::new(cholesky_in_place_scratch::<T>(n, par, Default::default()))
}

/// The scratch of one job: the direct kernel's `Lᵀ`, or faer's buffer.
enum Scratch<T> {
    None,
    Direct(Vec<T>),
    Faer(MemBuffer),
}

/// One matrix, by the direct loop or faer; NaN everywhere on failure.
fn factor_one<T: CholFloat>(x: &mut [T], n: usize, par: Par, mem: &mut Scratch<T>) {
    let ok = if n < DIRECT_DIM {
        if !matches!(mem, Scratch::Direct(_)) {
            *mem = Scratch::Direct(vec![T::default(); n * n]);
        }
        let Scratch::Direct(u) = mem else {
            unreachable!("set above")
        };
        direct(x, n, u)
    } else {
        if !matches!(mem, Scratch::Faer(_)) {
            *mem = Scratch::Faer(scratch::<T>(n, par));
        }
        let Scratch::Faer(m) = mem else {
            unreachable!("set above")
        };
        faer_one(x, n, par, m)
    };
    if !ok {
        x.fill(T::NAN);
    }
}

fn factor_batch<T: CholFloat>(a: &[T], out: &mut [T], batch: usize, n: usize) {
    let size = n * n;
    assert!(a.len() == batch * size && out.len() == batch * size);
    out.copy_from_slice(a);
    if size == 0 {
        return;
    }
    let threads = rayon::current_num_threads() > 1;
    if batch == 1 {
        let par = if n >= PAR_DIM && threads {
            Par::rayon(0)
        } else {
            Par::Seq
        };
        factor_one(out, n, par, &mut Scratch::None);
        return;
    }
    if !threads || batch.saturating_mul(size * n) < PAR_BATCH_WORK {
        let mut mem = Scratch::None;
        for x in out.chunks_mut(size) {
            factor_one(x, n, Par::Seq, &mut mem);
        }
        return;
    }
    // One scratch per rayon job, not per matrix.
    out.par_chunks_mut(size)
        .for_each_init(|| Scratch::None, |mem, x| factor_one(x, n, Par::Seq, mem));
}

/// The Cholesky factors of a batch of row-major `n × n` matrices `a`, one
/// after another, into `out` (same layout); NaN where one is not positive
/// definite.
pub fn cholesky_f32(a: &[f32], out: &mut [f32], batch: usize, n: usize) {
    factor_batch(a, out, batch, n)
}

/// [`cholesky_f32`] in double precision.
pub fn cholesky_f64(a: &[f64], out: &mut [f64], batch: usize, n: usize) {
    factor_batch(a, out, batch, n)
}

/// The faer path alone, whatever the size: the reference the direct kernel
/// is tested against (`tests/linalg_small_kernels.rs`).
#[doc(hidden)]
pub fn cholesky_faer_f64(a: &[f64], out: &mut [f64], batch: usize, n: usize) {
    out.copy_from_slice(a);
    for x in out.chunks_mut((n * n).max(1)).take(batch) {
        if !faer_one(x, n, Par::Seq, &mut scratch::<f64>(n, Par::Seq)) {
            x.fill(f64::NAN);
        }
    }
}

/// [`cholesky_faer_f64`] in single precision.
#[doc(hidden)]
pub fn cholesky_faer_f32(a: &[f32], out: &mut [f32], batch: usize, n: usize) {
    out.copy_from_slice(a);
    for x in out.chunks_mut((n * n).max(1)).take(batch) {
        if !faer_one(x, n, Par::Seq, &mut scratch::<f32>(n, Par::Seq)) {
            x.fill(f32::NAN);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_and_fails_with_nan() {
        // [[4, 2], [2, 5]] = L Lᵀ with L = [[2, 0], [1, 2]]; the upper
        // triangle of the input is never read.
        let a = [4.0f64, 99.0, 2.0, 5.0, 1.0, 2.0, 2.0, 1.0];
        let mut l = [0.0; 8];
        cholesky_f64(&a, &mut l, 2, 2);
        assert_eq!(l[..4], [2.0, 0.0, 1.0, 2.0]);
        assert!(l[4..].iter().all(|v| v.is_nan()));
    }
}
