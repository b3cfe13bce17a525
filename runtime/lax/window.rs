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

/// Calls `visit(output, taps)` for each output element of `spec` in
/// row-major order, `taps` the flat indices of the operand elements its
/// window covers in row-major window order, padding and dilation holes
/// left out (XLA's CPU kernels skip them).
fn each_window(spec: &WindowSpec, mut visit: impl FnMut(usize, &[usize])) {
    let rank = spec.shape.len();
    let strides = shape::strides(&spec.shape);
    let reads = spec.reads();
    let out_len: usize = spec.out_shape.iter().product();
    let taps: usize = spec.window.iter().product();
    let mut found = Vec::with_capacity(taps);
    let mut o = vec![0usize; rank];
    let mut w = vec![0usize; rank];
    for out in 0..out_len {
        found.clear();
        w.iter_mut().for_each(|v| *v = 0);
        for _ in 0..taps {
            let mut at = Some(0);
            for d in 0..rank {
                at = match (at, reads[d][o[d] * spec.window[d] + w[d]]) {
                    (Some(a), Some(i)) => Some(a + i * strides[d]),
                    _ => None,
                };
            }
            if let Some(a) = at {
                found.push(a);
            }
            step(&mut w, &spec.window);
        }
        visit(out, &found);
        step(&mut o, &spec.out_shape);
    }
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
    let mut out = Vec::with_capacity(spec.out_shape.iter().product());
    each_window(spec, |_, taps| {
        out.push(taps.iter().fold(init, |acc, &i| f(acc, x[i])));
    });
    out
}

/// The tap each window selects, as XLA's `SelectAndScatter`: the first
/// element, replaced by each later one it does not `ge`-dominate (`le`
/// when `largest` is false): the first largest (smallest) element, a NaN
/// where the window has one.
fn selected<T: PartialOrd + Copy>(x: &[T], taps: &[usize], largest: bool) -> Option<usize> {
    let (&first, rest) = taps.split_first()?;
    Some(rest.iter().fold(first, |sel, &i| {
        let keep = if largest {
            x[sel] >= x[i]
        } else {
            x[sel] <= x[i]
        };
        if keep {
            sel
        } else {
            i
        }
    }))
}

/// `select_and_gather_add`: per window of `x`, the element of `t` where
/// `x` has its selected element (zero for a window of padding only).
pub(crate) fn select_and_gather_raw<T: Element + PartialOrd>(
    t: &[T],
    x: &[T],
    spec: &WindowSpec,
    largest: bool,
) -> Vec<T> {
    let mut out = Vec::with_capacity(spec.out_shape.iter().product());
    each_window(spec, |_, taps| {
        out.push(selected(x, taps, largest).map_or(T::ZERO, |i| t[i]));
    });
    out
}

/// `select_and_scatter_add`: each element of `source` (one per window of
/// `x`) added where `x` has that window's selected element; zeros elsewhere.
pub(crate) fn select_and_scatter_add_raw<T: Element + PartialOrd>(
    source: &[T],
    x: &[T],
    spec: &WindowSpec,
    largest: bool,
    add: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut out = vec![T::ZERO; x.len()];
    each_window(spec, |o, taps| {
        if let Some(i) = selected(x, taps, largest) {
            out[i] = add(out[i], source[o]);
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
