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

use super::dot::{gemm_into, same_epilogue, same_slice, same_vec, Mat};
use crate::gemm::{Epilogue, Tile};
pub(crate) use jax_dtypes::conv::{
    conv_permutations, conv_transpose_layouts, conv_transpose_padding, dilate_dim, ConvSpec,
};
pub use jax_dtypes::conv::{ConvDimensionNumbers, Padding};

/// The convolution `spec` of row-major `lhs` and `rhs`, as a row-major
/// result of shape `spec.out_shape`.
pub(crate) fn conv_raw<T: Element>(lhs: &[T], rhs: &[T], spec: &ConvSpec) -> Vec<T> {
    conv_raw_with(lhs, rhs, spec, None)
}

/// [`conv_raw`], then `epilogue` over every element of the result seen as
/// a `[positions, features]` matrix (rows: batch and spatial axes in the
/// result's order; columns: its last axis). For an ungrouped convolution
/// whose result has its features last (`NHWC`), the epilogue runs on each
/// block of the product while it is in cache (the compiler's fused bias and
/// activation); otherwise once over the whole result.
pub(crate) fn conv_raw_with<T: Element>(
    lhs: &[T],
    rhs: &[T],
    spec: &ConvSpec,
    epilogue: Option<Epilogue<'_, T>>,
) -> Vec<T> {
    // f32 and f64 run instances compiled in this crate (optimized however
    // the caller's crate is built); other dtypes the generic code.
    if let (Some(l), Some(r)) = (same_slice::<T, f32>(lhs), same_slice::<T, f32>(rhs)) {
        let e = epilogue.map(same_epilogue::<T, f32>);
        return same_vec(conv_f32(l, r, spec, e));
    }
    if let (Some(l), Some(r)) = (same_slice::<T, f64>(lhs), same_slice::<T, f64>(rhs)) {
        let e = epilogue.map(same_epilogue::<T, f64>);
        return same_vec(conv_f64(l, r, spec, e));
    }
    conv_generic(lhs, rhs, spec, epilogue)
}

#[inline(never)]
fn conv_f32(lhs: &[f32], rhs: &[f32], spec: &ConvSpec, e: Option<Epilogue<'_, f32>>) -> Vec<f32> {
    conv_generic(lhs, rhs, spec, e)
}

#[inline(never)]
fn conv_f64(lhs: &[f64], rhs: &[f64], spec: &ConvSpec, e: Option<Epilogue<'_, f64>>) -> Vec<f64> {
    conv_generic(lhs, rhs, spec, e)
}

