//! Slicing and structural primitives, as `jax.lax`: `slice`,
//! `dynamic_slice`, `dynamic_update_slice`, `broadcast_in_dim`, `pad`, `rev`,
//! and the strict forms of reshape, transpose, concatenate, squeeze and expand_dims.
//!
//! As in XLA, dynamic slices never go out of bounds: their start indices are
//! clamped so that the slice fits (after negative indices are counted from
//! the end, as JAX does).

use crate::array::{ArrayType, AsArray};
use crate::element::Element;
use crate::index::IndexInt;
use crate::shape;
use crate::shape::{finish, size_of, ConstMsg};

use crate::array::ElemOf;

/// Whether every axis of `part` fits in `whole` (same rank).
const fn fits(part: &[usize], whole: &[usize]) -> bool {
    if part.len() != whole.len() {
        return false;
    }
    let mut k = 0;
    while k < part.len() {
        if part[k] > whole[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// Start positions clamped so that a window of `sizes` fits in `shape`.
fn clamp_starts<I: IndexInt>(
    op: &str,
    starts: &[I],
    shape: &[usize],
    sizes: &[usize],
) -> Vec<usize> {
    assert!(
        starts.len() == shape.len(),
        "{op}: {} start indices for an array of dimension {}",
        starts.len(),
        shape.len()
    );
    starts
        .iter()
        .zip(shape.iter().zip(sizes))
        .map(|(&s, (&len, &size))| {
            let s = s.to_i64();
            let s = if s < 0 { s + len as i64 } else { s };
            s.clamp(0, (len - size) as i64) as usize
        })
        .collect()
}

/// Calls `f(src_offset, window_offset)` for every element of a window of
/// `sizes` at `starts` in an array of `shape`, one contiguous row at a time
/// (`f` gets the row length as third argument).
fn for_window_rows(
    shape: &[usize],
    starts: &[usize],
    sizes: &[usize],
    mut f: impl FnMut(usize, usize, usize),
) {
    let rank = shape.len();
    if rank == 0 {
        return f(0, 0, 1);
    }
    if sizes.contains(&0) {
        return;
    }
    let strides = shape::strides(shape);
    let row = sizes[rank - 1];
    let rows: usize = sizes[..rank - 1].iter().product();
    let mut counter = vec![0usize; rank - 1];
    for r in 0..rows {
        let off: usize = (0..rank)
            .map(|k| (starts[k] + if k < rank - 1 { counter[k] } else { 0 }) * strides[k])
            .sum();
        f(off, r * row, row);
        for k in (0..rank - 1).rev() {
            counter[k] += 1;
            if counter[k] < sizes[k] {
                break;
            }
            counter[k] = 0;
        }
    }
}

/// The window of `sizes` at `starts` (negative ones counted from the end,
/// then clamped so the window fits) of row-major `data` of `shape`: the
/// one implementation of `dynamic_slice` on data, for the `_in_dim` forms.
pub(crate) fn dynamic_slice_data<T: Copy>(
    op: &str,
    data: &[T],
    shape: &[usize],
    starts: &[i64],
    sizes: &[usize],
) -> Vec<T> {
    let starts = clamp_starts(op, starts, shape, sizes);
    let mut out = Vec::with_capacity(sizes.iter().product());
    for_window_rows(shape, &starts, sizes, |off, _, n| {
        out.extend_from_slice(&data[off..off + n])
    });
    out
}

/// Writes `update` (of `sizes`) into row-major `data` of `shape` at
/// `starts` (negative ones counted from the end, then clamped so the update
/// fits): the one implementation of `dynamic_update_slice` on data, for the
/// `_in_dim` forms and the jitted kernel.
pub(crate) fn dynamic_update_slice_data<T: Copy>(
    op: &str,
    data: &mut [T],
    shape: &[usize],
    update: &[T],
    sizes: &[usize],
    starts: &[i64],
) {
    let starts = clamp_starts(op, starts, shape, sizes);
    for_window_rows(shape, &starts, sizes, |off, uoff, n| {
        data[off..off + n].copy_from_slice(&update[uoff..uoff + n])
    });
}

/// A window of the result type's shape starting at `start_indices`
/// (`lax.dynamic_slice`; the slice sizes are the result's shape). Starts are
/// clamped so the window fits, as XLA does; negative starts count from the end.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 10> = Array::arange();
/// let y: Array<f32, 3> = lax::dynamic_slice(&x, &[8]);
/// assert_eq!(y.to_vec(), [7.0, 8.0, 9.0]);
/// ```
///
/// A window larger than the array does not compile:
///
/// ```compile_fail
/// use jax::prelude::*;
/// let x: Array<f32, 10> = Array::arange();
/// let y: Array<f32, 11> = lax::dynamic_slice(&x, &[0]);
/// ```
pub fn dynamic_slice<Out, A, I>(x: A, start_indices: &[I]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
    I: IndexInt,
{
    const {
        let (src, dst) = (<A::Array as ArrayType>::SHAPE, Out::SHAPE);
        if !fits(dst, src) {
            let d = <ElemOf<A> as Element>::DTYPE;
            let m = ConstMsg::new().str("dynamic_slice: a slice ").ty(d, dst);
            let m = m.str(" does not fit in ").ty(d, src);
            panic!("{}", m.as_str());
        }
    }
    let src = <A::Array as ArrayType>::SHAPE;
    let starts = clamp_starts("dynamic_slice", start_indices, src, Out::SHAPE);
    let x = x.as_array();
    let data = x.data();
    let mut out = Vec::with_capacity(Out::SIZE);
    for_window_rows(src, &starts, Out::SHAPE, |off, _, n| {
        out.extend_from_slice(&data[off..off + n])
    });
    Out::from_data(out).set_weak(x.is_weak())
}

/// `x` with `update` written at `start_indices` (`lax.dynamic_update_slice`).
/// Starts are clamped so the update fits; negative starts count from the end.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 5> = Array::zeros();
/// let y = lax::dynamic_update_slice(x, Array::<f32, 2>::ones(), &[4]);
/// assert_eq!(y.to_vec(), [0.0, 0.0, 0.0, 1.0, 1.0]);
/// ```
pub fn dynamic_update_slice<A, U, I>(x: A, update: U, start_indices: &[I]) -> A::Array
where
    A: AsArray,
    U: AsArray,
    U::Array: ArrayType<Elem = ElemOf<A>>,
    I: IndexInt,
{
    const {
        let (src, upd) = (
            <A::Array as ArrayType>::SHAPE,
            <U::Array as ArrayType>::SHAPE,
        );
        if !fits(upd, src) {
            let d = <ElemOf<A> as Element>::DTYPE;
            let m = ConstMsg::new()
                .str("dynamic_update_slice: an update ")
                .ty(d, upd);
            let m = m.str(" does not fit in ").ty(d, src);
            panic!("{}", m.as_str());
        }
    }
    let src = <A::Array as ArrayType>::SHAPE;
    let sizes = <U::Array as ArrayType>::SHAPE;
    let starts = clamp_starts("dynamic_update_slice", start_indices, src, sizes);
    let x = x.into_array();
    let weak = x.is_weak();
    let u = update.as_array().data();
    let mut data = x.data().to_vec();
    for_window_rows(src, &starts, sizes, |off, uoff, n| {
        data[off..off + n].copy_from_slice(&u[uoff..uoff + n])
    });
    <A::Array as ArrayType>::from_data(data).set_weak(weak)
}

/// Broadcasts to the result type's shape, input axis `k` going to result
/// axis `broadcast_dimensions[k]` (`lax.broadcast_in_dim`). Each input axis
/// must have length 1 or the length of its result axis, and the dimensions
/// must be strictly increasing.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 2>::from([1, 2]);
/// let y: Array<i32, 2, 3> = lax::broadcast_in_dim(&x, &[0]);
/// assert_eq!(y.to_vec(), [1, 1, 1, 2, 2, 2]);
/// ```
#[track_caller]
pub fn broadcast_in_dim<Out, A>(x: A, broadcast_dimensions: &[usize]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let src = <A::Array as ArrayType>::SHAPE;
    let dst = Out::SHAPE;
    let ok = broadcast_dimensions.len() == src.len()
        && broadcast_dimensions.windows(2).all(|w| w[0] < w[1])
        && broadcast_dimensions
            .iter()
            .zip(src)
            .all(|(&d, &s)| d < dst.len() && (s == 1 || s == dst[d]));
    assert!(
        ok,
        "broadcast_in_dim: cannot broadcast {} to {} with broadcast_dimensions={broadcast_dimensions:?}",
        shape::type_string(<ElemOf<A> as Element>::DTYPE, src),
        shape::type_string(<ElemOf<A> as Element>::DTYPE, dst),
    );
    // Place the input's axes at their result positions (1 elsewhere), then broadcast.
    let mut placed = vec![1; dst.len()];
    for (&d, &s) in broadcast_dimensions.iter().zip(src) {
        placed[d] = s;
    }
    let idx = shape::broadcast_indices(&placed, dst);
    let x = x.as_array();
    let data = x.data();
    Out::from_data(idx.iter().map(|&i| data[i]).collect()).set_weak(x.is_weak())
}

/// The elements from `start_indices` up to `limit_indices` (exclusive) with
/// optional `strides` (`lax.slice`). Unlike `x.slice(s![..])`, the bounds
/// must be in range.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 3, 4> = Array::arange();
/// let y: Array<i32, 2, 2> = lax::slice(&x, &[1, 0], &[3, 4], Some(&[1, 2]));
/// assert_eq!(y.to_vec(), [4, 6, 8, 10]);
/// ```
#[track_caller]
pub fn slice<Out, A>(
    x: A,
    start_indices: &[usize],
    limit_indices: &[usize],
    strides: Option<&[usize]>,
) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let src = <A::Array as ArrayType>::SHAPE;
    let rank = src.len();
    let ones = vec![1; rank];
    let strides = strides.unwrap_or(&ones);
    assert!(
        start_indices.len() == rank && limit_indices.len() == rank && strides.len() == rank,
        "slice: start_indices, limit_indices and strides must have one entry per axis of {src:?}"
    );
    let mut items = Vec::with_capacity(rank);
    let mut out = Vec::with_capacity(rank);
    for k in 0..rank {
        let (a, b, s) = (start_indices[k], limit_indices[k], strides[k]);
        assert!(
            a <= b && b <= src[k] && s > 0,
            "slice: invalid bounds start={start_indices:?}, limit={limit_indices:?}, strides={strides:?} for shape {src:?}"
        );
        out.push((b - a).div_ceil(s));
        items.push(crate::index::IndexItem::Slice(crate::index::Slice {
            start: Some(a as i64),
            end: Some(b as i64),
            step: s as i64,
        }));
    }
    shape::check_result::<Out>("slice", <ElemOf<A> as Element>::DTYPE, &out);
    let spec = crate::index::IndexSpec(items);
    crate::index::gather_impl(
        x.as_array(),
        &spec,
        "slice",
        crate::index::Mode::Clip,
        <ElemOf<A> as Element>::ZERO,
    )
}

/// Pads with `padding_value`: `(low, high, interior)` per axis, as
/// `lax.pad`. Negative `low`/`high` remove elements; `interior` inserts
/// that many values between neighbours.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<i32, 3>::from([1, 2, 3]);
/// let y: Array<i32, 7> = lax::pad(&x, 0, &[(1, 1, 1)]);
/// assert_eq!(y.to_vec(), [0, 1, 0, 2, 0, 3, 0]);
/// let z: Array<i32, 2> = lax::pad(&x, 0, &[(-1, 0, 0)]);
/// assert_eq!(z.to_vec(), [2, 3]);
/// ```
#[track_caller]
pub fn pad<Out, A>(x: A, padding_value: ElemOf<A>, padding_config: &[(i64, i64, i64)]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let src = <A::Array as ArrayType>::SHAPE;
    assert!(
        padding_config.len() == src.len(),
        "pad: padding_config has {} entries for an array of dimension {}",
        padding_config.len(),
        src.len()
    );
    let out: Vec<usize> = src
        .iter()
        .zip(padding_config)
        .map(|(&n, &(lo, hi, interior))| {
            assert!(
                interior >= 0,
                "pad: interior padding must be non-negative, got {interior}"
            );
            let n = n as i64;
            let len = lo + hi + n + (n - 1).max(0) * interior;
            assert!(
                len >= 0,
                "pad: the padded axis would have negative length {len}"
            );
            len as usize
        })
        .collect();
    shape::check_result::<Out>("pad", <ElemOf<A> as Element>::DTYPE, &out);
    let x = x.as_array();
    let result = crate::__rt::pad(x.data(), src, padding_config, padding_value);
    Out::from_data(result).set_weak(x.is_weak())
}

/// Reverses the order of elements along each of `dimensions` (`lax.rev`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 2> = Array::arange();
/// assert_eq!(lax::rev(&x, &[0, 1]).to_vec(), [3, 2, 1, 0]);
/// ```
pub fn rev<A: AsArray>(x: A, dimensions: &[usize]) -> A::Array {
    let mut y = x.into_array();
    for &d in dimensions {
        let rank = <A::Array as ArrayType>::SHAPE.len();
        assert!(
            d < rank,
            "rev: dimension {d} is out of bounds for an array of rank {rank}"
        );
        y = flip_axis(&y, d);
    }
    y
}

/// `x` with the order of its elements along `axis` reversed.
pub(crate) fn flip_axis<X: ArrayType>(x: &X, a: usize) -> X {
    let data = x.data();
    let len = X::SHAPE[a];
    let inner: usize = X::SHAPE[a + 1..].iter().product();
    let mut out = Vec::with_capacity(data.len());
    for block in data.chunks_exact((len * inner).max(1)) {
        for i in (0..len).rev() {
            out.extend_from_slice(&block[i * inner..(i + 1) * inner]);
        }
    }
    X::from_data(out).set_weak(x.is_weak())
}

/// The same elements with the result type's shape (`lax.reshape`), the size
/// checked when the crate compiles.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 2, 3> = Array::arange();
/// let y: Array<f32, 6> = lax::reshape(&x);
/// assert_eq!(y.to_vec(), x.to_vec());
/// ```
pub fn reshape<Out, A>(x: A) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    const {
        let (src, dst) = (<A::Array as ArrayType>::SHAPE, Out::SHAPE);
        if size_of(src) != size_of(dst) {
            let d = <ElemOf<A> as Element>::DTYPE;
            let m = ConstMsg::new().str("reshape: cannot reshape ").ty(d, src);
            let m = m.str(" into ").ty(d, dst).str(": the sizes differ");
            panic!("{}", m.as_str());
        }
    }
    let x = x.into_array();
    Out::from_data(x.data().to_vec()).set_weak(x.is_weak())
}

/// Permutes the axes: result axis `k` is input axis `permutation[k]` (`lax.transpose`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// let y: Array<i32, 3, 2> = lax::transpose(&x, &[1, 0]);
/// assert_eq!(y.to_vec(), [0, 3, 1, 4, 2, 5]);
/// ```
#[track_caller]
pub fn transpose<Out, A>(x: A, permutation: &[usize]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let src = <A::Array as ArrayType>::SHAPE;
    let mut seen = vec![false; src.len()];
    let valid = permutation.len() == src.len()
        && permutation
            .iter()
            .all(|&p| p < src.len() && !std::mem::replace(&mut seen[p], true));
    assert!(
        valid,
        "transpose: permutation {permutation:?} is not a permutation of the axes of an array of rank {}",
        src.len()
    );
    let shape: Vec<usize> = permutation.iter().map(|&p| src[p]).collect();
    let x = x.as_array();
    let data = crate::lax::permute(x.data(), src, permutation);
    finish("transpose", &shape, data, x.is_weak())
}

/// Joins arrays along `dimension` (`lax.concatenate`).
///
/// ```
/// use jax::prelude::*;
/// let a = Array::<i32, 1, 2>::from([[1, 2]]);
/// let c: Array<i32, 2, 2> = lax::concatenate(&[&a, &a], 0);
/// assert_eq!(c.to_vec(), [1, 2, 1, 2]);
/// ```
#[track_caller]
pub fn concatenate<Out, L>(operands: L, dimension: usize) -> Out
where
    L: ArrayList,
    Out: ArrayType<Elem = L::Elem>,
{
    let arrays = operands;
    let parts = arrays.parts();
    assert!(
        !parts.is_empty(),
        "concatenate: {}",
        jax_dtypes::checks::NOTHING_TO_CONCATENATE
    );
    let rank = parts[0].0.len();
    assert!(
        rank > 0,
        "concatenate: zero-dimensional arrays cannot be concatenated"
    );
    let a = dimension;
    assert!(
        a < rank,
        "concatenate: dimension {a} is out of bounds for arrays of rank {rank}"
    );
    let mut out = parts[0].0.to_vec();
    out[a] = 0;
    for (s, _, _) in &parts {
        let same = s.len() == rank && (0..rank).all(|k| k == a || s[k] == parts[0].0[k]);
        assert!(
            same,
            "concatenate: all input array dimensions other than the specified axis must match exactly, got {:?} and {:?}",
            parts[0].0, s
        );
        out[a] += s[a];
    }
    let raw: Vec<(&[usize], &[L::Elem])> = parts.iter().map(|(s, d, _)| (*s, *d)).collect();
    let data = crate::__rt::layout::concatenate_raw(&raw, a);
    let weak = parts.iter().all(|p| p.2);
    finish("concatenate", &out, data, weak)
}

/// One array of an [`ArrayList`]: its shape, row-major data and weak flag.
pub type Part<'a, T> = (&'static [usize], &'a [T], bool);

/// A list of arrays with one element type, for [`concatenate`] and
/// [`jnp::stack`](crate::jnp::stack): a slice, array or `Vec` of arrays of one type, or a tuple of up
/// to four arrays of different shapes.
pub trait ArrayList {
    /// The common element type.
    type Elem: Element;
    /// Each array's shape, data and weak flag.
    fn parts(&self) -> Vec<Part<'_, Self::Elem>>;
}

fn part<A: AsArray>(a: &A) -> Part<'_, ElemOf<A>> {
    let x = a.as_array();
    (<A::Array as ArrayType>::SHAPE, x.data(), x.is_weak())
}

impl<A: AsArray> ArrayList for &[A] {
    type Elem = ElemOf<A>;
    fn parts(&self) -> Vec<Part<'_, Self::Elem>> {
        self.iter().map(part).collect()
    }
}
impl<A: AsArray, const N: usize> ArrayList for [A; N] {
    type Elem = ElemOf<A>;
    fn parts(&self) -> Vec<Part<'_, Self::Elem>> {
        self.iter().map(part).collect()
    }
}
impl<A: AsArray, const N: usize> ArrayList for &[A; N] {
    type Elem = ElemOf<A>;
    fn parts(&self) -> Vec<Part<'_, Self::Elem>> {
        self.iter().map(part).collect()
    }
}
impl<A: AsArray> ArrayList for Vec<A> {
    type Elem = ElemOf<A>;
    fn parts(&self) -> Vec<Part<'_, Self::Elem>> {
        self.iter().map(part).collect()
    }
}
macro_rules! impl_tuple_list {
    ($first:ident $(, $name:ident)*) => {
        impl<$first: AsArray $(, $name: AsArray)*> ArrayList for ($first, $($name,)*)
        where
            $($name::Array: ArrayType<Elem = ElemOf<$first>>,)*
        {
            type Elem = ElemOf<$first>;
            #[allow(non_snake_case)]
            fn parts(&self) -> Vec<Part<'_, Self::Elem>> {
                let ($first, $($name,)*) = self;
                vec![part($first) $(, part($name))*]
            }
        }
    };
}
impl_tuple_list!(A, B);
impl_tuple_list!(A, B, C);
impl_tuple_list!(A, B, C, D);

