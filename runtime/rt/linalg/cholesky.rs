//! `cholesky`: the lower Cholesky factor `L` (`A = L Lᵀ`) of a batch of
//! symmetric positive-definite matrices, over faer's blocked `LLᵀ`. Only
//! the lower triangle of each `A` is read (LAPACK's `potrf` with
//! `uplo = L`, as JAX's primitive); the result's upper triangle is zero. A
//! matrix that is not positive definite gives a result full of NaN, as JAX
//! on CPU gives, never a panic.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::{MatMut, Par};
use rayon::prelude::*;

/// One matrix this size or larger is factored on rayon's threads by faer
/// itself; smaller ones are not worth the threads' start.
const PAR_DIM: usize = 192;

/// Factors one row-major `n × n` matrix in place.
fn factor_one<T: faer::traits::RealField + Copy + Default>(
    x: &mut [T],
    n: usize,
    nan: T,
    par: Par,
) {
    let req = cholesky_in_place_scratch::<T>(n, par, Default::default());
    let mut mem = MemBuffer::new(req);
    let stack = MemStack::new(&mut mem);
    let a = MatMut::from_row_major_slice_mut(x, n, n);
    match cholesky_in_place(a, Default::default(), par, stack, Default::default()) {
        Ok(_) => {
            for i in 0..n {
                for v in &mut x[i * n + i + 1..(i + 1) * n] {
                    *v = T::default();
                }
            }
        }
        Err(_) => x.fill(nan),
    }
}

fn factor_batch<T: faer::traits::RealField + Copy + Default + Send + Sync>(
    a: &[T],
    out: &mut [T],
    batch: usize,
    n: usize,
    nan: T,
) {
    let size = n * n;
    assert!(a.len() == batch * size && out.len() == batch * size);
    out.copy_from_slice(a);
    if size == 0 {
        return;
    }
    if batch == 1 {
        let par = if n >= PAR_DIM && rayon::current_num_threads() > 1 {
            Par::rayon(0)
        } else {
            Par::Seq
        };
        factor_one(out, n, nan, par);
        return;
    }
    out.par_chunks_mut(size)
        .for_each(|x| factor_one(x, n, nan, Par::Seq));
}

/// The Cholesky factors of a batch of row-major `n × n` matrices `a`, one
/// after another, into `out` (same layout); NaN where one is not positive
/// definite.
pub fn cholesky_f32(a: &[f32], out: &mut [f32], batch: usize, n: usize) {
    factor_batch(a, out, batch, n, f32::NAN)
}

/// [`cholesky_f32`] in double precision.
pub fn cholesky_f64(a: &[f64], out: &mut [f64], batch: usize, n: usize) {
    factor_batch(a, out, batch, n, f64::NAN)
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
