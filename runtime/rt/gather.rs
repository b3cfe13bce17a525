//! `gather` and the scatters of generated code with index arrays, as XLA
//! defines them (the index vector is the last axis of the indices). Bounds
//! are handled per mode, so no index ever reads or writes outside a buffer.

use crate::element::Element;
use crate::shape::{next_index as next, strides};

/// `GatherScatterMode.CLIP`: start indices clamp so the window fits.
pub const CLIP: u8 = 0;
/// `GatherScatterMode.FILL_OR_DROP`: a window out of bounds gathers the fill
/// value, or drops its update.
pub const FILL_OR_DROP: u8 = 1;
/// `GatherScatterMode.PROMISE_IN_BOUNDS`: as XLA's CPU backend, gathers
/// clamp and scatters drop a window out of bounds.
pub const PROMISE_IN_BOUNDS: u8 = 2;

/// A gather's or scatter's dimension numbers (JAX's names, scatter's in
/// brackets): `offset` (`update_window_dims`) are the result's (update's)
/// window axes, `collapsed` (`inserted_window_dims`) the operand's axes of
/// size-1 windows absent from the result, `index_map`
/// (`scatter_dims_to_operand_dims`) the operand axis of each index
/// component, and `operand_batching`/`indices_batching` the axes the operand
/// and the indices share.
pub struct Dims<'a> {
    pub offset: &'a [usize],
    pub collapsed: &'a [usize],
    pub index_map: &'a [usize],
    pub operand_batching: &'a [usize],
    pub indices_batching: &'a [usize],
}

/// A fused point gather's index component (see the compiler's
/// `fuse::PointGather`) clamped into an axis of `n >= 1` elements.
#[inline(always)]
pub fn clamp(i: i64, n: usize) -> usize {
    i.clamp(0, n as i64 - 1) as usize
}

/// Whether a fused point gather's index component is within an axis of
/// `n` elements (its `fill` mode).
#[inline(always)]
pub fn within(i: i64, n: usize) -> bool {
    i >= 0 && (i as u64) < n as u64
}

#[inline(always)]
fn index_of<I: Element>(i: I) -> i64 {
    match i.to_value() {
        crate::element::Value::Int(v) => v.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        crate::element::Value::Bool(b) => b as i64,
        crate::element::Value::Float(f) => f as i64,
    }
}

/// The row-major operand position of a window's start: from the index
/// vector at `batch` (the indices' position without the vector axis), then
/// its batching axes; `None` when a window does not fit and `clamp` is
/// false.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn window_start<I: Element>(
    shape: &[usize],
    strides: &[usize],
    window: &[usize],
    indices: &[I],
    idx_strides: &[usize],
    batch: &[usize],
    dims: &Dims<'_>,
    clamp: bool,
) -> Option<usize> {
    let base: usize = batch.iter().zip(idx_strides).map(|(i, s)| i * s).sum();
    let last = idx_strides.len() - 1;
    let mut start = 0usize;
    for (k, &d) in dims.index_map.iter().enumerate() {
        let i = index_of(indices[base + k * idx_strides[last]]);
        let hi = shape[d] as i64 - window[d] as i64;
        let at = if clamp {
            i.clamp(0, hi.max(0)) as usize
        } else if i < 0 || i > hi {
            return None;
        } else {
            i as usize
        };
        start += at * strides[d];
    }
    for (&od, &id) in dims.operand_batching.iter().zip(dims.indices_batching) {
        start += batch[id] * strides[od];
    }
    Some(start)
}

/// The row-major position of the one element an index vector names (all
/// windows of one element, no batching axes): clamped into bounds, or
/// `None` out of bounds when `clamp` is false.
#[inline(always)]
fn point<I: Element>(
    shape: &[usize],
    strides: &[usize],
    vector: &[I],
    index_map: &[usize],
    clamp: bool,
) -> Option<usize> {
    let mut at = 0usize;
    for (&i, &d) in vector.iter().zip(index_map) {
        let i = index_of(i);
        let hi = shape[d] as i64 - 1;
        let i = if clamp {
            i.clamp(0, hi.max(0))
        } else if i < 0 || i > hi {
            return None;
        } else {
            i
        };
        at += i as usize * strides[d];
    }
    Some(at)
}

