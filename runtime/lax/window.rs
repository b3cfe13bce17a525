//! Windowed reductions, as `jax.lax.reduce_window`: every output element
//! folds, from the initial value, the operand elements its window covers,
//! the window moved by strides over the padded (and dilated) operand; as
//! XLA's CPU kernels do, padding and dilation holes contribute nothing
//! (a non-identity initial value counts once per window). The pooling layers of `jax::nn` are these with
//! `max` and `add`.

use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::shape;

use super::conv::{step, Padding};
pub(crate) use jax_dtypes::conv::WindowSpec;

/// The operand index each (output index, window index) pair reads.
trait Reads {
    fn reads(&self) -> Vec<Vec<Option<usize>>>;
}

impl Reads for WindowSpec {
    /// For each axis, for each (output index, window index) pair, the
    /// operand index read, or `None` for padding and dilation holes.
    fn reads(&self) -> Vec<Vec<Option<usize>>> {
        (0..self.shape.len())
            .map(|d| {
                let size = self.shape[d] as i64;
                let base = self.base_dilation[d] as i64;
                let mut r = Vec::with_capacity(self.out_shape[d] * self.window[d]);
                for o in 0..self.out_shape[d] {
                    for w in 0..self.window[d] {
                        let x = (o * self.strides[d] + w * self.window_dilation[d]) as i64
                            - self.padding[d].0;
                        r.push(
                            (x >= 0 && x % base == 0 && x / base < size)
                                .then_some((x / base) as usize),
                        );
                    }
                }
                r
            })
            .collect()
    }
}

/// How a window reads its operand, by blocks: the trailing axes where the
/// window neither moves nor pads (window 1, stride 1, no padding or
/// dilation: NHWC's channels, a batch axis `vmap` added) are one contiguous
/// block of `inner` elements that every output block reads at the same
/// positions; the leading axes carry the window.
struct Blocks {
    /// The elements of a block (1 when the window moves on the last axis).
    inner: usize,
    /// The leading axes' output shape and window.
    out_shape: Vec<usize>,
    window: Vec<usize>,
    /// Each leading axis's stride in the operand, in elements.
    strides: Vec<usize>,
    /// For each leading axis, the operand index each (output index, window
    /// index) pair reads, `None` in padding and dilation holes.
    reads: Vec<Vec<Option<usize>>>,
}

impl Blocks {
    fn new(spec: &WindowSpec) -> Blocks {
        let rank = spec.shape.len();
        let passes = |d: usize| {
            spec.window[d] == 1
                && spec.strides[d] == 1
                && spec.padding[d] == (0, 0)
                && spec.base_dilation[d] == 1
                && spec.out_shape[d] == spec.shape[d]
        };
        let mut k = rank;
        while k > 0 && passes(k - 1) {
            k -= 1;
        }
        let strides = shape::strides(&spec.shape);
        let reads = spec.reads();
        Blocks {
            inner: spec.shape[k..].iter().product(),
            out_shape: spec.out_shape[..k].to_vec(),
            window: spec.window[..k].to_vec(),
            strides: strides[..k].to_vec(),
            reads: reads[..k].to_vec(),
        }
    }

    /// The output blocks.
    fn outer(&self) -> usize {
        self.out_shape.iter().product()
    }

    /// Calls `visit(block, taps)` for the output blocks `range`, in order,
    /// `taps` the operand offsets of the blocks the window covers, in
    /// row-major window order, holes left out (XLA's CPU kernels skip them).
    fn each(&self, range: std::ops::Range<usize>, mut visit: impl FnMut(usize, &[usize])) {
        let rank = self.out_shape.len();
        let taps: usize = self.window.iter().product();
        let mut found = Vec::with_capacity(taps);
        let mut o = vec![0usize; rank];
        let mut rest = range.start;
        for d in (0..rank).rev() {
            o[d] = rest % self.out_shape[d];
            rest /= self.out_shape[d];
        }
        let mut w = vec![0usize; rank];
        for block in range {
            found.clear();
            w.iter_mut().for_each(|v| *v = 0);
            for _ in 0..taps {
                let mut at = Some(0);
                for d in 0..rank {
                    at = match (at, self.reads[d][o[d] * self.window[d] + w[d]]) {
                        (Some(a), Some(i)) => Some(a + i * self.strides[d]),
                        _ => None,
                    };
                }
                if let Some(a) = at {
                    found.push(a);
                }
                step(&mut w, &self.window);
            }
            visit(block, &found);
            step(&mut o, &self.out_shape);
        }
    }
}

