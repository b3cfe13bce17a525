//! Kernel calls of generated code, on row-major data: adapters over the
//! one implementation each operation has in `lax`/`jnp`.

use crate::element::{Element, Value};

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
    [lp, rp, op]: [&[usize]; 3],
    feature_group_count: usize,
    batch_group_count: usize,
) -> Vec<T> {
    let spec = crate::lax::ConvSpec::with_perms(
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
    .unwrap_or_else(|e| panic!("internal error: a convolution the compiler checked: {e}"));
    crate::lax::conv_raw(lhs, rhs, &spec)
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

/// A row-major `rows × cols` matrix transposed (row-major `cols × rows`).
pub fn transposed<T: Element>(x: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut out = crate::__rt::buffer(rows * cols);
    for (i, row) in x[..rows * cols].chunks_exact(cols.max(1)).enumerate() {
        for (j, &v) in row.iter().enumerate() {
            out[j * rows + i] = v;
        }
    }
    out
}

/// Joins arrays along `axis` (see [`crate::jnp::concatenate`]).
pub fn concatenate<T: Element>(parts: &[(&[T], &[usize])], axis: usize) -> Vec<T> {
    let parts: Vec<(&[usize], &[T])> = parts.iter().map(|(d, s)| (*s, *d)).collect();
    crate::jnp::concatenate_raw(&parts, axis)
}

fn arg<T: Element + PartialOrd, I: Element>(
    op: &str,
    x: &[T],
    shape: &[usize],
    axis: usize,
    max: bool,
) -> Vec<I> {
    crate::lax::reduce_lanes(x, shape, &[axis], |lane| {
        I::from_value(Value::Int(
            crate::lax::arg_lane(op, lane, max, false) as i128
        ))
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
