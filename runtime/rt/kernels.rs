//! Kernel calls of generated code, on row-major data: adapters over the
//! one implementation each operation has in `lax`/`jnp`.

use crate::__rt::identity::Extremes;
use crate::element::{Element, Value};
use crate::ops::Arith;

/// `lax.dot_general` (see [`crate::lax::dot_general`]).
#[allow(clippy::too_many_arguments)]
pub fn dot_general<T: Element>(
    lhs: &[T],
    lshape: &[usize],
    rhs: &[T],
    rshape: &[usize],
    lc: &[usize],
    rc: &[usize],
    lb: &[usize],
    rb: &[usize],
) -> Vec<T> {
    crate::lax::dot_general_raw(lhs, lshape, rhs, rshape, ((lc, rc), (lb, rb)))
}

/// `lax.conv_general_dilated` with explicit padding and the layouts as
/// permutations into canonical order (see [`crate::lax::conv_general_dilated`]),
/// as a row-major result.
#[allow(clippy::too_many_arguments)]
pub fn conv_general_dilated<T: Element>(
    lhs: &[T],
    lshape: &[usize],
    rhs: &[T],
    rshape: &[usize],
    window_strides: &[usize],
    padding: &[(i64, i64)],
    lhs_dilation: &[usize],
    rhs_dilation: &[usize],
    perms: [&[usize]; 3],
    feature_group_count: usize,
    batch_group_count: usize,
) -> Vec<T> {
    let spec = conv_spec(
        lshape,
        rshape,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        perms,
        feature_group_count,
        batch_group_count,
    );
    crate::lax::conv_raw(lhs, rhs, &spec)
}

/// [`conv_general_dilated`] with elementwise work fused into its output
/// write (the compiler's conv epilogue: bias, activation, residual): the
/// result seen as a `[positions, features]` matrix, `epilogue` is called
/// once per element, on blocks while they are in cache.
#[allow(clippy::too_many_arguments)]
pub fn conv_epilogue<T: Element>(
    lhs: &[T],
    lshape: &[usize],
    rhs: &[T],
    rshape: &[usize],
    window_strides: &[usize],
    padding: &[(i64, i64)],
    lhs_dilation: &[usize],
    rhs_dilation: &[usize],
    perms: [&[usize]; 3],
    feature_group_count: usize,
    batch_group_count: usize,
    epilogue: crate::gemm::Epilogue<'_, T>,
) -> Vec<T> {
    let spec = conv_spec(
        lshape,
        rshape,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        perms,
        feature_group_count,
        batch_group_count,
    );
    crate::lax::conv_raw_with(lhs, rhs, &spec, Some(epilogue))
}

/// A convolution's spec, which the compiler checked.
#[allow(clippy::too_many_arguments)]
fn conv_spec(
    lshape: &[usize],
    rshape: &[usize],
    window_strides: &[usize],
    padding: &[(i64, i64)],
    lhs_dilation: &[usize],
    rhs_dilation: &[usize],
    [lp, rp, op]: [&[usize]; 3],
    feature_group_count: usize,
    batch_group_count: usize,
) -> crate::lax::ConvSpec {
    crate::lax::ConvSpec::with_perms(
        lshape,
        rshape,
        window_strides,
        &crate::lax::Padding::Explicit(padding.to_vec()),
        Some(lhs_dilation),
        Some(rhs_dilation),
        [lp.to_vec(), rp.to_vec(), op.to_vec()],
        feature_group_count,
        batch_group_count,
    )
    .unwrap_or_else(|e| panic!("internal error: a convolution the compiler checked: {e}"))
}

/// The monoid of a windowed reduction (`reduce_window_sum`, `_max`, `_min`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowFold {
    Sum,
    Max,
    Min,
}

/// A windowed reduction's parameters, which the compiler checked.
fn window_spec(
    shape: &[usize],
    window: &[usize],
    strides: &[usize],
    padding: &[(i64, i64)],
    base_dilation: &[usize],
    window_dilation: &[usize],
) -> crate::lax::WindowSpec {
    crate::lax::WindowSpec::new(
        shape,
        window,
        Some(strides),
        &crate::lax::Padding::Explicit(padding.to_vec()),
        Some(base_dilation),
        Some(window_dilation),
    )
    .unwrap_or_else(|e| panic!("internal error: a window the compiler checked: {e}"))
}

/// `reduce_window_sum`, `reduce_window_max`, `reduce_window_min`: each
/// window folded from the monoid's identity, padding and dilation holes
/// skipped (see [`crate::lax::reduce_window`]).
#[allow(clippy::too_many_arguments)]
pub fn reduce_window<T: Arith + Extremes>(
    x: &[T],
    shape: &[usize],
    window: &[usize],
    strides: &[usize],
    padding: &[(i64, i64)],
    base_dilation: &[usize],
    window_dilation: &[usize],
    fold: WindowFold,
) -> Vec<T> {
    let spec = window_spec(
        shape,
        window,
        strides,
        padding,
        base_dilation,
        window_dilation,
    );
    match fold {
        WindowFold::Sum => crate::lax::reduce_window_par(x, &spec, T::ZERO, T::add),
        WindowFold::Max => crate::lax::reduce_window_par(x, &spec, T::LOWEST, T::max),
        WindowFold::Min => crate::lax::reduce_window_par(x, &spec, T::HIGHEST, T::min),
    }
}

