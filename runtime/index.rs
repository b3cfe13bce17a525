//! Indexing: the [`s!`](crate::s) slice macro, gathers `x.at(idx).get()` and
//! functional updates `x.at(idx).set(v)` with JAX's out-of-bounds rules.
//!
//! An index is a list of [`IndexItem`]s, one per axis (missing trailing axes
//! are taken whole). It can be written as
//! - an integer: `x.at(3)`, negative counting from the end: `x.at(-1)`;
//! - a tuple, one entry per axis: `x.at((-1, -2))`, `x.at((1, ..))`;
//! - an integer index array: `x.at(Array::<i32, 2>::from([0, 3]))`;
//! - a slice spec: `x.at(s![..;2, 3..])`.
//!
//! Out-of-bounds indices are not an error, as in JAX: gathers clamp them (or
//! fill, see [`Mode`]), scatters drop the update. Slice bounds are clamped as
//! in Python (`x[8:20]` on length 10 is `x[8:10]`).
//!
//! Index arrays of any integer type index as in JAX, jitted or not
//! (`jax_dtypes::index`): signed values count from the end, then every value
//! is converted to int32 by wrapping before the clamp, so a `u64` index
//! `u64::MAX` is -1 and reads position 0, and `1 << 32` is 0. An integer
//! beside an index array is converted the same way; integers alone are
//! clamped as written.
//!
//! ```
//! use jax::prelude::*;
//!
//! let x: Array<f32, 5> = Array::arange();
//! let last: Array<f32> = x.clone().at(-1).get();
//! assert_eq!(last.item(), 4.0);
//! let y = x.at(7).set(9.0); // out of bounds: dropped
//! assert_eq!(y.to_vec(), [0.0, 1.0, 2.0, 3.0, 4.0]);
//! ```

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use crate::array::{impl_array, Array};
use crate::element::Int;

mod sealed {
    pub trait Sealed {}
}

/// Rust integer types usable as indices, slice bounds and steps.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 4> = Array::arange();
/// // Any Rust integer type indexes, as a position or a slice bound.
/// assert_eq!(x.clone().at(2u8).get::<Array<f32>>().item(), 2.0);
/// let i: usize = 1;
/// assert_eq!(x.slice::<Array<f32, 2>>(s![i..i + 2]).to_vec(), [1.0, 2.0]);
/// ```
pub trait IndexInt: Copy + sealed::Sealed {
    /// The value as `i64` (saturating for `u64`/`usize` beyond `i64::MAX`).
    ///
    /// ```
    /// use jax::index::IndexInt;
    /// assert_eq!((-3i8).to_i64(), -3);
    /// assert_eq!(u64::MAX.to_i64(), i64::MAX);
    /// ```
    fn to_i64(self) -> i64;
}

macro_rules! impl_index_int {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl IndexInt for $t {
            #[inline]
            fn to_i64(self) -> i64 {
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
    )*};
}
impl_index_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// A Python-style slice `start:end:step` of one axis.
///
/// Bounds may be negative (counting from the end) and out of range (clamped).
/// The step follows ndarray's `s![a..b;step]`: the range `a..b` is taken
/// first, then every `|step|`-th element of it, starting from its end when the
/// step is negative. So `a..b;-1` is `x[a:b][::-1]` in Python, not `x[a:b:-1]`.
///
/// ```
/// use jax::prelude::*;
/// use jax::index::Slice;
/// let x: Array<i32, 5> = Array::arange();
/// let every_other = Slice { start: Some(1), end: None, step: 2 };
/// assert_eq!(x.slice::<Array<i32, 2>>(every_other).to_vec(), [1, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// First position (inclusive); `None` is the start of the axis.
    pub start: Option<i64>,
    /// Last position (exclusive); `None` is the end of the axis.
    pub end: Option<i64>,
    /// Non-zero step.
    pub step: i64,
}

impl Slice {
    /// The positions this slice selects on an axis of length `len`.
    ///
    /// ```
    /// use jax::index::Slice;
    /// let s = Slice { start: Some(-3), end: None, step: -1 };
    /// assert_eq!(s.positions(5), [4, 3, 2]);
    /// ```
    pub fn positions(&self, len: usize) -> Vec<usize> {
        assert!(self.step != 0, "slice step cannot be zero");
        let n = len as i64;
        let bound = |b: Option<i64>, default: i64| {
            let b = b.unwrap_or(default);
            let b = if b < 0 { b.saturating_add(n) } else { b };
            b.clamp(0, n)
        };
        let (lo, hi) = (bound(self.start, 0), bound(self.end, n));
        if hi <= lo {
            return Vec::new();
        }
        let k = self.step.unsigned_abs() as usize;
        let range = lo as usize..hi as usize;
        if self.step > 0 {
            range.step_by(k).collect()
        } else {
            range.rev().step_by(k).collect()
        }
    }

