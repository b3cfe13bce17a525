//! Convolutions, as `jax.lax.conv_general_dilated` and its wrappers `conv`
//! and `conv_transpose`: any number of spatial axes, layouts given by JAX's
//! dimension-number strings, strides, padding, dilation of the input
//! (transposed convolution) and of the kernel (atrous convolution), feature
//! groups (grouped and depthwise convolutions) and batch groups (the kernel
//! gradient of a grouped convolution).
//!
//! The kernel ([`conv_raw`]) works on the operands in their own layouts: per
//! group and per image it gathers the input windows into a matrix (one row
//! per output position, one column per kernel tap and input feature) and
//! multiplies it with the group's kernel through the crate's gemm.

use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::shape;

use super::dot::{gemm, same_slice, same_vec, Mat};
pub(crate) use jax_dtypes::conv::{
    conv_permutations, conv_transpose_layouts, conv_transpose_padding, dilate_dim, ConvSpec,
};
pub use jax_dtypes::conv::{ConvDimensionNumbers, Padding};

/// The convolution `spec` of row-major `lhs` and `rhs`, as a row-major
/// result of shape `spec.out_shape`.
pub(crate) fn conv_raw<T: Element>(lhs: &[T], rhs: &[T], spec: &ConvSpec) -> Vec<T> {
    // f32 and f64 run instances compiled in this crate (optimized however
    // the caller's crate is built); other dtypes the generic code.
    if let (Some(l), Some(r)) = (same_slice::<T, f32>(lhs), same_slice::<T, f32>(rhs)) {
        return same_vec(conv_f32(l, r, spec));
    }
    if let (Some(l), Some(r)) = (same_slice::<T, f64>(lhs), same_slice::<T, f64>(rhs)) {
        return same_vec(conv_f64(l, r, spec));
    }
    conv_generic(lhs, rhs, spec)
}

#[inline(never)]
fn conv_f32(lhs: &[f32], rhs: &[f32], spec: &ConvSpec) -> Vec<f32> {
    conv_generic(lhs, rhs, spec)
}

#[inline(never)]
fn conv_f64(lhs: &[f64], rhs: &[f64], spec: &ConvSpec) -> Vec<f64> {
    conv_generic(lhs, rhs, spec)
}