fn conv_generic<T: Element>(
    lhs: &[T],
    rhs: &[T],
    spec: &ConvSpec,
    epilogue: Option<Epilogue<'_, T>>,
) -> Vec<T> {
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
    // An input whose features are not contiguous and whose last spatial
    // axis is not either (a kernel gradient reads an NHWC input with the
    // batch as its features and the channels as its batch) would be
    // gathered one strided element at a time: copy it once into the
    // canonical (batch, feature, spatial...) layout, whose window rows are
    // then runs of consecutive elements.
    let last_stride = lst[lst.len() - 1];
    let canonical: Option<Vec<T>> = (lst[1] != 1 && rs[1] != 1 && last_stride != 1 && nsp > 0)
        .then(|| to_canonical(lhs, &ls, &lst));
    let (lhs, lst) = match &canonical {
        Some(c) => (&c[..], shape::strides(&ls)),
        None => (lhs, lst),
    };
    assert_eq!(rhs.len(), rs.iter().product::<usize>(), "conv: rhs length");
    let out_len: usize = os.iter().product();
    // Every element is written below (a pooled buffer's stale values are
    // never read).
    let mut out: Vec<T> = crate::__rt::buffer(out_len);
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
        out.fill(T::ZERO);
        whole_epilogue(&mut out, &spec.out_shape, epilogue);
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
    // The columns of the gathered windows: (tap, feature) when the input's
    // features are contiguous (channels last), else (feature, tap), so the
    // reads along the last spatial axis run over consecutive elements.
    let tap_major = lst[1] == 1 || ig == 1;
    let rhs_tap: Vec<usize> = k_offsets(&taps, &rst[2..]);
    let rhs_col: Vec<usize> = (0..cols)
        .map(|c| {
            let (t, i) = if tap_major {
                (c / ig, c % ig)
            } else {
                (c % ntaps, c / ntaps)
            };
            rhs_tap[t] + i * rst[1]
        })
        .collect();
    // The kernel as a [column, o] matrix read in place when its columns are
    // evenly spaced in `rhs` (HWIO forward, or the output cotangent of a
    // channels-last kernel gradient), else copied.
    let col_stride = rhs_col.get(1).map_or(0, |&c1| c1 - rhs_col[0]);
    let in_place = rhs_col
        .iter()
        .enumerate()
        .all(|(c, &at)| at == c * col_stride);
    let nout = os[0];
    let rows = nout * npos;
    // Rows per product: enough to amortize packing the kernel matrix, few
    // enough that the gathered windows stay in L2 (about 1 MiB).
    let chunk = ((1usize << 18) / cols).max(192).min(rows);
    let rank = nsp + 2;
    let channels_last: Vec<usize> = std::iter::once(0)
        .chain(std::iter::once(rank - 1))
        .chain(1..rank - 1)
        .collect();
    let direct_out = groups == 1 && spec.out_perm == channels_last;
    let padded = tap_major
        .then(|| Padded::plan(spec, &ls, &taps, ig, &positions))
        .flatten();
    use crate::__rt::team;
    let ors = rst[0];
    let (lst0, lst1) = (lst[0], lst[1]);
    // Group `g`'s kernel matrix (in place, or copied into `copied`) and
    // window gatherer.
    let group = |g: usize, copied: &mut Vec<T>| {
        let kbase = g * og * ors;
        let in_place_kernel = in_place.then(|| Mat {
            data: &rhs[kbase..],
            rs: col_stride,
            cs: rst[0],
        });
        if !in_place {
            copied.clear();
            copied.extend(
                rhs_col
                    .iter()
                    .flat_map(|&at| (0..og).map(move |o| rhs[kbase + at + o * ors])),
            );
        }
        let gather = Gather {
            lhs,
            lst: &lst,
            reads: &reads,
            taps: &taps,
            positions: &positions,
            ig,
            tap_major,
            base: move |n: usize| {
                let nb = if bgc > 1 { g * nout + n } else { n };
                let c0 = if fgc > 1 { g * ig } else { 0 };
                nb * lst0 + c0 * lst1
            },
            npos,
            padded: padded.as_ref(),
            in_dims: &ls[2..],
        };
        (in_place_kernel, gather)
    };
    // Rows r0..r1 (image and output position) of group `g`'s windows,
    // gathered (by several threads when `spread` and they are one large
    // chunk), times the kernel, into `dst` (row-major `(r1 - r0) × og`).
    let product = |g: usize,
                   spread: bool,
                   r0: usize,
                   r1: usize,
                   dst: &mut [T],
                   epi: Option<Epilogue<'_, T>>| {
        let mut copied: Vec<T> = Vec::new();
        let (kernel, gather) = group(g, &mut copied);
        let kernel = kernel.unwrap_or(Mat {
            data: &copied,
            rs: og,
            cs: 1,
        });
        let stride = gather.row_stride(cols);
        let mut patches: Vec<T> = crate::__rt::buffer((r1 - r0) * stride);
        let part = ((1usize << 16) / cols).max(1);
        if spread && (r1 - r0) > part && rows <= chunk {
            team::for_chunks(&mut patches, part * stride, &|c, p| {
                gather.rows(r0 + c * part, p)
            });
        } else {
            gather.rows(r0, &mut patches);
        }
        let a = Mat {
            data: &patches,
            rs: stride,
            cs: 1,
        };
        gemm_into(r1 - r0, cols, og, a, kernel, dst, epi.map(|e| (e, r0)));
        crate::__rt::recycle(patches);
    };
    if direct_out {
        team::for_chunks(&mut out, chunk * og, &|c, dst| {
            let r0 = c * chunk;
            product(0, true, r0, r0 + dst.len() / og, dst, epilogue)
        });
    } else {
        // Each group's products by chunks of rows: the chunks on the team's
        // threads, or, when every group is one chunk (a per-example kernel
        // gradient: one group per example, little work each), the groups.
        let chunks_of = |g: usize, spread: bool| -> Vec<(usize, Vec<T>)> {
            let one = |c: usize| {
                let r0 = c * chunk;
                let r1 = (r0 + chunk).min(rows);
                let mut dst = vec![T::ZERO; (r1 - r0) * og];
                product(g, spread, r0, r1, &mut dst, None);
                (r0, dst)
            };
            if spread {
                team::map(rows.div_ceil(chunk), &one)
            } else {
                (0..rows.div_ceil(chunk)).map(one).collect()
            }
        };
        let by_group: Vec<Vec<(usize, Vec<T>)>> = if groups > 1 && rows <= chunk {
            team::map(groups, &|g| chunks_of(g, false))
        } else {
            (0..groups).map(|g| chunks_of(g, true)).collect()
        };
        for (g, chunks) in by_group.into_iter().enumerate() {
            let mut q = vec![0usize; nsp];
            for (r0, prod) in chunks {
                for (r, vals) in prod.chunks(og).enumerate() {
                    let (n, p) = ((r0 + r) / npos, (r0 + r) % npos);
                    if p == 0 || r == 0 {
                        unravel(p, &positions, &mut q);
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
    }
    if !direct_out {
        whole_epilogue(&mut out, &spec.out_shape, epilogue);
    }
    out
}

/// `x` (read at strides `st`, extents `dims`) copied into the row-major
/// layout of `dims`; one image per task.
fn to_canonical<T: Element>(x: &[T], dims: &[usize], st: &[usize]) -> Vec<T> {
    let len: usize = dims.iter().product();
    let mut out: Vec<T> = crate::__rt::buffer(len);
    let per_image = len / dims[0].max(1);
    if per_image == 0 {
        return out;
    }
    let (rest, last) = (&dims[1..dims.len() - 1], dims[dims.len() - 1]);
    let (rest_st, last_st) = (&st[1..st.len() - 1], st[st.len() - 1]);
    crate::__rt::team::for_chunks(&mut out, per_image, &|n, img| {
        let mut idx = vec![0usize; rest.len()];
        for line in img.chunks_exact_mut(last) {
            let from = n * st[0] + idx.iter().zip(rest_st).map(|(i, s)| i * s).sum::<usize>();
            for (j, v) in line.iter_mut().enumerate() {
                *v = x[from + j * last_st];
            }
            step(&mut idx, rest);
        }
    });
    out
}

/// `epilogue` over all of `out` (row-major `shape`) as one block of the
/// `[positions, last axis]` matrix.
fn whole_epilogue<T>(out: &mut [T], shape: &[usize], epilogue: Option<Epilogue<'_, T>>) {
    if let Some(e) = epilogue {
        let cols = shape.last().copied().unwrap_or(1);
        e(Tile::whole(out, 0, cols));
    }
}

/// The windows of the images, gathered into rows of a matrix: one row per
/// (image, output position), one column per (tap, input feature) or
/// (input feature, tap).
struct Gather<'a, T, B> {
    lhs: &'a [T],
    /// The input's strides in canonical order (batch, feature, spatial..).
    lst: &'a [usize],
    /// Per spatial axis, per (output index, tap): the input index, or none.
    reads: &'a [Vec<Option<usize>>],
    taps: &'a [usize],
    positions: &'a [usize],
    ig: usize,
    tap_major: bool,
    /// Where image `n`'s first feature of the group starts.
    base: B,
    npos: usize,
    /// The plan for copying windows out of zero-padded images, when the
    /// layout allows it.
    padded: Option<&'a Padded>,
    /// The input's spatial dimensions.
    in_dims: &'a [usize],
}

/// Elements past the end of a padded image or a gathered row that the
/// 8-wide copies of [`copy8`] may touch.
const SLACK: usize = 8;

/// Windows copied out of a zero-padded copy of each image (channels-last
/// input, tap-major columns, no input dilation, no negative padding): every
/// read is in bounds, so a row is a few contiguous pieces, copied 8
/// elements at a time with no padding tests.
struct Padded {
    /// The padded image's strides per spatial axis (features are the
    /// innermost, contiguous axis).
    pst: Vec<usize>,
    /// Its length, plus [`SLACK`].
    len: usize,
    /// Low padding per spatial axis.
    lo: Vec<usize>,
    /// The window origin's step per output index, per spatial axis.
    qoff: Vec<usize>,
    /// Per piece of a row: its start in the row and in the padded image
    /// relative to the window's origin.
    pieces: Vec<(usize, usize)>,
    /// Each piece's length.
    plen: usize,
}

impl Padded {
    fn plan(
        spec: &ConvSpec,
        ls: &[usize],
        taps: &[usize],
        ig: usize,
        positions: &[usize],
    ) -> Option<Padded> {
        let nsp = taps.len();
        if spec.lhs_dilation.iter().any(|&d| d != 1)
            || spec.padding.iter().any(|&(l, h)| l < 0 || h < 0)
        {
            return None;
        }
        let lo: Vec<usize> = spec.padding.iter().map(|&(l, _)| l as usize).collect();
        let dims: Vec<usize> = (0..nsp)
            .map(|d| ls[2 + d] + (spec.padding[d].0 + spec.padding[d].1) as usize)
            .collect();
        let mut pst = vec![ig; nsp];
        for d in (0..nsp.saturating_sub(1)).rev() {
            pst[d] = pst[d + 1] * dims[d + 1];
        }
        let len = pst[0] * dims[0] + SLACK;
        let qoff: Vec<usize> = (0..nsp).map(|d| spec.window_strides[d] * pst[d]).collect();
        let last = nsp - 1;
        let outer: Vec<usize> = (0..last).map(|d| spec.rhs_dilation[d] * pst[d]).collect();
        let outer_offs = k_offsets(&taps[..last], &outer);
        let tl = taps[last];
        let (pieces, plen): (Vec<(usize, usize)>, usize) = if spec.rhs_dilation[last] == 1 {
            let p = outer_offs
                .iter()
                .enumerate()
                .map(|(t, &o)| (t * tl * ig, o))
                .collect();
            (p, tl * ig)
        } else {
            let step = spec.rhs_dilation[last] * ig;
            let p = outer_offs
                .iter()
                .flat_map(|&o| (0..tl).map(move |k| o + k * step))
                .enumerate()
                .map(|(t, src)| (t * ig, src))
                .collect();
            (p, ig)
        };
        // Every copy (the last window's last piece, 8-wide) inside the image.
        let max_origin: usize = positions
            .iter()
            .zip(&qoff)
            .map(|(&p, &o)| p.saturating_sub(1) * o)
            .sum();
        let max_src = pieces.iter().map(|&(_, src)| src).max().unwrap_or(0);
        if max_origin + max_src + plen.next_multiple_of(SLACK) > len {
            return None;
        }
        Some(Padded {
            pst,
            len,
            lo,
            qoff,
            pieces,
            plen,
        })
    }

    /// The row stride of gathered rows of `cols` elements: room for the
    /// last piece's 8-wide copy.
    fn row_stride(cols: usize) -> usize {
        (cols + SLACK - 1).next_multiple_of(SLACK)
    }
}

/// Copies `len` elements from `src` to `dst` in blocks of 8, touching up to
/// 7 elements past the end of both (no call into `memcpy` for short pieces).
///
/// # Safety
/// `src` and `dst` are valid for `len.next_multiple_of(8)` elements and do
/// not overlap.
#[inline(always)]
unsafe fn copy8<T: Copy>(dst: *mut T, src: *const T, len: usize) {
    let mut j = 0;
    while j < len {
        // SAFETY: within the caller's `len.next_multiple_of(8)` elements.
        unsafe {
            let v = src.add(j).cast::<[T; 8]>().read_unaligned();
            dst.add(j).cast::<[T; 8]>().write_unaligned(v);
        }
        j += 8;
    }
}

impl<T: Element, B: Fn(usize) -> usize> Gather<'_, T, B> {
    /// The distance between gathered rows of `cols` elements.
    fn row_stride(&self, cols: usize) -> usize {
        match self.padded {
            Some(_) => Padded::row_stride(cols),
            None => cols,
        }
    }

    /// Fills `rows` (whole rows of the matrix, [`Gather::row_stride`] apart)
    /// starting at row `r0`.
    fn rows(&self, r0: usize, rows: &mut [T]) {
        if let Some(plan) = self.padded {
            return self.rows_padded(plan, r0, rows);
        }
        let nsp = self.taps.len();
        let last = nsp - 1;
        let (tl, ql) = (self.taps[last], self.positions[last]);
        let ntaps: usize = self.taps.iter().product();
        let cols = ntaps * self.ig;
        let (ig, cstride, lstride) = (self.ig, self.lst[1], self.lst[2 + last]);
        // Runs along the last axis: copied whole when their elements are
        // consecutive (the features, for tap-major columns, or the last
        // axis itself).
        let run_len = if self.tap_major { ig } else { 1 };
        let runs = (if self.tap_major {
            (ig == 1 || cstride == 1) && lstride == ig
        } else {
            lstride == 1
        })
        .then(|| runs(&self.reads[last], ql, tl));
        let outer_taps = &self.taps[..last];
        let mut q = vec![0usize; nsp];
        let mut k = vec![0usize; last];
        for (r, row) in rows.chunks_mut(cols).enumerate() {
            let (n, p) = ((r0 + r) / self.npos, (r0 + r) % self.npos);
            if r == 0 || p == 0 {
                unravel(p, self.positions, &mut q);
            } else {
                step(&mut q, self.positions);
            }
            let base = (self.base)(n);
            let q_last = q[last];
            let last_reads = &self.reads[last][q_last * tl..(q_last + 1) * tl];
            let run = runs.as_ref().and_then(|r| r[q_last]);
            // One block per outer tap (and per feature, feature-major).
            let features = if self.tap_major { 1 } else { ig };
            let block_len = tl * run_len;
            let mut blocks = row.chunks_mut(block_len);
            for i in 0..features {
                k.iter_mut().for_each(|v| *v = 0);
                for _ in 0..ntaps / tl {
                    let block = blocks.next().expect("internal error: conv gather");
                    let mut at = Some(base + i * cstride);
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
                    if let Some((k0, k1, x0)) = run {
                        let (b0, b1) = (k0 * run_len, k1 * run_len);
                        block[..b0].fill(T::ZERO);
                        let src = &self.lhs[at + x0 * lstride..at + x0 * lstride + (b1 - b0)];
                        block[b0..b1].copy_from_slice(src);
                        block[b1..].fill(T::ZERO);
                        continue;
                    }
                    if self.tap_major {
                        for (tap, read) in block.chunks_mut(ig).zip(last_reads) {
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
                    } else {
                        for (v, read) in block.iter_mut().zip(last_reads) {
                            *v = read.map_or(T::ZERO, |x| self.lhs[at + x * lstride]);
                        }
                    }
                }
            }
        }
    }
}

impl<T: Element, B: Fn(usize) -> usize> Gather<'_, T, B> {
    fn rows_padded(&self, plan: &Padded, r0: usize, rows: &mut [T]) {
        let nsp = self.taps.len();
        let last = nsp - 1;
        let cols = self.taps.iter().product::<usize>() * self.ig;
        let stride = Padded::row_stride(cols);
        let mut image = vec![T::ZERO; plan.len];
        let mut loaded = usize::MAX;
        let mut q = vec![0usize; nsp];
        let (nrows, ql) = (rows.len() / stride, self.positions[last]);
        let mut r = 0;
        while r < nrows {
            let (n, p) = ((r0 + r) / self.npos, (r0 + r) % self.npos);
            if n != loaded {
                self.load_padded(plan, n, &mut image);
                loaded = n;
            }
            // The rest of this line of outputs along the last axis: window
            // origins one stride apart.
            unravel(p, self.positions, &mut q);
            let run = (ql - q[last]).min(nrows - r);
            let mut origin: usize = q.iter().zip(&plan.qoff).map(|(&q, &o)| q * o).sum();
            for row in rows[r * stride..(r + run) * stride].chunks_exact_mut(stride) {
                for &(dst, src) in &plan.pieces {
                    // SAFETY: the row has `stride` elements, room for the
                    // 8-wide copy of its last piece; `Padded::plan` checked
                    // that every window's copies stay inside the image.
                    unsafe {
                        copy8(
                            row.as_mut_ptr().add(dst),
                            image.as_ptr().add(origin + src),
                            plan.plen,
                        )
                    };
                }
                origin += plan.qoff[last];
            }
            r += run;
        }
    }

    /// Image `n`, zero-padded, features innermost, into `image` (whose
    /// padding is already zero).
    fn load_padded(&self, plan: &Padded, n: usize, image: &mut [T]) {
        let last = self.taps.len() - 1;
        let (ig, cstride, lstride) = (self.ig, self.lst[1], self.lst[2 + last]);
        let base = (self.base)(n);
        let input = self.in_dims;
        let mut line = vec![0usize; last];
        for _ in 0..input[..last].iter().product::<usize>() {
            let mut from = base;
            let mut to = plan.lo[last] * plan.pst[last];
            for (d, &x) in line.iter().enumerate() {
                from += x * self.lst[2 + d];
                to += (x + plan.lo[d]) * plan.pst[d];
            }
            if lstride == ig && (ig == 1 || cstride == 1) {
                let len = input[last] * ig;
                image[to..to + len].copy_from_slice(&self.lhs[from..from + len]);
            } else {
                for x in 0..input[last] {
                    for i in 0..ig {
                        image[to + x * ig + i] = self.lhs[from + x * lstride + i * cstride];
                    }
                }
            }
            step(&mut line, &input[..last]);
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

/// The offsets of the row-major multi-indices of `dims` under `strides`.
fn k_offsets(dims: &[usize], strides: &[usize]) -> Vec<usize> {
    let mut offs = vec![0usize];
    for (&d, &s) in dims.iter().zip(strides) {
        offs = offs
            .iter()
            .flat_map(|&o| (0..d).map(move |k| o + k * s))
            .collect();
    }
    offs
}

/// The row-major multi-index of `flat` over `dims`, into `idx`.
fn unravel(mut flat: usize, dims: &[usize], idx: &mut [usize]) {
    for d in (0..dims.len()).rev() {
        idx[d] = flat % dims[d];
        flat /= dims[d];
    }
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

#[cfg(test)]
mod tests;
