//! `triangular_solve`: `op(A) X = B` (left side) or `X op(A) = B` (right
//! side) for a batch of triangular `A`, over faer's triangular solves.
//! Singular `A` (a zero on the diagonal) gives inf/nan, as LAPACK's `trsm`.

use faer::linalg::triangular_solve as tri;
use faer::{MatMut, MatRef, Par};
use rayon::prelude::*;

/// The options of one solve (JAX's `triangular_solve` parameters;
/// `conjugate_a` has no effect on real matrices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriangularSolve {
    /// `op(A) X = B` when true, `X op(A) = B` when false.
    pub left_side: bool,
    /// Which triangle of `A` is read (the other is ignored).
    pub lower: bool,
    /// `op(A) = Aᵀ` when true.
    pub transpose_a: bool,
    /// The diagonal of `A` is taken as ones and never read.
    pub unit_diagonal: bool,
}

/// One matrix this size or larger is solved on rayon's threads by faer
/// itself; below it the threads' start costs more than they save.
const PAR_DIM: usize = 256;

/// Solves in place: `x` holds `B` on entry, `X` on return.
fn solve_one<T: faer::traits::RealField>(
    a: &[T],
    x: &mut [T],
    m: usize,
    rows: usize,
    cols: usize,
    o: TriangularSolve,
    par: Par,
) {
    let a = MatRef::from_row_major_slice(a, m, m);
    let x = MatMut::from_row_major_slice_mut(x, rows, cols);
    // Left: op(A) X = B. Right: X op(A) = B is op(A)ᵀ Xᵀ = Bᵀ.
    let (a, x, transposed) = if o.left_side {
        (a, x, o.transpose_a)
    } else {
        (a, x.transpose_mut(), !o.transpose_a)
    };
    let a = if transposed { a.transpose() } else { a };
    match (o.lower != transposed, o.unit_diagonal) {
        (true, false) => tri::solve_lower_triangular_in_place(a, x, par),
        (true, true) => tri::solve_unit_lower_triangular_in_place(a, x, par),
        (false, false) => tri::solve_upper_triangular_in_place(a, x, par),
        (false, true) => tri::solve_unit_upper_triangular_in_place(a, x, par),
    }
}

#[allow(clippy::too_many_arguments)]
fn solve_batch<T: faer::traits::RealField + Copy + Send + Sync>(
    a: &[T],
    b: &[T],
    out: &mut [T],
    batch: usize,
    m: usize,
    rows: usize,
    cols: usize,
    o: TriangularSolve,
) {
    let (na, nb) = (m * m, rows * cols);
    assert!(a.len() == batch * na && b.len() == batch * nb && out.len() == batch * nb);
    out.copy_from_slice(b);
    if nb == 0 {
        return;
    }
    if batch == 1 || na == 0 {
        let par = if m >= PAR_DIM && rayon::current_num_threads() > 1 {
            Par::rayon(0)
        } else {
            Par::Seq
        };
        for (a, x) in a.chunks(na.max(1)).zip(out.chunks_mut(nb)) {
            solve_one(a, x, m, rows, cols, o, par);
        }
        return;
    }
    a.par_chunks(na)
        .zip(out.par_chunks_mut(nb))
        .for_each(|(a, x)| solve_one(a, x, m, rows, cols, o, Par::Seq));
}

macro_rules! triangular_solve_entry {
    ($name:ident, $t:ty) => {
        /// `triangular_solve` of a batch of row-major `m × m` matrices `a`
        /// and right-hand sides `b` (`rows × cols` each: `m × k` on the left
        /// side, `k × m` on the right), one after another; `out` as `b`.
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            a: &[$t],
            b: &[$t],
            out: &mut [$t],
            batch: usize,
            m: usize,
            rows: usize,
            cols: usize,
            options: TriangularSolve,
        ) {
            solve_batch(a, b, out, batch, m, rows, cols, options)
        }
    };
}

triangular_solve_entry!(triangular_solve_f32, f32);
triangular_solve_entry!(triangular_solve_f64, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_left_and_right() {
        // A = [[2, 0], [1, 4]]
        let a = [2.0f64, 0.0, 1.0, 4.0];
        let b = [2.0f64, 9.0];
        let mut x = [0.0; 2];
        let o = TriangularSolve {
            left_side: true,
            lower: true,
            transpose_a: false,
            unit_diagonal: false,
        };
        triangular_solve_f64(&a, &b, &mut x, 1, 2, 2, 1, o);
        assert_eq!(x, [1.0, 2.0]);
        // x A = b: [x0, x1] [[2,0],[1,4]] = [2 x0 + x1, 4 x1]
        let b = [4.0f64, 8.0];
        let o = TriangularSolve {
            left_side: false,
            ..o
        };
        triangular_solve_f64(&a, &b, &mut x, 1, 2, 1, 2, o);
        assert_eq!(x, [1.0, 2.0]);
        // Aᵀ x = b: [[2,1],[0,4]] x = [4, 8]
        let o = TriangularSolve {
            left_side: true,
            transpose_a: true,
            ..o
        };
        triangular_solve_f64(&a, &b, &mut x, 1, 2, 2, 1, o);
        assert_eq!(x, [1.0, 2.0]);
    }
}