/// Where each window starts in the row-major operand, for every position of
/// the indices' batch axes (row-major): `None` where a window does not fit
/// and `clamp` is false.
fn window_starts<I: Element>(
    shape: &[usize],
    window: &[usize],
    indices: &[I],
    idx_shape: &[usize],
    dims: &Dims<'_>,
    clamp: bool,
) -> Vec<Option<usize>> {
    let xs = strides(shape);
    let is = strides(idx_shape);
    let batch_shape = &idx_shape[..idx_shape.len() - 1];
    let n: usize = batch_shape.iter().product();
    let mut out = Vec::with_capacity(n);
    if dims.operand_batching.is_empty() {
        // Index vectors are contiguous (the last axis) and nothing else of
        // the batch position is needed: vector `p` starts at `p * len`.
        let len = idx_shape[idx_shape.len() - 1];
        let row = [len, 1];
        for p in 0..n {
            out.push(window_start(
                shape,
                &xs,
                window,
                indices,
                &row,
                &[p],
                dims,
                clamp,
            ));
        }
        return out;
    }
    let mut at = vec![0usize; batch_shape.len()];
    for _ in 0..n {
        out.push(window_start(
            shape, &xs, window, indices, &is, &at, dims, clamp,
        ));
        next(&mut at, batch_shape);
    }
    out
}

/// The most operand axes the one-window paths handle (on the stack).
const SMALL_RANK: usize = 8;

/// The operand's row-major strides and a window's size on each operand
/// axis, on the stack: for one window of an operand of at most
/// [`SMALL_RANK`] axes.
struct OneWindow {
    strides: [usize; SMALL_RANK],
    window: [usize; SMALL_RANK],
    rank: usize,
}

impl OneWindow {
    /// `None` unless the indices hold a single index vector, there are no
    /// batching axes and the operand has at most [`SMALL_RANK`] axes: then
    /// the gather or scatter is one window (`x[t]`, `x.at[t].set(row)` with
    /// a traced `t`), read or written row by row without the general
    /// path's index tables, whose allocations were most of a small
    /// program's loop step.
    fn of(
        shape: &[usize],
        idx_shape: &[usize],
        dims: &Dims<'_>,
        window_of: impl Fn(usize) -> usize,
    ) -> Option<OneWindow> {
        let rank = shape.len();
        let vectors: usize = idx_shape[..idx_shape.len().saturating_sub(1)]
            .iter()
            .product();
        if rank == 0 || rank > SMALL_RANK || vectors != 1 || !dims.operand_batching.is_empty() {
            return None;
        }
        let mut w = OneWindow {
            strides: [0; SMALL_RANK],
            window: [1; SMALL_RANK],
            rank,
        };
        let mut s = 1;
        for d in (0..rank).rev() {
            w.strides[d] = s;
            s *= shape[d];
            w.window[d] = window_of(d);
        }
        Some(w)
    }

    /// Where the window starts (see [`window_start`]).
    fn start<I: Element>(
        &self,
        shape: &[usize],
        indices: &[I],
        dims: &Dims<'_>,
        clamp: bool,
    ) -> Option<usize> {
        let r = self.rank;
        window_start(
            shape,
            &self.strides[..r],
            &self.window[..r],
            indices,
            &[1],
            &[],
            dims,
            clamp,
        )
    }

