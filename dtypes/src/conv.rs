//! The shape rules of convolutions and windowed reductions, as JAX's
//! `_conv_general_dilated_shape_rule` and `_common_reduce_window_shape_rule`
//! with their messages: the runtime checks eager calls with them and runs
//! its kernels from the checked parameters; the compiler checks traced
//! calls with them at expansion time, so the two can never disagree.

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
    /// `"VALID"`, `"SAME"` or `"SAME_LOWER"` (any case), as JAX's strings;
    /// panics with JAX's message on any other (see [`Padding::parse`]).
    #[track_caller]
    fn from(s: &str) -> Self {
        Padding::parse(s).unwrap_or_else(|e| panic!("{e}"))
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
    /// `"VALID"`, `"SAME"` or `"SAME_LOWER"` (any case), or JAX's message.
    pub fn parse(s: &str) -> Result<Padding, String> {
        match s.to_ascii_uppercase().as_str() {
            "VALID" => Ok(Padding::Valid),
            "SAME" => Ok(Padding::Same),
            "SAME_LOWER" => Ok(Padding::SameLower),
            _ => Err(format!(
                "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {s}."
            )),
        }
    }

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
pub struct ConvSpec {
    /// The input's shape in its own layout.
    pub lhs_shape: Vec<usize>,
    /// The kernel's shape in its own layout.
    pub rhs_shape: Vec<usize>,
    /// The result's shape in its own layout.
    pub out_shape: Vec<usize>,
    /// The input's axes in canonical order (JAX's `lhs_spec`).
    pub lhs_perm: Vec<usize>,
    /// The kernel's axes in canonical order (`rhs_spec`).
    pub rhs_perm: Vec<usize>,
    /// The result's axes in canonical order (`out_spec`).
    pub out_perm: Vec<usize>,
    /// The window's step on each spatial axis.
    pub window_strides: Vec<usize>,
    /// `(low, high)` padding of each spatial axis, strings resolved.
    pub padding: Vec<(i64, i64)>,
    /// The input's dilation on each spatial axis (transposed convolution).
    pub lhs_dilation: Vec<usize>,
    /// The kernel's dilation on each spatial axis (atrous convolution).
    pub rhs_dilation: Vec<usize>,
    /// Feature groups (grouped and depthwise convolutions).
    pub feature_group_count: usize,
    /// Batch groups (the kernel gradient of a grouped convolution).
    pub batch_group_count: usize,
}

/// JAX's `conv_general_permutations`: the three specs as permutations into
/// canonical order, or JAX's message.
pub fn conv_permutations(
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
    pub fn new(
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
        let perms = conv_permutations(rank, dimension_numbers)?;
        ConvSpec::with_perms(
            lhs_shape,
            rhs_shape,
            window_strides,
            padding,
            lhs_dilation,
            rhs_dilation,
            perms,
            feature_group_count,
            batch_group_count,
        )
    }

    /// As [`ConvSpec::new`], the layouts given as permutations into
    /// canonical order (JAX's `ConvDimensionNumbers`, as jaxprs hold them).
    #[allow(clippy::too_many_arguments)]
    pub fn with_perms(
        lhs_shape: &[usize],
        rhs_shape: &[usize],
        window_strides: &[usize],
        padding: &Padding,
        lhs_dilation: Option<&[usize]>,
        rhs_dilation: Option<&[usize]>,
        [lp, rp, op]: [Vec<usize>; 3],
        feature_group_count: usize,
        batch_group_count: usize,
    ) -> Result<ConvSpec, String> {
        let rank = lhs_shape.len();
        let perm_ok = |p: &[usize]| {
            let mut q = p.to_vec();
            q.sort_unstable();
            q.iter().copied().eq(0..rank)
        };
        if rhs_shape.len() != rank || rank < 2 || ![&lp, &rp, &op].iter().all(|p| perm_ok(p)) {
            return Err(format!(
                "convolution dimension_numbers must be permutations of the axes of operands of equal rank (2 or more), got {lp:?}, {rp:?}, {op:?} for shapes {lhs_shape:?} and {rhs_shape:?}."
            ));
        }
        let nsp = rank - 2;
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

/// A windowed reduction with its parameters checked (JAX's shape rule).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowSpec {
    /// The operand's shape.
    pub shape: Vec<usize>,
    /// The window's size on each axis.
    pub window: Vec<usize>,
    /// The window's step on each axis.
    pub strides: Vec<usize>,
    /// `(low, high)` padding of each axis, strings resolved.
    pub padding: Vec<(i64, i64)>,
    /// The operand's dilation on each axis.
    pub base_dilation: Vec<usize>,
    /// The window's dilation on each axis.
    pub window_dilation: Vec<usize>,
    /// The result's shape.
    pub out_shape: Vec<usize>,
}

impl WindowSpec {
    /// JAX's `reduce_window` checks and result shape; `Err` holds its message.
    pub fn new(
        shape: &[usize],
        window_dimensions: &[usize],
        window_strides: Option<&[usize]>,
        padding: &Padding,
        base_dilation: Option<&[usize]>,
        window_dilation: Option<&[usize]>,
    ) -> Result<WindowSpec, String> {
        let rank = window_dimensions.len();
        let ones = vec![1; rank];
        let strides = window_strides.unwrap_or(&ones);
        let base = base_dilation.unwrap_or(&ones);
        let wdil = window_dilation.unwrap_or(&ones);
        if window_dimensions.contains(&0) {
            return Err(format!(
                "reduce_window window_dimensions must have every element be strictly positive, got {window_dimensions:?}."
            ));
        }
        if strides.contains(&0) {
            return Err(format!(
                "reduce_window window_strides must have every element be strictly positive, got {strides:?}."
            ));
        }
        if shape.len() != rank {
            return Err(format!(
                "reduce_window got the wrong number of window_dimensions for operand: got operand shape {shape:?} with window_dimensions {window_dimensions:?}."
            ));
        }
        if strides.len() != rank {
            return Err(format!(
                "reduce_window got inconsistent window_strides and window_dimensions: got window_strides {strides:?} and window_dimensions {window_dimensions:?}."
            ));
        }
        if base.len() != rank {
            return Err(format!(
                "reduce_window got inconsistent base_dilation and window_dimensions: got base_dilation {base:?} and window_dimensions {window_dimensions:?}."
            ));
        }
        if wdil.len() != rank {
            return Err(format!(
                "reduce_window got inconsistent window_dilation and window_dimensions: got window_dilation {wdil:?} and window_dimensions {window_dimensions:?}."
            ));
        }
        if base.iter().chain(wdil).any(|&d| d == 0) {
            return Err(format!(
                "All dilations must be positive, got {base:?} and {wdil:?}."
            ));
        }
        let dilated_window: Vec<usize> = (0..rank)
            .map(|d| dilate_dim(window_dimensions[d], wdil[d]))
            .collect();
        // String padding sees the operand as given (not base-dilated).
        let pads = padding.pads(shape, &dilated_window, strides);
        if pads.len() != rank {
            return Err(format!(
                "reduce_window padding needs {rank} (low, high) pairs, got {}.",
                pads.len()
            ));
        }
        let mut out_shape = Vec::with_capacity(rank);
        for d in 0..rank {
            let padded = dilate_dim(shape[d], base[d]) as i64 + pads[d].0 + pads[d].1;
            let w = dilated_window[d] as i64;
            out_shape.push(if padded < w {
                0
            } else {
                ((padded - w) / strides[d] as i64 + 1) as usize
            });
        }
        Ok(WindowSpec {
            shape: shape.to_vec(),
            window: window_dimensions.to_vec(),
            strides: strides.to_vec(),
            padding: pads,
            base_dilation: base.to_vec(),
            window_dilation: wdil.to_vec(),
            out_shape,
        })
    }
}

/// JAX's `dilate_dim`: the size of `d` elements spread `k` apart.
pub fn dilate_dim(d: usize, k: usize) -> usize {
    if d == 0 {
        0
    } else {
        (d - 1) * k + 1
    }
}

/// JAX's `_conv_transpose_padding`: the transposed convolution's padding of
/// one axis from the forward convolution's padding `"SAME"`/`"VALID"`.
pub fn conv_transpose_padding(k: usize, s: usize, padding: &Padding) -> (i64, i64) {
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

/// `conv_transpose`'s default layouts for operands of `rank` (TensorFlow's:
/// features last, kernel `spatial.., I, O`), or JAX's message.
pub fn conv_transpose_layouts(rank: usize) -> Result<ConvDimensionNumbers<'static>, String> {
    match rank {
        2 => Ok(("NC", "IO", "NC")),
        3 => Ok(("NHC", "HIO", "NHC")),
        4 => Ok(("NHWC", "HWIO", "NHWC")),
        5 => Ok(("NHWDC", "HWDIO", "NHWDC")),
        _ => Err("No 4+ dimensional dimension_number defaults.".into()),
    }
}

/// The window of flax's pooling layers (`nn.max_pool`, `nn.avg_pool`) over
/// inputs of `rank` axes, `(batch, spatial.., features)` or unbatched
/// `(spatial.., features)`: `window_shape` and `strides` (`None`: 1) on
/// the spatial axes, 1 on the others, explicit padding pairs given for the
/// spatial axes only. Returns the window, its strides and the padding.
pub fn pool_window(
    shape: &[usize],
    window_shape: &[usize],
    strides: Option<&[usize]>,
    padding: Padding,
) -> Result<(Vec<usize>, Vec<usize>, Padding), String> {
    let nsp = window_shape.len();
    let lead = match shape.len().checked_sub(nsp) {
        Some(2) => 1,
        Some(1) => 0,
        _ => {
            return Err(format!(
                "pooling: the input {shape:?} needs {} or {} axes for a window of {nsp} spatial axes: (batch, spatial.., features)",
                nsp + 1,
                nsp + 2
            ))
        }
    };
    let ones = vec![1; nsp];
    let strides = strides.unwrap_or(&ones);
    if strides.len() != nsp {
        return Err(format!(
            "pooling: strides {strides:?} need one entry per window axis ({nsp})"
        ));
    }
    let wrap = |w: &[usize]| {
        let mut v = vec![1; lead];
        v.extend_from_slice(w);
        v.push(1);
        v
    };
    let padding = match padding {
        Padding::Explicit(p) => {
            let mut v = vec![(0, 0); lead];
            v.extend(p);
            v.push((0, 0));
            Padding::Explicit(v)
        }
        p => p,
    };
    Ok((wrap(window_shape), wrap(strides), padding))
}