/// The output blocks `range` of a windowed fold into `out` (their
/// elements): each element starts at `init` and folds `f` over its window's
/// taps in row-major order.
fn fold_blocks<T: Copy>(
    x: &[T],
    b: &Blocks,
    range: std::ops::Range<usize>,
    out: &mut [T],
    init: T,
    f: &impl Fn(T, T) -> T,
) {
    let (inner, first) = (b.inner, range.start);
    b.each(range, |block, taps| {
        let acc = &mut out[(block - first) * inner..(block - first + 1) * inner];
        acc.iter_mut().for_each(|a| *a = init);
        for &t in taps {
            for (a, &v) in acc.iter_mut().zip(&x[t..t + inner]) {
                *a = f(*a, v);
            }
        }
    });
}

/// `spec`'s windowed reduction of row-major `x`: each output starts at
/// `init` and folds `f(acc, element)` over its window in row-major order,
/// padding and dilation holes skipped.
pub(crate) fn reduce_window_raw<T: Copy>(
    x: &[T],
    spec: &WindowSpec,
    init: T,
    f: impl Fn(T, T) -> T,
) -> Vec<T> {
    let b = Blocks::new(spec);
    let mut out = vec![init; b.outer() * b.inner];
    fold_blocks(x, &b, 0..b.outer(), &mut out, init, &f);
    out
}

/// [`reduce_window_raw`] on the team's threads (by output blocks; each
/// element's fold is the same whatever the split), for the monoids of the
/// jitted code's `reduce_window_*`.
pub(crate) fn reduce_window_par<T: Copy + Send + Sync>(
    x: &[T],
    spec: &WindowSpec,
    init: T,
    f: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    let b = Blocks::new(spec);
    let mut out = vec![init; b.outer() * b.inner];
    let taps: usize = b.window.iter().product();
    let rows = crate::__rt::par::rows_per_chunk(b.inner * taps.max(1));
    crate::__rt::par::for_each_rows(&mut out, b.inner, rows, |row0, chunk| {
        let n = chunk.len() / b.inner.max(1);
        fold_blocks(x, &b, row0..row0 + n, chunk, init, &f);
    });
    out
}

/// Calls `visit(block, taps, selected)` for each output block of `spec`,
/// `selected[c]` the operand offset of the element the window of the
/// block's element `c` selects, as XLA's `SelectAndScatter`: the first
/// tap's, replaced by each later one it does not `ge`-dominate (`le` when
/// `largest` is false): the first largest (smallest) element, a NaN where
/// the window has one. Windows of holes only are not visited.
fn each_selected<T: PartialOrd + Copy>(
    x: &[T],
    spec: &WindowSpec,
    largest: bool,
    mut visit: impl FnMut(usize, &[usize]),
) {
    let b = Blocks::new(spec);
    let inner = b.inner;
    let mut best: Vec<T> = Vec::with_capacity(inner);
    let mut sel = vec![0usize; inner];
    b.each(0..b.outer(), |block, taps| {
        let Some((&first, rest)) = taps.split_first() else {
            return;
        };
        best.clear();
        best.extend_from_slice(&x[first..first + inner]);
        sel.iter_mut().enumerate().for_each(|(c, s)| *s = first + c);
        for &t in rest {
            for (c, &v) in x[t..t + inner].iter().enumerate() {
                let keep = if largest { best[c] >= v } else { best[c] <= v };
                if !keep {
                    best[c] = v;
                    sel[c] = t + c;
                }
            }
        }
        visit(block * inner, &sel);
    });
}

/// `select_and_gather_add`: per window of `x`, the element of `t` where
/// `x` has its selected element (zero for a window of padding only).
pub(crate) fn select_and_gather_raw<T: Element + PartialOrd>(
    t: &[T],
    x: &[T],
    spec: &WindowSpec,
    largest: bool,
) -> Vec<T> {
    let mut out = vec![T::ZERO; spec.out_shape.iter().product()];
    each_selected(x, spec, largest, |at, sel| {
        for (o, &i) in out[at..at + sel.len()].iter_mut().zip(sel) {
            *o = t[i];
        }
    });
    out
}

