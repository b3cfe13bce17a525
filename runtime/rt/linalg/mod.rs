//! The kernels of the linear-algebra primitives over faer: non-generic entry
//! points (one per element type) that jitted code and the eager
//! `jnp::linalg`/`scipy::linalg` functions both call, each over a batch of
//! row-major matrices laid out one after another.
pub mod qr;
pub use qr::*;
pub mod triangular;
pub use triangular::*;
pub mod lu;
pub use lu::*;
pub mod eigh;
pub use eigh::*;
pub mod cholesky;
pub use cholesky::*;
pub mod complex_kernels;
pub use complex_kernels::*;

/// `src` (`rows`×`cols`, row-major) transposed into `dst` (`cols`×`rows`,
/// row-major): the layout change between our row-major matrices and
/// faer's column-major ones (a row-major `A` is a column-major `Aᵀ`). By
/// 8×8 tiles, each read as 8 row pieces and written as 8: a plain loop
/// strides one side by a whole row, and on power-of-two sizes its lines
/// fall into one cache set (a 1024×1024 `f32` transpose: 4.6 ms plainly,
/// 1.4 ms by tiles, Intel Xeon).
pub(crate) fn transpose<T: Copy + Default>(src: &[T], rows: usize, cols: usize, dst: &mut [T]) {
    const T8: usize = 8;
    assert!(src.len() >= rows * cols && dst.len() >= rows * cols);
    let (whole_rows, whole_cols) = (rows / T8 * T8, cols / T8 * T8);
    for i0 in (0..whole_rows).step_by(T8) {
        for j0 in (0..whole_cols).step_by(T8) {
            let mut tile = [[T::default(); T8]; T8];
            for a in 0..T8 {
                let row = &src[(i0 + a) * cols + j0..][..T8];
                for (b, &x) in row.iter().enumerate() {
                    tile[b][a] = x;
                }
            }
            for (b, t) in tile.iter().enumerate() {
                dst[(j0 + b) * rows + i0..][..T8].copy_from_slice(t);
            }
        }
    }
    // The ragged edges: the last columns of the whole rows, then the last rows.
    for i in 0..rows {
        let from = if i < whole_rows { whole_cols } else { 0 };
        for j in from..cols {
            dst[j * rows + i] = src[i * cols + j];
        }
    }
}

#[cfg(test)]
mod tests {
    /// Whole tiles, ragged edges on either side, and the degenerate shapes.
    #[test]
    fn transpose_moves_every_element() {
        for (rows, cols) in [
            (16, 16),
            (19, 13),
            (8, 3),
            (3, 8),
            (1, 11),
            (0, 5),
            (33, 64),
        ] {
            let src: Vec<u32> = (0..(rows * cols) as u32).collect();
            let mut dst = vec![u32::MAX; rows * cols];
            super::transpose(&src, rows, cols, &mut dst);
            for i in 0..rows {
                for j in 0..cols {
                    assert_eq!(
                        dst[j * rows + i],
                        src[i * cols + j],
                        "{rows}x{cols} at {i},{j}"
                    );
                }
            }
        }
    }
}
