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

use super::dot::{gemm, Mat};

/// The padding of a convolution or window, as JAX's `padding` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Padding {
    /// No padding (`"VALID"`).
    Valid,
    /// Output size `ceil(input / stride)`, an odd total padding's extra
    /// element at the end (`"SAME"`).
    Same,
    /// As `Same`, the extra element at the start (`"SAME_LOWER"`).
    SameLower,
    /// `(low, high)` per spatial axis; negative values crop.
    Explicit(Vec<(i64, i64)>),
}

impl From<&str> for Padding {
    /// `"VALID"`, `"SAME"` or `"SAME_LOWER"` (any case), as JAX's strings.
    #[track_caller]
    fn from(s: &str) -> Self {
        match s.to_ascii_uppercase().as_str() {
            "VALID" => Padding::Valid,
            "SAME" => Padding::Same,
            "SAME_LOWER" => Padding::SameLower,
            _ => panic!(
                "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {s}."
            ),
        }
    }
}

impl From<&[(i64, i64)]> for Padding {
    fn from(p: &[(i64, i64)]) -> Self {
        Padding::Explicit(p.to_vec())
    }
}

impl<const N: usize> From<[(i64, i64); N]> for Padding {
    fn from(p: [(i64, i64); N]) -> Self {
        Padding::Explicit(p.to_vec())
    }
}

impl<const N: usize> From<&[(i64, i64); N]> for Padding {
    fn from(p: &[(i64, i64); N]) -> Self {
        Padding::Explicit(p.to_vec())
    }
}

impl From<Vec<(i64, i64)>> for Padding {
    fn from(p: Vec<(i64, i64)>) -> Self {
        Padding::Explicit(p)
    }
}

impl Padding {
    /// The `(low, high)` pads for inputs of spatial sizes `input` under
    /// windows of (dilated) sizes `window` moved by `strides`: JAX's
    /// `padtype_to_pads`.
    pub fn pads(&self, input: &[usize], window: &[usize], strides: &[usize]) -> Vec<(i64, i64)> {
        match self {
            Padding::Valid => vec![(0, 0); input.len()],
            Padding::Explicit(p) => p.clone(),
            Padding::Same | Padding::SameLower => input
                .iter()
                .zip(window)
                .zip(strides)
                .map(|((&i, &w), &s)| {
                    let (i, w, s) = (i as i64, w as i64, s as i64);
                    let out = (i + s - 1) / s;
                    let total = ((out - 1) * s + w - i).max(0);
                    let small = total / 2;
                    if *self == Padding::Same {
                        (small, total - small)
                    } else {
                        (total - small, small)
                    }
                })
                .collect(),
        }
    }
}

/// Layouts of a convolution's input, kernel and output as JAX's strings:
/// `("NCHW", "OIHW", "NCHW")` (the default), `("NHWC", "HWIO", "NHWC")`, ...
/// `N`/`C` name the batch and feature axes of the input and output, `O`/`I`
/// the kernel's output and input features; the other letters are spatial
/// axes, matched by letter and ordered as in the kernel's string.
pub type ConvDimensionNumbers<'a> = (&'a str, &'a str, &'a str);

/// A convolution with its parameters checked, in JAX's canonical order:
/// the input `[N, C, spatial..]`, the kernel `[O, I, spatial..]`, the output
/// `[N, O, spatial..]`, each given by the permutation of the operand's own
/// axes into that order (`ConvDimensionNumbers` in `jax.lax`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConvSpec {
    /// The operands' shapes in their own layouts.
    pub lhs_shape: Vec<usize>,
    pub rhs_shape: Vec<usize>,
    /// The result's shape in its own layout.
    pub out_shape: Vec<usize>,
    /// Operand axes in canonical order (JAX's `lhs_spec`, `rhs_spec`,
    /// `out_spec`).
    pub lhs_perm: Vec<usize>,
    pub rhs_perm: Vec<usize>,
    pub out_perm: Vec<usize>,
    pub window_strides: Vec<usize>,
    pub padding: Vec<(i64, i64)>,
    pub lhs_dilation: Vec<usize>,
    pub rhs_dilation: Vec<usize>,
    pub feature_group_count: usize,
    pub batch_group_count: usize,
}