    /// This slice with another step (see [`Slice`] for negative steps).
    ///
    /// ```
    /// use jax::index::IntoSlice;
    /// let s = (1..5).into_slice().with_step(-2);
    /// assert_eq!(s.positions(10), [4, 2]);
    /// ```
    pub fn with_step(self, step: impl IndexInt) -> Slice {
        Slice {
            step: step.to_i64(),
            ..self
        }
    }
}

/// Inserts a new axis of length 1, as `None`/`jnp.newaxis` in JAX: `s![.., NewAxis]`.
///
/// ```
/// use jax::prelude::*;
/// use jax::index::NewAxis;
/// let x: Array<f32, 3> = Array::arange();
/// let col: Array<f32, 3, 1> = x.slice(s![.., NewAxis]);
/// assert_eq!(col.to_vec(), x.to_vec());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAxis;

/// One entry of an index.
///
/// ```
/// use jax::prelude::*;
/// use jax::index::{IndexItem, NewAxis};
/// let spec = s![-1, NewAxis];
/// assert_eq!(spec.0, [IndexItem::Int(-1), IndexItem::NewAxis]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum IndexItem {
    /// One position; removes the axis. Negative counts from the end.
    Int(i64),
    /// A range of positions with a step.
    Slice(Slice),
    /// An integer index array (advanced indexing): the axis is replaced by the array's shape.
    ///
    /// Its values index as JAX's do (`jax_dtypes::index`): negative ones
    /// count from the end if `dtype` is signed, then every value is
    /// converted to int32 by wrapping (`u64::MAX` is -1, `1 << 32` is 0),
    /// and what is still out of bounds is clamped or dropped.
    Array {
        /// Row-major indices; a `u64` above `i64::MAX` by its bits (`as i64`).
        data: Vec<i64>,
        /// The index array's shape.
        shape: Vec<usize>,
        /// The index array's dtype (an integer dtype).
        dtype: crate::DType,
    },
    /// A new axis of length 1.
    NewAxis,
}

/// A whole index: one [`IndexItem`] per indexed axis, as made by [`s!`](crate::s).
///
/// ```
/// use jax::prelude::*;
/// use jax::index::{IndexItem, IndexSpec};
/// let x: Array<i32, 2, 3> = Array::arange();
/// let spec = IndexSpec(vec![IndexItem::Int(1), IndexItem::Int(-1)]);
/// assert_eq!(x.at(spec).get::<Array<i32>>().item(), 5);
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub struct IndexSpec(pub Vec<IndexItem>);

/// Anything usable as one entry of an index: integers, ranges, [`NewAxis`],
/// integer arrays.
///
/// ```
/// use jax::prelude::*;
/// use jax::index::{IndexItem, IntoIndexItem};
/// assert_eq!(3u32.into_item(), IndexItem::Int(3));
/// let rows = Array::<i32, 2>::from([0, 2]).into_item();
/// assert_eq!(
///     rows,
///     IndexItem::Array { data: vec![0, 2], shape: vec![2], dtype: jax::DType::I32 }
/// );
/// ```
pub trait IntoIndexItem {
    /// The index entry.
    ///
    /// ```
    /// use jax::index::{IndexItem, IntoIndexItem, Slice};
    /// let item = (2..).into_item();
    /// assert_eq!(item, IndexItem::Slice(Slice { start: Some(2), end: None, step: 1 }));
    /// ```
    fn into_item(self) -> IndexItem;
}

/// Anything usable as a whole index in [`Array::at`] and [`Array::slice`]:
/// every [`IntoIndexItem`], tuples of them, and an [`IndexSpec`].
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 2, 3> = Array::arange();
/// // A tuple indexes one axis per entry: row 1, columns 1 and 2.
/// let y: Array<i32, 2> = x.slice((1, 1..));
/// assert_eq!(y.to_vec(), [4, 5]);
/// ```
pub trait IntoIndex {
    /// The index.
    ///
    /// ```
    /// use jax::index::{IndexItem, IntoIndex};
    /// assert_eq!((0, -1).into_index().0, [IndexItem::Int(0), IndexItem::Int(-1)]);
    /// ```
    fn into_index(self) -> IndexSpec;
}