/// `select_and_scatter_add`: each element of `source` (one per window of
/// `x`) added where `x` has that window's selected element; zeros elsewhere.
/// The additions run in the outputs' row-major order.
pub(crate) fn select_and_scatter_add_raw<T: Element + PartialOrd>(
    source: &[T],
    x: &[T],
    spec: &WindowSpec,
    largest: bool,
    add: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut out = vec![T::ZERO; x.len()];
    each_selected(x, spec, largest, |at, sel| {
        for (&i, &s) in sel.iter().zip(&source[at..at + sel.len()]) {
            out[i] = add(out[i], s);
        }
    });
    out
}

/// The leading axes no window crosses (window 1, stride 1, no padding or
/// dilation: a batch axis) as slabs: their count, and the window of one
/// slab. Slabs read and write disjoint parts of the operand and result.
fn slabs(spec: &WindowSpec) -> (usize, WindowSpec) {
    let mut j = 0;
    while j < spec.shape.len()
        && spec.window[j] == 1
        && spec.strides[j] == 1
        && spec.padding[j] == (0, 0)
        && spec.base_dilation[j] == 1
    {
        j += 1;
    }
    let sub = WindowSpec {
        shape: spec.shape[j..].to_vec(),
        window: spec.window[j..].to_vec(),
        strides: spec.strides[j..].to_vec(),
        padding: spec.padding[j..].to_vec(),
        base_dilation: spec.base_dilation[j..].to_vec(),
        window_dilation: spec.window_dilation[j..].to_vec(),
        out_shape: spec.out_shape[j..].to_vec(),
    };
    (spec.shape[..j].iter().product(), sub)
}

/// [`select_and_scatter_add_raw`] on the team's threads, slab by slab
/// (each slab's additions in the order of the one-thread form).
pub(crate) fn select_and_scatter_add_par<T: Element + PartialOrd>(
    source: &[T],
    x: &[T],
    spec: &WindowSpec,
    largest: bool,
    add: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    let (count, sub) = slabs(spec);
    let mut out = vec![T::ZERO; x.len()];
    if count <= 1 || x.is_empty() {
        return select_and_scatter_add_raw(source, x, spec, largest, add);
    }
    let (len, src_len) = (x.len() / count, source.len() / count);
    let taps: usize = sub.window.iter().product();
    let rows = crate::__rt::par::rows_per_chunk(src_len * taps.max(1));
    crate::__rt::par::for_each_rows(&mut out, len, rows, |s0, chunk| {
        for (k, slab) in chunk.chunks_exact_mut(len).enumerate() {
            let s = s0 + k;
            let src = &source[s * src_len..(s + 1) * src_len];
            each_selected(&x[s * len..(s + 1) * len], &sub, largest, |at, sel| {
                for (&i, &v) in sel.iter().zip(&src[at..at + sel.len()]) {
                    slab[i] = add(slab[i], v);
                }
            });
        }
    });
    out
}

/// [`select_and_gather_raw`] on the team's threads, slab by slab.
pub(crate) fn select_and_gather_par<T: Element + PartialOrd>(
    t: &[T],
    x: &[T],
    spec: &WindowSpec,
    largest: bool,
) -> Vec<T> {
    let (count, sub) = slabs(spec);
    let out_len: usize = spec.out_shape.iter().product();
    if count <= 1 || out_len == 0 {
        return select_and_gather_raw(t, x, spec, largest);
    }
    let mut out = vec![T::ZERO; out_len];
    let (len, slab_out) = (x.len() / count, out_len / count);
    let taps: usize = sub.window.iter().product();
    let rows = crate::__rt::par::rows_per_chunk(slab_out * taps.max(1));
    crate::__rt::par::for_each_rows(&mut out, slab_out, rows, |s0, chunk| {
        for (k, slab) in chunk.chunks_exact_mut(slab_out).enumerate() {
            let s = s0 + k;
            let (xs, ts) = (&x[s * len..(s + 1) * len], &t[s * len..(s + 1) * len]);
            each_selected(xs, &sub, largest, |at, sel| {
                for (o, &i) in slab[at..at + sel.len()].iter_mut().zip(sel) {
                    *o = ts[i];
                }
            });
        }
    });
    out
}