/// JAX's `conv_general_permutations`: the three specs as permutations into
/// canonical order, or JAX's message.
pub(crate) fn conv_permutations(
    rank: usize,
    dimension_numbers: Option<ConvDimensionNumbers<'_>>,
) -> Result<[Vec<usize>; 3], String> {
    let Some((l, r, o)) = dimension_numbers else {
        let iota: Vec<usize> = (0..rank).collect();
        return Ok([iota.clone(), iota.clone(), iota]);
    };
    let specs = [l, r, o];
    for (i, spec) in specs.iter().enumerate() {
        if spec.chars().count() != rank {
            return Err(format!(
                "convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and rhs, got {} for lhs and rhs of rank {rank}.",
                spec.chars().count()
            ));
        }
    }
    let pairs = [('N', 'C'), ('O', 'I'), ('N', 'C')];
    for (i, (spec, (a, b))) in specs.iter().zip(pairs).enumerate() {
        if spec.matches(a).count() != 1 || spec.matches(b).count() != 1 {
            return Err(format!(
                "convolution dimension_numbers[{i}] must contain the characters '{a}' and '{b}' exactly once, got {spec}."
            ));
        }
        let mut seen: Vec<char> = spec.chars().collect();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != spec.chars().count() {
            return Err(format!(
                "convolution dimension_numbers[{i}] cannot have duplicate characters, got {spec}."
            ));
        }
    }
    let spatial = |spec: &str, (a, b): (char, char)| {
        let mut s: Vec<char> = spec.chars().filter(|&c| c != a && c != b).collect();
        s.sort_unstable();
        s
    };
    if spatial(l, pairs[0]) != spatial(r, pairs[1]) || spatial(r, pairs[1]) != spatial(o, pairs[2])
    {
        return Err(format!(
            "convolution dimension_numbers elements must each have the same set of spatial characters, got ('{l}', '{r}', '{o}')."
        ));
    }
    let rhs_chars: Vec<char> = r.chars().collect();
    let perm = |spec: &str, (a, b): (char, char)| {
        let chars: Vec<char> = spec.chars().collect();
        let find = |c: char| chars.iter().position(|&x| x == c).unwrap();
        let mut p = vec![find(a), find(b)];
        // Spatial axes in the order the kernel's string gives them.
        for &c in &rhs_chars {
            if c != 'O' && c != 'I' {
                p.push(find(c));
            }
        }
        p
    };
    Ok([perm(l, pairs[0]), perm(r, pairs[1]), perm(o, pairs[2])])
}