fn conv_generic<T: Element>(lhs: &[T], rhs: &[T], spec: &ConvSpec) -> Vec<T> {
    let nsp = spec.lhs_shape.len() - 2;
    let canon = |shape: &[usize], perm: &[usize]| -> (Vec<usize>, Vec<usize>) {
        let st = shape::strides(shape);
        (
            perm.iter().map(|&a| shape[a]).collect(),
            perm.iter().map(|&a| st[a]).collect(),
        )
    };
    let (ls, lst) = canon(&spec.lhs_shape, &spec.lhs_perm);
    let (rs, rst) = canon(&spec.rhs_shape, &spec.rhs_perm);
    let (os, ost) = canon(&spec.out_shape, &spec.out_perm);
    assert_eq!(lhs.len(), ls.iter().product::<usize>(), "conv: lhs length");
    assert_eq!(rhs.len(), rs.iter().product::<usize>(), "conv: rhs length");
    let out_len: usize = os.iter().product();
    let mut out = vec![T::ZERO; out_len];
    if out_len == 0 {
        return out;
    }
    let (fgc, bgc) = (spec.feature_group_count, spec.batch_group_count);
    let groups = fgc * bgc;
    let og = rs[0] / groups; // output features per group
    let ig = rs[1]; // input features per group (feature groups) or all
    let taps: Vec<usize> = rs[2..].to_vec();
    let ntaps: usize = taps.iter().product();
    let cols = ntaps * ig;
    if cols == 0 {
        // No input features or no taps: every sum is empty.
        return out;
    }
    let positions: Vec<usize> = os[2..].to_vec();
    let npos: usize = positions.iter().product();
    let dilated: Vec<i64> = (0..nsp)
        .map(|d| dilate_dim(ls[2 + d], spec.lhs_dilation[d]) as i64)
        .collect();
    // Each spatial axis: for every (output position, tap) pair, the input
    // index it reads, or none (padding or a hole of the input dilation).
    let reads: Vec<Vec<Option<usize>>> = (0..nsp)
        .map(|d| {
            let mut r = Vec::with_capacity(positions[d] * taps[d]);
            for q in 0..positions[d] {
                for k in 0..taps[d] {
                    let x = (q * spec.window_strides[d] + k * spec.rhs_dilation[d]) as i64
                        - spec.padding[d].0;
                    let ld = spec.lhs_dilation[d] as i64;
                    r.push(if x < 0 || x >= dilated[d] || x % ld != 0 {
                        None
                    } else {
                        Some((x / ld) as usize)
                    });
                }
            }
            r
        })
        .collect();
    let mut kernel = vec![T::ZERO; cols * og];
    let nout = os[0];
    // Images per gemm call: enough rows to fill the kernel's row blocks,
    // few enough that the gathered windows stay in L2 (about 1 MiB).
    let per_chunk = ((1usize << 18) / (npos * cols).max(1)).clamp(1, nout.max(1));
    for g in 0..groups {
        // The group's kernel as a [(taps, i), o] matrix.
        for o in 0..og {
            for i in 0..ig {
                for (t, tap) in k_iter(&taps).enumerate() {
                    let mut at = (g * og + o) * rst[0] + i * rst[1];
                    for d in 0..nsp {
                        at += tap[d] * rst[2 + d];
                    }
                    kernel[(t * ig + i) * og + o] = rhs[at];
                }
            }
        }
        let c0 = if fgc > 1 { g * ig } else { 0 };
        let gather = Gather {
            lhs,
            lst: &lst,
            reads: &reads,
            taps: &taps,
            positions: &positions,
            ig,
        };
        // Each chunk of images: windows gathered (row = image and output
        // position, column = (tap, i)), one product with the kernel.
        use rayon::prelude::*;
        let product = |n0: usize| {
            let n1 = (n0 + per_chunk).min(nout);
            let mut patches = vec![T::ZERO; (n1 - n0) * npos * cols];
            for (n, rows) in (n0..n1).zip(patches.chunks_mut(npos * cols)) {
                let nb = if bgc > 1 { g * nout + n } else { n };
                gather.image(nb * lst[0] + c0 * lst[1], rows);
            }
            gemm(
                (n1 - n0) * npos,
                cols,
                og,
                Mat {
                    data: &patches,
                    rs: cols,
                    cs: 1,
                },
                Mat {
                    data: &kernel,
                    rs: og,
                    cs: 1,
                },
            )
        };
        // An `N, spatial.., O` output without groups is the products' rows
        // in order: each chunk's product is its slice of the output.
        let rank = nsp + 2;
        let channels_last: Vec<usize> = std::iter::once(0)
            .chain(std::iter::once(rank - 1))
            .chain(1..rank - 1)
            .collect();
        if groups == 1 && spec.out_perm == channels_last {
            out.par_chunks_mut(per_chunk * npos * og)
                .enumerate()
                .for_each(|(c, dst)| dst.copy_from_slice(&product(c * per_chunk)));
            continue;
        }
        let chunks: Vec<(usize, Vec<T>)> = (0..nout)
            .step_by(per_chunk)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|n0| (n0, product(n0)))
            .collect();
        let mut q = vec![0usize; nsp];
        for (n0, prod) in chunks {
            for (r, vals) in prod.chunks(og).enumerate() {
                let (n, p) = (n0 + r / npos, r % npos);
                if p == 0 {
                    q.iter_mut().for_each(|v| *v = 0);
                }
                let mut at = n * ost[0] + g * og * ost[1];
                for d in 0..nsp {
                    at += q[d] * ost[2 + d];
                }
                for (o, &v) in vals.iter().enumerate() {
                    out[at + o * ost[1]] = v;
                }
                step(&mut q, &positions);
            }
        }
    }
    out
}