    /// `f(operand position, window position)` for each row of the window
    /// (its last axis, `self.window[rank - 1]` elements), in row-major order.
    fn rows(&self, start: usize, mut f: impl FnMut(usize, usize)) {
        let r = self.rank;
        let inner = self.window[r - 1];
        let n: usize = self.window[..r].iter().product();
        if inner == 0 || n == 0 {
            return;
        }
        let mut at = [0usize; SMALL_RANK];
        for row in 0..n / inner {
            let o: usize = (0..r - 1).map(|d| at[d] * self.strides[d]).sum();
            f(start + o, row * inner);
            for d in (0..r - 1).rev() {
                at[d] += 1;
                if at[d] < self.window[d] {
                    break;
                }
                at[d] = 0;
            }
        }
    }

    fn inner(&self) -> usize {
        self.window[self.rank - 1]
    }
}

/// For each axis of a gather's result (a scatter's updates): its stride in
/// the indices' batch positions (a batch axis) and in the operand (a
/// window axis).
fn axis_strides(
    rank: usize,
    shape: &[usize],
    idx_shape: &[usize],
    dims: &Dims<'_>,
) -> (Vec<usize>, Vec<usize>) {
    let xs = strides(shape);
    let bs = strides(&idx_shape[..idx_shape.len() - 1]);
    let window_axes: Vec<usize> = (0..shape.len())
        .filter(|d| !dims.collapsed.contains(d) && !dims.operand_batching.contains(d))
        .collect();
    let (mut batch, mut window) = (vec![0; rank], vec![0; rank]);
    let mut b = 0;
    for k in 0..rank {
        match dims.offset.iter().position(|&o| o == k) {
            Some(w) => window[k] = xs[window_axes[w]],
            None => {
                batch[k] = bs[b];
                b += 1;
            }
        }
    }
    (batch, window)
}

/// `lax.gather` of a row-major operand: the result (`out_shape`, row-major)
/// from the operand, `indices` (last axis the index vector), `dims`, the
/// window on each operand axis (`slice_sizes`) and a mode.
#[allow(clippy::too_many_arguments)]
pub fn gather<T: Element, I: Element>(
    x: &[T],
    shape: &[usize],
    indices: &[I],
    idx_shape: &[usize],
    dims: Dims<'_>,
    slice_sizes: &[usize],
    out_shape: &[usize],
    mode: u8,
    fill: T,
) -> Vec<T> {
    let n: usize = out_shape.iter().product();
    if dims.offset.is_empty() && dims.operand_batching.is_empty() {
        // Single elements (`x[ix, iy]`): each index vector names one.
        let xs = strides(shape);
        let k = dims.index_map.len();
        let clamp = mode != FILL_OR_DROP;
        return (0..n)
            .map(|p| {
                point(
                    shape,
                    &xs,
                    &indices[p * k..p * k + k],
                    dims.index_map,
                    clamp,
                )
                .map_or(fill, |at| x[at])
            })
            .collect();
    }
    if !dims.offset.is_empty()
        && let Some(w) = OneWindow::of(shape, idx_shape, &dims, |d| slice_sizes[d])
    {
        let Some(start) = w.start(shape, indices, &dims, mode != FILL_OR_DROP) else {
            return vec![fill; n];
        };
        let mut out = Vec::with_capacity(n);
        let inner = w.inner();
        w.rows(start, |o, _| out.extend_from_slice(&x[o..o + inner]));
        return out;
    }
    let starts = window_starts(
        shape,
        slice_sizes,
        indices,
        idx_shape,
        &dims,
        mode != FILL_OR_DROP,
    );
    if dims.offset.is_empty() {
        // No window axes (`x[ix, iy]`): the result's axes are the indices'
        // batch axes in order, so result element `k` is window `k`'s one
        // element.
        return starts
            .iter()
            .take(n)
            .map(|s| s.map_or(fill, |s| x[s]))
            .collect();
    }
    let (bstride, wstride) = axis_strides(out_shape.len(), shape, idx_shape, &dims);
    let mut out = Vec::with_capacity(n);
    let mut at = vec![0usize; out_shape.len()];
    for _ in 0..n {
        let b: usize = at.iter().zip(&bstride).map(|(i, s)| i * s).sum();
        out.push(match starts[b] {
            None => fill,
            Some(start) => {
                let w: usize = at.iter().zip(&wstride).map(|(i, s)| i * s).sum();
                x[start + w]
            }
        });
        next(&mut at, out_shape);
    }
    out
}