/// Checks a windowed reduction's result type and runs it with `f`.
#[track_caller]
pub(crate) fn reduce_window_eager<A, Out>(
    what: &str,
    operand: A,
    init: <A::Array as ArrayType>::Elem,
    spec: Result<WindowSpec, String>,
    f: impl Fn(
        <A::Array as ArrayType>::Elem,
        <A::Array as ArrayType>::Elem,
    ) -> <A::Array as ArrayType>::Elem,
) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
{
    let spec = spec.unwrap_or_else(|e| panic!("{e}"));
    let dtype = <<A::Array as ArrayType>::Elem as Element>::DTYPE;
    shape::check_result::<Out>(what, dtype, &spec.out_shape);
    Out::from_data(reduce_window_raw(operand.as_array().data(), &spec, init, f))
}

/// Windowed reduction (`jax.lax.reduce_window`): each output element is
/// `computation` folded over one window of `operand`, starting from
/// `init_value`; windows of `window_dimensions` move by `window_strides`
/// (`None`: 1) over the operand padded as `padding` says (`"VALID"`,
/// `"SAME"`, `"SAME_LOWER"`, or `(low, high)` pairs); padding adds nothing
/// to a window, and `init_value` counts once per window, as in JAX.
/// `computation` is a function of two scalar arrays: `lax::max`,
/// `lax::min`, `lax::add`, `lax::mul`, or a closure. See
/// [`reduce_window_dilated`] for dilations.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 4>::from([[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 8.0, 6.0]]);
/// // 2×2 max pooling.
/// let m: Array<f32, 1, 2> =
///     lax::reduce_window(&x, f32::NEG_INFINITY, lax::max, &[2, 2], Some(&[2, 2]), "VALID");
/// assert_eq!(m.to_vec(), [5.0, 8.0]);
/// ```
#[track_caller]
pub fn reduce_window<A, Out, F>(
    operand: A,
    init_value: <A::Array as ArrayType>::Elem,
    computation: F,
    window_dimensions: &[usize],
    window_strides: Option<&[usize]>,
    padding: impl Into<Padding>,
) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    F: Fn(
        crate::Array<<A::Array as ArrayType>::Elem>,
        crate::Array<<A::Array as ArrayType>::Elem>,
    ) -> crate::Array<<A::Array as ArrayType>::Elem>,
{
    reduce_window_dilated(
        operand,
        init_value,
        computation,
        window_dimensions,
        window_strides,
        padding,
        None,
        None,
    )
}

/// [`reduce_window`] with JAX's `base_dilation` (the operand's elements
/// spread apart, the holes adding nothing) and `window_dilation` (the
/// window's taps spread apart).
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 5>::from([1.0, 2.0, 3.0, 4.0, 5.0]);
/// // Sums of x[i] + x[i + 2].
/// let s: Array<f32, 3> =
///     lax::reduce_window_dilated(&x, 0.0, lax::add, &[2], None, "VALID", None, Some(&[2]));
/// assert_eq!(s.to_vec(), [4.0, 6.0, 8.0]);
/// ```
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn reduce_window_dilated<A, Out, F>(
    operand: A,
    init_value: <A::Array as ArrayType>::Elem,
    computation: F,
    window_dimensions: &[usize],
    window_strides: Option<&[usize]>,
    padding: impl Into<Padding>,
    base_dilation: Option<&[usize]>,
    window_dilation: Option<&[usize]>,
) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>,
    F: Fn(
        crate::Array<<A::Array as ArrayType>::Elem>,
        crate::Array<<A::Array as ArrayType>::Elem>,
    ) -> crate::Array<<A::Array as ArrayType>::Elem>,
{
    let spec = WindowSpec::new(
        <A::Array as ArrayType>::SHAPE,
        window_dimensions,
        window_strides,
        &padding.into(),
        base_dilation,
        window_dilation,
    );
    reduce_window_eager("reduce_window", operand, init_value, spec, |a, b| {
        computation(crate::Array::from(a), crate::Array::from(b)).item()
    })
}