/// The windows of one image, gathered into rows of a matrix.
struct Gather<'a, T> {
    lhs: &'a [T],
    /// The input's strides in canonical order (batch, feature, spatial..).
    lst: &'a [usize],
    /// Per spatial axis, per (output index, tap): the input index, or none.
    reads: &'a [Vec<Option<usize>>],
    taps: &'a [usize],
    positions: &'a [usize],
    ig: usize,
}

impl<T: Element> Gather<'_, T> {
    /// Fills `rows` (output positions × (taps, input features)) from the
    /// image whose first feature of the group starts at `base`. The taps of
    /// the last spatial axis are one block per row: where their valid reads
    /// are consecutive input elements and the features are contiguous
    /// (`NHWC` without groups), the block is one copy.
    fn image(&self, base: usize, rows: &mut [T]) {
        let nsp = self.taps.len();
        let last = nsp - 1;
        let (tl, ql) = (self.taps[last], self.positions[last]);
        let ntaps: usize = self.taps.iter().product();
        let (ig, cstride, lstride) = (self.ig, self.lst[1], self.lst[2 + last]);
        let runs = (cstride == 1 && lstride == ig).then(|| runs(&self.reads[last], ql, tl));
        let outer_taps = &self.taps[..last];
        let outer_pos = &self.positions[..last];
        let mut q = vec![0usize; last];
        let mut k = vec![0usize; last];
        for (r, row) in rows.chunks_mut(ntaps * ig).enumerate() {
            let q_last = r % ql;
            if q_last == 0 && r > 0 {
                step(&mut q, outer_pos);
            }
            k.iter_mut().for_each(|v| *v = 0);
            for block in row.chunks_mut(tl * ig) {
                let mut at = Some(base);
                for d in 0..last {
                    at = match (at, self.reads[d][q[d] * self.taps[d] + k[d]]) {
                        (Some(a), Some(x)) => Some(a + x * self.lst[2 + d]),
                        _ => None,
                    };
                }
                step(&mut k, outer_taps);
                let Some(at) = at else {
                    block.fill(T::ZERO);
                    continue;
                };
                if let Some(Some((k0, k1, x0))) = runs.as_ref().map(|r| r[q_last]) {
                    block[..k0 * ig].fill(T::ZERO);
                    let src = &self.lhs[at + x0 * lstride..at + x0 * lstride + (k1 - k0) * ig];
                    for (d, &v) in block[k0 * ig..k1 * ig].iter_mut().zip(src) {
                        *d = v;
                    }
                    block[k1 * ig..].fill(T::ZERO);
                    continue;
                }
                let reads = &self.reads[last][q_last * tl..(q_last + 1) * tl];
                for (tap, read) in block.chunks_mut(ig).zip(reads) {
                    match read {
                        Some(x) => {
                            let a = at + x * lstride;
                            for (i, v) in tap.iter_mut().enumerate() {
                                *v = self.lhs[a + i * cstride];
                            }
                        }
                        None => tap.fill(T::ZERO),
                    }
                }
            }
        }
    }
}

/// For each output index of an axis: the taps `k0..k1` that read input
/// elements `x0..x0 + (k1 - k0)` in order with all others padding, or
/// `None` when its reads are not one such run (dilations).
fn runs(
    reads: &[Option<usize>],
    positions: usize,
    taps: usize,
) -> Vec<Option<(usize, usize, usize)>> {
    (0..positions)
        .map(|q| {
            let r = &reads[q * taps..(q + 1) * taps];
            let k0 = r.iter().position(Option::is_some).unwrap_or(taps);
            let k1 = r.iter().rposition(Option::is_some).map_or(k0, |k| k + 1);
            let x0 = r.get(k0).copied().flatten().unwrap_or(0);
            let run = (k0..k1).all(|k| r[k] == Some(x0 + (k - k0)));
            run.then_some((k0, k1, x0))
        })
        .collect()
}

/// Advances a row-major multi-index over `dims` (wrapping to zeros).
pub(super) fn step(idx: &mut [usize], dims: &[usize]) {
    for d in (0..idx.len()).rev() {
        idx[d] += 1;
        if idx[d] < dims[d] {
            return;
        }
        idx[d] = 0;
    }
}