/// `select_and_gather_add` (max pooling's tangent): per window of `x`,
/// the element of `t` at `x`'s first largest (`largest`, JAX's `ge`) or
/// smallest (`le`) element.
#[allow(clippy::too_many_arguments)]
pub fn select_and_gather_add<T: Arith>(
    t: &[T],
    x: &[T],
    shape: &[usize],
    window: &[usize],
    strides: &[usize],
    padding: &[(i64, i64)],
    base_dilation: &[usize],
    window_dilation: &[usize],
    largest: bool,
) -> Vec<T> {
    let spec = window_spec(
        shape,
        window,
        strides,
        padding,
        base_dilation,
        window_dilation,
    );
    crate::lax::select_and_gather_par(t, x, &spec, largest)
}

/// `select_and_scatter_add` (max pooling's gradient): each element of
/// `source` added where its window of `x` has its selected element.
pub fn select_and_scatter_add<T: Arith>(
    source: &[T],
    x: &[T],
    shape: &[usize],
    window: &[usize],
    strides: &[usize],
    padding: &[(i64, i64)],
    largest: bool,
) -> Vec<T> {
    let ones = vec![1; shape.len()];
    let spec = window_spec(shape, window, strides, padding, &ones, &ones);
    crate::lax::select_and_scatter_add_par(source, x, &spec, largest, T::add)
}

/// `a (m×k) · b (k×n)` with the operands' (row, column) strides, as a
/// row-major `m×n` buffer: a `dot_general` of matrices or vectors.
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Element>(
    m: usize,
    k: usize,
    n: usize,
    a: &[T],
    ars: usize,
    acs: usize,
    b: &[T],
    brs: usize,
    bcs: usize,
) -> Vec<T> {
    use crate::lax::Mat;
    let a = Mat {
        data: a,
        rs: ars,
        cs: acs,
    };
    let b = Mat {
        data: b,
        rs: brs,
        cs: bcs,
    };
    crate::lax::gemm(m, k, n, a, b)
}

/// A row-major `rows × cols` matrix transposed (row-major `cols × rows`),
/// starting on a cache line: a loop body's `W v` reads it every step.
pub fn transposed<T: Element>(x: &[T], rows: usize, cols: usize) -> LineAligned<T> {
    let mut out = LineAligned::zeroed(rows * cols);
    for (i, row) in x[..rows * cols].chunks_exact(cols.max(1)).enumerate() {
        for (j, &v) in row.iter().enumerate() {
            out[j * rows + i] = v;
        }
    }
    out
}

/// A copy of `x` starting on a cache line: a loop body's `Wᵀ v` (the
/// matrix contracted along its rows) reads it every step.
pub fn line_aligned<T: Element>(x: &[T]) -> LineAligned<T> {
    let mut out = LineAligned::zeroed(x.len());
    out.copy_from_slice(x);
    out
}

/// `len` values whose first sits on a 64-byte boundary (one cache line),
/// so AVX-512 loads of it never straddle two lines: a `Vec` is only as
/// aligned as the allocator makes it (16 bytes with glibc), and a loop
/// reading data from L1 a vector at a time then runs at half speed (a
/// 64 × 64 matrix-vector product: 100 ns misaligned, 49 ns aligned, AMD
/// Zen 5). The `Vec` holds one line more, and the slice starts where the
/// line does.
///
/// ```
/// let a = jax::__rt::LineAligned::<f32>::zeroed(100);
/// assert_eq!(a.len(), 100);
/// assert_eq!(a.as_ptr() as usize % 64, 0);
/// ```
pub struct LineAligned<T> {
    buf: Vec<T>,
    start: usize,
    len: usize,
}

impl<T: Element> LineAligned<T> {
    /// `len` zeros.
    pub fn zeroed(len: usize) -> Self {
        let size = std::mem::size_of::<T>().max(1);
        let extra = 64usize.div_ceil(size);
        let buf = vec![T::ZERO; len + extra];
        let skew = buf.as_ptr() as usize % 64;
        // Elements that fit a line evenly reach its start; others keep the
        // allocator's alignment.
        let start = if skew.is_multiple_of(size) {
            ((64 - skew) % 64) / size
        } else {
            0
        };
        LineAligned { buf, start, len }
    }
}

impl<T> std::ops::Deref for LineAligned<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.buf[self.start..self.start + self.len]
    }
}

impl<T> std::ops::DerefMut for LineAligned<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

/// Joins arrays along `axis` (see [`crate::jnp::concatenate`]).
pub fn concatenate<T: Element>(parts: &[(&[T], &[usize])], axis: usize) -> Vec<T> {
    let parts: Vec<(&[usize], &[T])> = parts.iter().map(|(d, s)| (*s, *d)).collect();
    crate::__rt::layout::concatenate_raw(&parts, axis)
}

fn arg<T: Element + PartialOrd, I: Element>(
    op: &str,
    x: &[T],
    shape: &[usize],
    axis: usize,
    max: bool,
) -> Vec<I> {
    crate::lax::reduce_lanes(x, shape, &[axis], |lane| {
        I::from_value(Value::Int(crate::lax::arg_lane(op, lane, max) as i128))
    })
}

/// The index of the largest element along `axis` (NaN counts as largest; first of equals).
pub fn argmax<T: Element + PartialOrd, I: Element>(
    x: &[T],
    shape: &[usize],
    axis: usize,
) -> Vec<I> {
    arg("argmax", x, shape, axis, true)
}

/// The index of the smallest element along `axis` (NaN counts as smallest; first of equals).
pub fn argmin<T: Element + PartialOrd, I: Element>(
    x: &[T],
    shape: &[usize],
    axis: usize,
) -> Vec<I> {
    arg("argmin", x, shape, axis, false)
}