impl ConvSpec {
    /// Checks a convolution as JAX's shape rule does and computes its
    /// result's shape; `Err` holds JAX's message.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        lhs_shape: &[usize],
        rhs_shape: &[usize],
        window_strides: &[usize],
        padding: &Padding,
        lhs_dilation: Option<&[usize]>,
        rhs_dilation: Option<&[usize]>,
        dimension_numbers: Option<ConvDimensionNumbers<'_>>,
        feature_group_count: usize,
        batch_group_count: usize,
    ) -> Result<ConvSpec, String> {
        if lhs_shape.len() != rhs_shape.len() {
            return Err(format!(
                "convolution requires lhs and rhs ndim to be equal, got {} and {}.",
                lhs_shape.len(),
                rhs_shape.len()
            ));
        }
        let rank = lhs_shape.len();
        if rank < 2 {
            return Err(format!(
                "convolution needs operands of rank 2 or more (batch and feature axes), got rank {rank}."
            ));
        }
        let nsp = rank - 2;
        let [lp, rp, op] = conv_permutations(rank, dimension_numbers)?;
        let ones = vec![1; nsp];
        let lhs_dilation = lhs_dilation.unwrap_or(&ones).to_vec();
        let rhs_dilation = rhs_dilation.unwrap_or(&ones).to_vec();
        if lhs_dilation.len() != nsp || rhs_dilation.len() != nsp {
            return Err(format!(
                "conv_general_dilated lhs_dilation and rhs_dilation need {nsp} entries, got {} and {}.",
                lhs_dilation.len(),
                rhs_dilation.len()
            ));
        }
        if lhs_dilation.iter().chain(&rhs_dilation).any(|&d| d == 0) {
            return Err(format!(
                "All dilations must be positive, got {lhs_dilation:?} and {rhs_dilation:?}."
            ));
        }
        if window_strides.len() != nsp {
            return Err(format!(
                "conv_general_dilated window and window_strides must have the same number of dimensions, but got {nsp} and {}",
                window_strides.len()
            ));
        }
        if window_strides.contains(&0) {
            return Err(format!(
                "conv_general_dilated window_strides must be positive, got {window_strides:?}."
            ));
        }
        let lhs_t: Vec<usize> = lp.iter().map(|&a| lhs_shape[a]).collect();
        let rhs_t: Vec<usize> = rp.iter().map(|&a| rhs_shape[a]).collect();
        if feature_group_count == 0 {
            return Err(format!(
                "conv_general_dilated feature_group_count must be a positive integer, got {feature_group_count}."
            ));
        }
        if !lhs_t[1].is_multiple_of(feature_group_count) {
            return Err(format!(
                "conv_general_dilated feature_group_count must divide lhs feature dimension size, but {feature_group_count} does not divide {}.",
                lhs_t[1]
            ));
        }
        if lhs_t[1] / feature_group_count != rhs_t[1] {
            return Err(format!(
                "conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the rhs input feature dimension size, but {} // {feature_group_count} != {}.",
                lhs_t[1], rhs_t[1]
            ));
        }
        if !rhs_t[0].is_multiple_of(feature_group_count) {
            return Err(format!(
                "conv_general_dilated rhs output feature dimension size must be a multiple of feature_group_count, but {} is not a multiple of {feature_group_count}.",
                rhs_t[0]
            ));
        }
        if batch_group_count == 0 {
            return Err(format!(
                "conv_general_dilated batch_group_count must be a positive integer, got {batch_group_count}."
            ));
        }
        if batch_group_count > 1 && !lhs_t[0].is_multiple_of(batch_group_count) {
            return Err(format!(
                "conv_general_dilated batch_group_count must divide lhs batch dimension size, but {batch_group_count} does not divide {}.",
                lhs_t[0]
            ));
        }
        if !rhs_t[0].is_multiple_of(batch_group_count) {
            return Err(format!(
                "conv_general_dilated rhs output feature dimension size must be a multiple of batch_group_count, but {} is not a multiple of {batch_group_count}.",
                rhs_t[0]
            ));
        }
        if batch_group_count > 1 && feature_group_count > 1 {
            return Err(format!(
                "At most one of batch_group_count and feature_group_count may be > 1, got batch_group_count={batch_group_count} and feature_group_count={feature_group_count}"
            ));
        }
        let lhs_sp: Vec<usize> = (0..nsp)
            .map(|d| dilate_dim(lhs_t[2 + d], lhs_dilation[d]))
            .collect();
        let window: Vec<usize> = (0..nsp)
            .map(|d| dilate_dim(rhs_t[2 + d], rhs_dilation[d]))
            .collect();
        let pads = match padding {
            Padding::Explicit(_) => padding.pads(&lhs_sp, &window, window_strides),
            _ if lhs_dilation.iter().any(|&d| d != 1) => {
                return Err("String padding is not implemented for transposed convolution using this op. Please either exactly specify the required padding or use conv_transpose.".into());
            }
            _ => {
                let undilated: Vec<usize> = lhs_t[2..].to_vec();
                padding.pads(&undilated, &window, window_strides)
            }
        };
        if pads.len() != nsp {
            return Err(format!(
                "Wrong number of explicit pads for convolution: expected {nsp}, got {}.",
                pads.len()
            ));
        }
        let mut out_t = vec![
            if batch_group_count > 1 {
                lhs_t[0] / batch_group_count
            } else {
                lhs_t[0]
            },
            rhs_t[0],
        ];
        for d in 0..nsp {
            let padded = lhs_sp[d] as i64 + pads[d].0 + pads[d].1;
            if padded < 0 {
                return Err(format!(
                    "Negative padding is larger than the size of the corresponding dimension: got padding={pads:?} for lhs_shape[2:]={:?}",
                    &lhs_sp
                ));
            }
            let w = window[d] as i64;
            out_t.push(if padded < w {
                0
            } else {
                ((padded - w) / window_strides[d] as i64 + 1) as usize
            });
        }
        let mut out_shape = vec![0; rank];
        for (c, &a) in op.iter().enumerate() {
            out_shape[a] = out_t[c];
        }
        Ok(ConvSpec {
            lhs_shape: lhs_shape.to_vec(),
            rhs_shape: rhs_shape.to_vec(),
            out_shape,
            lhs_perm: lp,
            rhs_perm: rp,
            out_perm: op,
            window_strides: window_strides.to_vec(),
            padding: pads,
            lhs_dilation,
            rhs_dilation,
            feature_group_count,
            batch_group_count,
        })
    }
}

/// The convolution `spec` of row-major `lhs` and `rhs`, as a row-major
/// result of shape `spec.out_shape`.
pub(crate) fn conv_raw<T: Element>(lhs: &[T], rhs: &[T], spec: &ConvSpec) -> Vec<T> {
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

/// JAX's `dilate_dim`: the size of `d` elements spread `k` apart.
pub(super) fn dilate_dim(d: usize, k: usize) -> usize {
    if d == 0 {
        0
    } else {
        (d - 1) * k + 1
    }
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

/// JAX's `_conv_transpose_padding`: the transposed convolution's padding of
/// one axis from the forward convolution's padding `"SAME"`/`"VALID"`.
fn transpose_padding(k: usize, s: usize, padding: &Padding) -> (i64, i64) {
    let (k, s) = (k as i64, s as i64);
    let (pad_a, pad_len) = match padding {
        Padding::Same => {
            let len = k + s - 2;
            (if s > k - 1 { k - 1 } else { (len + 1) / 2 }, len)
        }
        _ => (k - 1, k + s - 2 + (k - s).max(0)),
    };
    (pad_a, pad_len - pad_a)
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
    let dn = dimension_numbers.unwrap_or(match lshape.len() {
        2 => ("NC", "IO", "NC"),
        3 => ("NHC", "HIO", "NHC"),
        4 => ("NHWC", "HWIO", "NHWC"),
        5 => ("NHWDC", "HWDIO", "NHWDC"),
        _ => panic!("No 4+ dimensional dimension_number defaults."),
    });
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
                transpose_padding(k, strides[d], p)
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
