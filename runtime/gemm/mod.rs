//! Matrix products into a caller's buffer, with an epilogue run on each
//! finished block of the result.
//!
//! TEMPORARY (fusion branch): a simple, correct stand-in with the gemm
//! contract's API: the product through [`crate::lax::gemm`], then the
//! epilogue over blocks of rows (in parallel when the result is large). The
//! packed-kernel version replaces this file.

use std::marker::PhantomData;

use rayon::prelude::*;

/// One finished block of C handed to an epilogue: rows `r0..r0 + rows` and
/// columns `c0..c0 + cols` of the row-major m×n output. Blocks given to
/// different threads never share an element.
pub struct Tile<'a, T> {
    ptr: *mut T,
    ldc: usize,
    r0: usize,
    c0: usize,
    rows: usize,
    cols: usize,
    _c: PhantomData<&'a mut T>,
}

// SAFETY: a tile is the only handle on its elements (blocks are disjoint).
unsafe impl<T: Send> Send for Tile<'_, T> {}

impl<'a, T> Tile<'a, T> {
    /// The block `rows × cols` at (`r0`, `c0`) of the row-major matrix whose
    /// rows are `ldc` apart and whose row `r0` starts at `block[0]`'s row.
    fn of(block: &'a mut [T], ldc: usize, r0: usize, c0: usize, rows: usize, cols: usize) -> Self {
        assert!(rows == 0 || c0 + cols <= ldc && (rows - 1) * ldc + c0 + cols <= block.len());
        Tile {
            ptr: block.as_mut_ptr(),
            ldc,
            r0,
            c0,
            rows,
            cols,
            _c: PhantomData,
        }
    }
    /// The block's first row in C.
    pub fn r0(&self) -> usize {
        self.r0
    }
    /// The block's first column in C.
    pub fn c0(&self) -> usize {
        self.c0
    }
    /// How many rows the block has.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// How many columns the block has.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Row `i` (`0..rows`) of the block: `cols` contiguous elements of C's
    /// row `r0 + i`.
    pub fn row_mut(&mut self, i: usize) -> &mut [T] {
        assert!(i < self.rows, "tile row {i} of {}", self.rows);
        // SAFETY: `of` checked the block lies inside the borrowed slice; the
        // returned row borrows the tile mutably, so rows never alias.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i * self.ldc + self.c0), self.cols) }
    }
}

/// The epilogue: called exactly once per element of C, after that
/// element's whole sum over k is written, while the block is still in cache.
pub type Epilogue<'e, T> = &'e (dyn Fn(Tile<'_, T>) + Sync);

/// Elements of C under which the epilogue runs on one thread.
const PARALLEL_EPILOGUE: usize = 1 << 15;

fn gemm_into<T: crate::element::Element + Send>(
    m: usize,
    k: usize,
    n: usize,
    a: crate::lax::Mat<'_, T>,
    b: crate::lax::Mat<'_, T>,
    c: &mut [T],
    epilogue: Option<Epilogue<'_, T>>,
) {
    assert_eq!(c.len(), m * n, "internal error: gemm output length");
    let r = crate::lax::gemm(m, k, n, a, b);
    c.copy_from_slice(&r);
    crate::__rt::recycle(r);
    let (Some(f), true) = (epilogue, m * n > 0) else {
        return;
    };
    let threads = rayon::current_num_threads();
    let rows = if m * n >= PARALLEL_EPILOGUE && threads > 1 {
        m.div_ceil(threads * 4)
    } else {
        m
    };
    c.par_chunks_mut(rows * n)
        .enumerate()
        .for_each(|(blk, block)| {
            let mr = block.len() / n;
            f(Tile::of(block, n, blk * rows, 0, mr, n));
        });
}

/// C = A·B (row-major m×n, written into `c`, len m*n, stale contents never
/// read), then `epilogue` over every block. A and B given by (row, column)
/// strides.
#[allow(clippy::too_many_arguments)]
pub fn sgemm_into(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    ars: usize,
    acs: usize,
    b: &[f32],
    brs: usize,
    bcs: usize,
    c: &mut [f32],
    epilogue: Option<Epilogue<'_, f32>>,
) {
    let (a, b) = (
        crate::lax::Mat {
            data: a,
            rs: ars,
            cs: acs,
        },
        crate::lax::Mat {
            data: b,
            rs: brs,
            cs: bcs,
        },
    );
    gemm_into(m, k, n, a, b, c, epilogue)
}

/// [`sgemm_into`] in `f64`.
#[allow(clippy::too_many_arguments)]
pub fn dgemm_into(
    m: usize,
    k: usize,
    n: usize,
    a: &[f64],
    ars: usize,
    acs: usize,
    b: &[f64],
    brs: usize,
    bcs: usize,
    c: &mut [f64],
    epilogue: Option<Epilogue<'_, f64>>,
) {
    let (a, b) = (
        crate::lax::Mat {
            data: a,
            rs: ars,
            cs: acs,
        },
        crate::lax::Mat {
            data: b,
            rs: brs,
            cs: bcs,
        },
    );
    gemm_into(m, k, n, a, b, c, epilogue)
}