/// A scatter into `out` (the operand's row-major copy): each update element
/// combined (`combine(old, update)`; `set` passes `|_, u| u`) into the
/// element its index and window position name. Updates apply in row-major
/// order, so with duplicate indices the last `set` wins and the combining
/// forms accumulate. A window out of bounds is dropped, except under
/// [`CLIP`], which clamps it into bounds.
#[allow(clippy::too_many_arguments)]
pub fn scatter<T: Element, I: Element>(
    out: &mut [T],
    shape: &[usize],
    indices: &[I],
    idx_shape: &[usize],
    updates: &[T],
    upd_shape: &[usize],
    dims: Dims<'_>,
    mode: u8,
    combine: impl Fn(T, T) -> T,
) {
    if dims.offset.is_empty() && dims.operand_batching.is_empty() {
        // Single elements: each update goes where its index vector says.
        let xs = strides(shape);
        let k = dims.index_map.len();
        let n: usize = upd_shape.iter().product();
        for (p, &u) in updates.iter().take(n).enumerate() {
            let at = point(
                shape,
                &xs,
                &indices[p * k..p * k + k],
                dims.index_map,
                mode == CLIP,
            );
            if let Some(o) = at {
                out[o] = combine(out[o], u);
            }
        }
        return;
    }
    // The window's size on operand axis `d`: 1 on an inserted axis, else
    // the update's along the next of its window axes.
    let window_of = |d: usize| match dims.collapsed.contains(&d) {
        true => 1,
        false => upd_shape[dims.offset[(0..d).filter(|e| !dims.collapsed.contains(e)).count()]],
    };
    if let Some(w) = OneWindow::of(shape, idx_shape, &dims, window_of) {
        if let Some(start) = w.start(shape, indices, &dims, mode == CLIP) {
            let inner = w.inner();
            w.rows(start, |o, u| {
                for (x, &v) in out[o..o + inner].iter_mut().zip(&updates[u..u + inner]) {
                    *x = combine(*x, v);
                }
            });
        }
        return;
    }
    let window_axes: Vec<usize> = (0..shape.len())
        .filter(|d| !dims.collapsed.contains(d) && !dims.operand_batching.contains(d))
        .collect();
    // The window's size on each operand axis: 1 on inserted and batching
    // axes, the update's on the others.
    let mut window = vec![1usize; shape.len()];
    for (&u, &d) in dims.offset.iter().zip(&window_axes) {
        window[d] = upd_shape[u];
    }
    let starts = window_starts(shape, &window, indices, idx_shape, &dims, mode == CLIP);
    let (bstride, wstride) = axis_strides(upd_shape.len(), shape, idx_shape, &dims);
    let n: usize = upd_shape.iter().product();
    let mut at = vec![0usize; upd_shape.len()];
    for &u in updates.iter().take(n) {
        let b: usize = at.iter().zip(&bstride).map(|(i, s)| i * s).sum();
        if let Some(start) = starts[b] {
            let o = start + at.iter().zip(&wstride).map(|(i, s)| i * s).sum::<usize>();
            out[o] = combine(out[o], u);
        }
        next(&mut at, upd_shape);
    }
}

/// The value a `FILL_OR_DROP` gather reads out of bounds: the given one, or
/// JAX's default (NaN, the integer minimum, the unsigned maximum, `true`).
pub fn fill_value<T: Element>(given: Option<f64>) -> T {
    match given {
        Some(v) => T::from_f64(v),
        None => crate::index::default_fill::<T>(),
    }
}