/// The row-major multi-indices of `dims`.
fn k_iter(dims: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let total: usize = dims.iter().product();
    let mut idx = vec![0; dims.len()];
    (0..total).map(move |_| {
        let cur = idx.clone();
        step(&mut idx, dims);
        cur
    })
}

/// Checks `spec`'s result against `Out` and runs it.
#[track_caller]
fn conv_eager<A, B, Out>(lhs: A, rhs: B, spec: Result<ConvSpec, String>) -> Out
where
    A: AsArray,
    B: AsArray,
    Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    B::Array: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
{
    let spec = spec.unwrap_or_else(|e| panic!("{e}"));
    let dtype = <<A::Array as ArrayType>::Elem as Element>::DTYPE;
    shape::check_result::<Out>("conv_general_dilated", dtype, &spec.out_shape);
    let out = conv_raw(lhs.as_array().data(), rhs.as_array().data(), &spec);
    Out::from_data(out)
}

/// General n-dimensional convolution (`jax.lax.conv_general_dilated`):
/// `lhs` the input, `rhs` the kernel, one stride per spatial axis, padding
/// as [`Padding`] (or JAX's strings `"SAME"`, `"VALID"`, `"SAME_LOWER"`, or
/// `(low, high)` pairs), the input's dilation (transposed convolution; needs
/// explicit padding) and the kernel's (atrous), the layouts
/// ([`ConvDimensionNumbers`]; `None` is `("NCHW", "OIHW", "NCHW")` for any
/// number of spatial axes), and the number of feature groups (the input's
/// features split in that many groups, each convolved with its share of the
/// kernel's output features: depthwise when it equals the input features).
///
/// ```
/// use jax::prelude::*;
/// // One 1×4 image, one 1×2 kernel [1, -1], NHWC / HWIO.
/// let x = Array::<f32, 1, 1, 4, 1>::from([[[[1.0], [4.0], [9.0], [16.0]]]]);
/// let w = Array::<f32, 1, 2, 1, 1>::from([[[[1.0]], [[-1.0]]]]);
/// let y: Array<f32, 1, 1, 3, 1> = lax::conv_general_dilated(
///     &x, &w, &[1, 1], "VALID", None, None, Some(("NHWC", "HWIO", "NHWC")), 1,
/// );
/// assert_eq!(y.to_vec(), [-3.0, -5.0, -7.0]);
/// ```
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn conv_general_dilated<A, B, Out>(
    lhs: A,
    rhs: B,
    window_strides: &[usize],
    padding: impl Into<Padding>,
    lhs_dilation: Option<&[usize]>,
    rhs_dilation: Option<&[usize]>,
    dimension_numbers: Option<ConvDimensionNumbers<'_>>,
    feature_group_count: usize,
) -> Out
where
    A: AsArray,
    B: AsArray,
    Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    B::Array: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
{
    let spec = ConvSpec::new(
        <A::Array as ArrayType>::SHAPE,
        <B::Array as ArrayType>::SHAPE,
        window_strides,
        &padding.into(),
        lhs_dilation,
        rhs_dilation,
        dimension_numbers,
        feature_group_count,
        1,
    );
    conv_eager(lhs, rhs, spec)
}

/// Convolution in the `NCHW` / `OIHW` layout (`jax.lax.conv`): strides and
/// padding only.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 1, 1, 3, 3>::ones();
/// let w = Array::<f32, 1, 1, 2, 2>::ones();
/// let y: Array<f32, 1, 1, 2, 2> = lax::conv(&x, &w, &[1, 1], "VALID");
/// assert_eq!(y.to_vec(), [4.0; 4]);
/// ```
#[track_caller]
pub fn conv<A, B, Out>(lhs: A, rhs: B, window_strides: &[usize], padding: impl Into<Padding>) -> Out
where
    A: AsArray,
    B: AsArray,
    Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    B::Array: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
{
    conv_general_dilated(lhs, rhs, window_strides, padding, None, None, None, 1)
}

