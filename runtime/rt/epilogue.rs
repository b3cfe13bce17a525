//! A matrix product with elementwise work fused into its output write (the
//! compiler's matmul epilogue: bias, activation, residual add, scale).

pub use crate::gemm::{Epilogue, Tile};

/// The element types with a gemm taking an epilogue: `f32` and `f64`.
pub trait GemmFloat: crate::element::Element {
    /// `c = a·b`, then `epilogue` over every block of `c` (see
    /// [`crate::gemm::sgemm_into`]).
    #[allow(clippy::too_many_arguments)]
    fn gemm_into(
        m: usize,
        k: usize,
        n: usize,
        a: &[Self],
        ars: usize,
        acs: usize,
        b: &[Self],
        brs: usize,
        bcs: usize,
        c: &mut [Self],
        epilogue: Epilogue<'_, Self>,
    );
}

impl GemmFloat for f32 {
    fn gemm_into(
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
        epilogue: Epilogue<'_, f32>,
    ) {
        crate::gemm::sgemm_into(m, k, n, a, ars, acs, b, brs, bcs, c, Some(epilogue))
    }
}

impl GemmFloat for f64 {
    fn gemm_into(
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
        epilogue: Epilogue<'_, f64>,
    ) {
        crate::gemm::dgemm_into(m, k, n, a, ars, acs, b, brs, bcs, c, Some(epilogue))
    }
}

/// `a (m×k) · b (k×n)` with the operands' (row, column) strides, as a
/// row-major `m×n` buffer, with `epilogue` applied to every element once
/// its sum is done: what `#[jax::jit]` emits for a matrix product whose
/// only reader is cheap elementwise work of its shape.
///
/// ```
/// // relu(a·b) for a = [[1, -2]], b = [[1, 0], [1, 1]].
/// let c = jax::__rt::gemm_epilogue::<f32>(1, 2, 2, &[1.0, -2.0], 2, 1, &[1.0, 0.0, 1.0, 1.0], 2, 1,
///     &|mut t| for i in 0..t.rows() { for x in t.row_mut(i) { *x = x.max(0.0) } });
/// assert_eq!(c, [0.0, 0.0]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn gemm_epilogue<T: GemmFloat>(
    m: usize,
    k: usize,
    n: usize,
    a: &[T],
    ars: usize,
    acs: usize,
    b: &[T],
    brs: usize,
    bcs: usize,
    epilogue: &(dyn Fn(Tile<'_, T>) + Sync),
) -> Vec<T> {
    let mut c: Vec<T> = super::buffer(m * n);
    T::gemm_into(m, k, n, a, ars, acs, b, brs, bcs, &mut c, epilogue);
    c
}