/// Removes the given axes, each of length 1 (`lax.squeeze`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 1, 3, 1> = Array::zeros();
/// let y: Array<f32, 3> = lax::squeeze(&x, &[0, 2]);
/// assert_eq!(y.shape(), &[3]);
/// ```
#[track_caller]
pub fn squeeze<Out, A>(x: A, dimensions: &[usize]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let src = <A::Array as ArrayType>::SHAPE;
    let out: Vec<usize> = (0..src.len())
        .filter(|k| !dimensions.contains(k))
        .map(|k| src[k])
        .collect();
    for &d in dimensions {
        assert!(
            d < src.len() && src[d] == 1,
            "squeeze: cannot squeeze dimension {d} of shape {src:?}"
        );
    }
    shape::check_result::<Out>("squeeze", <ElemOf<A> as Element>::DTYPE, &out);
    let x = x.as_array();
    Out::from_data(x.data().to_vec()).set_weak(x.is_weak())
}

/// Inserts axes of length 1 at the given result positions (`lax.expand_dims`).
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 3> = Array::zeros();
/// let y: Array<f32, 1, 3, 1> = lax::expand_dims(&x, &[0, 2]);
/// assert_eq!(y.shape(), &[1, 3, 1]);
/// ```
#[track_caller]
pub fn expand_dims<Out, A>(x: A, dimensions: &[usize]) -> Out
where
    A: AsArray,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let src = <A::Array as ArrayType>::SHAPE;
    let rank = src.len() + dimensions.len();
    let mut dims = dimensions.to_vec();
    dims.sort_unstable();
    let mut rest = src.iter();
    let out: Vec<usize> = (0..rank)
        .map(|k| {
            if dims.contains(&k) {
                1
            } else {
                *rest.next().expect("expand_dims: dimensions out of range")
            }
        })
        .collect();
    shape::check_result::<Out>("expand_dims", <ElemOf<A> as Element>::DTYPE, &out);
    let x = x.as_array();
    Out::from_data(x.data().to_vec()).set_weak(x.is_weak())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Array;

    #[test]
    fn starts_clamp_into_range() {
        assert_eq!(
            clamp_starts("t", &[8, -1, -20], &[10, 10, 10], &[3, 3, 2]),
            [7, 7, 0]
        );
    }

    #[test]
    fn window_rows_cover_the_window() {
        let mut seen = Vec::new();
        for_window_rows(&[3, 4], &[1, 1], &[2, 2], |off, w, n| {
            seen.push((off, w, n))
        });
        assert_eq!(seen, [(5, 0, 2), (9, 2, 2)]);
    }

    #[test]
    fn dynamic_slice_2d() {
        let x: Array<i32, 3, 4> = Array::arange();
        let y: Array<i32, 2, 2> = dynamic_slice(&x, &[5, -1]);
        assert_eq!(y.to_vec(), [6, 7, 10, 11]);
    }

    #[test]
    #[should_panic(expected = "broadcast_in_dim: cannot broadcast i32[2] to i32[3,3]")]
    fn broadcast_in_dim_checks_sizes() {
        let x = Array::<i32, 2>::from([1, 2]);
        let _: Array<i32, 3, 3> = broadcast_in_dim(&x, &[0]);
    }
}