/// Ranges that can carry a step in `s![a..b;step]`.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<i32, 6> = Array::arange();
/// let y: Array<i32, 2> = x.slice(s![1..=4;2]);
/// assert_eq!(y.to_vec(), [1, 3]);
/// ```
pub trait IntoSlice {
    /// The slice, with step 1.
    ///
    /// ```
    /// use jax::index::{IntoSlice, Slice};
    /// // `..=-1` reaches the end of the axis.
    /// assert_eq!((..=-1).into_slice(), Slice { start: None, end: None, step: 1 });
    /// assert_eq!((2..5).into_slice(), Slice { start: Some(2), end: Some(5), step: 1 });
    /// ```
    fn into_slice(self) -> Slice;
}

impl<I: IndexInt> IntoSlice for Range<I> {
    fn into_slice(self) -> Slice {
        Slice {
            start: Some(self.start.to_i64()),
            end: Some(self.end.to_i64()),
            step: 1,
        }
    }
}
impl<I: IndexInt> IntoSlice for RangeFrom<I> {
    fn into_slice(self) -> Slice {
        Slice {
            start: Some(self.start.to_i64()),
            end: None,
            step: 1,
        }
    }
}
impl<I: IndexInt> IntoSlice for RangeTo<I> {
    fn into_slice(self) -> Slice {
        Slice {
            start: None,
            end: Some(self.end.to_i64()),
            step: 1,
        }
    }
}
impl<I: IndexInt> IntoSlice for RangeInclusive<I> {
    fn into_slice(self) -> Slice {
        let end = self.end().to_i64();
        // `a..=-1` reaches the last element, so its end is the end of the axis.
        Slice {
            start: Some(self.start().to_i64()),
            end: if end == -1 { None } else { Some(end + 1) },
            step: 1,
        }
    }
}
impl<I: IndexInt> IntoSlice for RangeToInclusive<I> {
    fn into_slice(self) -> Slice {
        let end = self.end.to_i64();
        Slice {
            start: None,
            end: if end == -1 { None } else { Some(end + 1) },
            step: 1,
        }
    }
}
impl IntoSlice for RangeFull {
    fn into_slice(self) -> Slice {
        Slice {
            start: None,
            end: None,
            step: 1,
        }
    }
}
impl IntoSlice for Slice {
    fn into_slice(self) -> Slice {
        self
    }
}

impl<I: IndexInt> IntoIndexItem for I {
    fn into_item(self) -> IndexItem {
        IndexItem::Int(self.to_i64())
    }
}
macro_rules! impl_item_for_slices {
    ($($t:ty),*) => {$(
        impl<I: IndexInt> IntoIndexItem for $t {
            fn into_item(self) -> IndexItem {
                IndexItem::Slice(self.into_slice())
            }
        }
    )*};
}
impl_item_for_slices!(
    Range<I>,
    RangeFrom<I>,
    RangeTo<I>,
    RangeInclusive<I>,
    RangeToInclusive<I>
);
impl IntoIndexItem for RangeFull {
    fn into_item(self) -> IndexItem {
        IndexItem::Slice(self.into_slice())
    }
}
impl IntoIndexItem for Slice {
    fn into_item(self) -> IndexItem {
        IndexItem::Slice(self)
    }
}
impl IntoIndexItem for NewAxis {
    fn into_item(self) -> IndexItem {
        IndexItem::NewAxis
    }
}
impl IntoIndexItem for IndexItem {
    fn into_item(self) -> IndexItem {
        self
    }
}

macro_rules! array_impls {
    ($($ref:tt)?) => {
        impl_array! {
            impl<I: Int> IntoIndexItem for $($ref)? Array<I, ..> {
                fn into_item(self) -> IndexItem {
                    IndexItem::Array {
                        // Every integer type but u64 fits; a u64 keeps its
                        // bits, and `dtype` says how to read them.
                        data: self.as_slice().iter().map(|i| i.as_i128() as i64).collect(),
                        shape: Array::<I, D0, D1, D2, D3, D4, D5>::SHAPE.to_vec(),
                        dtype: I::DTYPE,
                    }
                }
            }
        }
    };
}
array_impls!();
array_impls!(&);