/// The transposed convolution (`jax.lax.conv_transpose`): the input dilated
/// by `strides` and convolved with stride 1. `"SAME"` and `"VALID"` name the
/// forward convolution's padding; [`Padding::Explicit`] is the transposed
/// convolution's own. Layouts default to TensorFlow's (`NHWC`, `HWIO`) for
/// 1 to 3 spatial axes; `transpose_kernel` flips the kernel's spatial axes
/// and swaps its feature axes (Keras' `Conv2DTranspose`).
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 1, 2, 1>::from([[[1.0], [2.0]]]);
/// let w = Array::<f32, 2, 1, 1>::from([[[1.0]], [[10.0]]]);
/// let y: Array<f32, 1, 4, 1> = lax::conv_transpose(&x, &w, &[2], "SAME", None, None, false);
/// assert_eq!(y.to_vec(), [10.0, 1.0, 20.0, 2.0]);
/// ```
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose<A, B, Out>(
    lhs: A,
    rhs: B,
    strides: &[usize],
    padding: impl Into<Padding>,
    rhs_dilation: Option<&[usize]>,
    dimension_numbers: Option<ConvDimensionNumbers<'_>>,
    transpose_kernel: bool,
) -> Out
where
    A: AsArray,
    B: AsArray,
    Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    B::Array: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
{
    let lshape = <A::Array as ArrayType>::SHAPE;
    let rshape = <B::Array as ArrayType>::SHAPE;
    let dn = dimension_numbers
        .unwrap_or_else(|| conv_transpose_layouts(lshape.len()).unwrap_or_else(|e| panic!("{e}")));
    let [_, rp, _] = conv_permutations(lshape.len(), Some(dn)).unwrap_or_else(|e| panic!("{e}"));
    let nsp = lshape.len() - 2;
    let ones = vec![1; nsp];
    let rd = rhs_dilation.unwrap_or(&ones);
    let padding = padding.into();
    let pads = match &padding {
        Padding::Explicit(p) => p.clone(),
        Padding::SameLower => {
            panic!("conv_transpose: padding must be 'SAME', 'VALID' or explicit pairs")
        }
        p => (0..nsp)
            .map(|d| {
                let k = rshape[rp[2 + d]];
                let k = if k == 0 { 0 } else { (k - 1) * rd[d] + 1 };
                conv_transpose_padding(k, strides[d], p)
            })
            .collect(),
    };
    let kernel: Vec<_>;
    let mut rshape_used = rshape.to_vec();
    let rdata = rhs.as_array().data();
    let rhs_data: &[_] = if transpose_kernel {
        // Flip the spatial axes, then swap the O and I axes' sizes: the data
        // is read through the swapped shape.
        let total = rdata.len();
        let (oa, ia) = (rp[0], rp[1]);
        rshape_used.swap(oa, ia);
        let out_st = shape::strides(&rshape_used);
        let mut v = vec![<<A::Array as ArrayType>::Elem as Element>::ZERO; total];
        let mut idx = vec![0usize; rshape.len()];
        for &x in rdata.iter() {
            // idx is this element's index in the original layout.
            let mut to = 0;
            for a in 0..rshape.len() {
                let mut i = idx[a];
                if rp[2..].contains(&a) {
                    i = rshape[a] - 1 - i;
                }
                let target_axis = if a == oa {
                    ia
                } else if a == ia {
                    oa
                } else {
                    a
                };
                to += i * out_st[target_axis];
            }
            v[to] = x;
            step(&mut idx, rshape);
        }
        kernel = v;
        &kernel
    } else {
        rdata
    };
    let spec = ConvSpec::new(
        lshape,
        &rshape_used,
        &ones,
        &Padding::Explicit(pads),
        Some(strides),
        Some(rd),
        Some(dn),
        1,
        1,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let dtype = <<A::Array as ArrayType>::Elem as Element>::DTYPE;
    shape::check_result::<Out>("conv_transpose", dtype, &spec.out_shape);
    Out::from_data(conv_raw(lhs.as_array().data(), rhs_data, &spec))
}