impl<X: IntoIndexItem> IntoIndex for X {
    fn into_index(self) -> IndexSpec {
        IndexSpec(vec![self.into_item()])
    }
}
impl IntoIndex for IndexSpec {
    fn into_index(self) -> IndexSpec {
        self
    }
}
macro_rules! impl_tuple_index {
    ($($name:ident),*) => {
        impl<$($name: IntoIndexItem),*> IntoIndex for ($($name,)*) {
            #[allow(non_snake_case)]
            fn into_index(self) -> IndexSpec {
                let ($($name,)*) = self;
                IndexSpec(vec![$($name.into_item()),*])
            }
        }
    };
}
impl_tuple_index!(A);
impl_tuple_index!(A, B);
impl_tuple_index!(A, B, C);
impl_tuple_index!(A, B, C, E);
impl_tuple_index!(A, B, C, E, F);
impl_tuple_index!(A, B, C, E, F, G);

/// Builds a slice [`IndexSpec`] as ndarray's `s!`: comma-separated items, each
/// an integer (removes the axis; negative counts from the end), a range
/// (`a..b`, `a..`, `..b`, `..`, `a..=b`) with an optional step (`a..b;2`,
/// `..;-1`), or [`NewAxis`](crate::index::NewAxis). Bounds out of range are
/// clamped as in Python. A negative step walks the range from its end:
/// `a..b;-1` is Python's `x[a:b][::-1]`.
///
/// ```
/// use jax::prelude::*;
///
/// let x: Array<i32, 3, 4> = Array::arange();
/// let y: Array<i32, 2, 2> = x.slice(s![..;2, 1..-1]);
/// assert_eq!(y.to_vec(), [1, 2, 9, 10]);
/// let r: Array<i32, 4> = x.slice(s![-1, ..;-1]);
/// assert_eq!(r.to_vec(), [11, 10, 9, 8]);
/// ```
#[macro_export]
macro_rules! s {
    (@acc [$($items:expr,)*]) => {
        $crate::index::IndexSpec(::std::vec![$($items,)*])
    };
    (@acc [$($items:expr,)*] $r:expr ; $step:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($items,)* $crate::index::IndexItem::Slice(
            $crate::index::IntoSlice::into_slice($r).with_step($step)),] $($($rest)*)?)
    };
    (@acc [$($items:expr,)*] $r:expr $(, $($rest:tt)*)?) => {
        $crate::s!(@acc [$($items,)* $crate::index::IntoIndexItem::into_item($r),] $($($rest)*)?)
    };
    ($($t:tt)*) => {
        $crate::s!(@acc [] $($t)*)
    };
}

mod at;
mod plan;

pub use at::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_follow_python_bounds_and_ndarray_steps() {
        let sl = |a: Option<i64>, b: Option<i64>, step: i64| Slice {
            start: a,
            end: b,
            step,
        };
        assert_eq!(sl(Some(8), Some(20), 1).positions(10), [8, 9]);
        assert_eq!(sl(Some(-20), Some(2), 1).positions(10), [0, 1]);
        assert_eq!(sl(None, None, -1).positions(3), [2, 1, 0]);
        assert_eq!(sl(Some(0), Some(5), -2).positions(10), [4, 2, 0]);
        assert_eq!(sl(Some(5), Some(2), 1).positions(10), Vec::<usize>::new());
        assert_eq!(sl(None, None, 3).positions(0), Vec::<usize>::new());
    }

    #[test]
    fn s_macro_items() {
        let spec = s![1, ..;-1, 2..5;2, ..=-2, NewAxis, -3..];
        let steps: Vec<IndexItem> = vec![
            IndexItem::Int(1),
            IndexItem::Slice(Slice {
                start: None,
                end: None,
                step: -1,
            }),
            IndexItem::Slice(Slice {
                start: Some(2),
                end: Some(5),
                step: 2,
            }),
            IndexItem::Slice(Slice {
                start: None,
                end: Some(-1),
                step: 1,
            }),
            IndexItem::NewAxis,
            IndexItem::Slice(Slice {
                start: Some(-3),
                end: None,
                step: 1,
            }),
        ];
        assert_eq!(spec.0, steps);
        assert_eq!(s![].0, vec![]);
        assert_eq!(s![.., 0,].0.len(), 2);
    }
}
