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

use crate::array::{Array, ArrayType, AsArray};
use crate::element::{DType, Element, Int, Value};
use crate::shape;

mod sealed {
    pub trait Sealed {}
}

/// Rust integer types usable as indices, slice bounds and steps.
pub trait IndexInt: Copy + sealed::Sealed {
    /// The value as `i64` (saturating for `u64`/`usize` beyond `i64::MAX`).
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
    pub fn with_step(self, step: impl IndexInt) -> Slice {
        Slice {
            step: step.to_i64(),
            ..self
        }
    }
}

/// Inserts a new axis of length 1, as `None`/`jnp.newaxis` in JAX: `s![.., NewAxis]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAxis;

/// One entry of an index.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexItem {
    /// One position; removes the axis. Negative counts from the end.
    Int(i64),
    /// A range of positions with a step.
    Slice(Slice),
    /// An integer index array (advanced indexing): the axis is replaced by the array's shape.
    Array {
        /// Row-major indices, negative counting from the end.
        data: Vec<i64>,
        /// The index array's shape.
        shape: Vec<usize>,
    },
    /// A new axis of length 1.
    NewAxis,
}

/// A whole index: one [`IndexItem`] per indexed axis, as made by [`s!`](crate::s).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct IndexSpec(pub Vec<IndexItem>);

/// Anything usable as one entry of an index: integers, ranges, [`NewAxis`],
/// integer arrays.
pub trait IntoIndexItem {
    /// The index entry.
    fn into_item(self) -> IndexItem;
}

/// Anything usable as a whole index in [`Array::at`] and [`Array::slice`]:
/// every [`IntoIndexItem`], tuples of them, and an [`IndexSpec`].
pub trait IntoIndex {
    /// The index.
    fn into_index(self) -> IndexSpec;
}

/// Ranges that can carry a step in `s![a..b;step]`.
pub trait IntoSlice {
    /// The slice, with step 1.
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
        impl<
                I: Int,
                const D0: usize,
                const D1: usize,
                const D2: usize,
                const D3: usize,
                const D4: usize,
                const D5: usize,
            > IntoIndexItem for $($ref)? Array<I, D0, D1, D2, D3, D4, D5>
        {
            fn into_item(self) -> IndexItem {
                IndexItem::Array {
                    data: self.as_slice().iter().map(|i| i.as_i128() as i64).collect(),
                    shape: Array::<I, D0, D1, D2, D3, D4, D5>::SHAPE.to_vec(),
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

/// What gathers and scatters do with out-of-bounds indices, as JAX's
/// `GatherScatterMode`. Slices never go out of bounds: their bounds are clamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Clamp each index into the axis (`mode='clip'`). The default of gathers.
    #[default]
    Clip,
    /// Gathers give a fill value where any index is out of bounds, scatters
    /// drop such updates (`mode='fill'` / `'drop'`). The default of scatters.
    /// The default fill value is NaN for floats, the minimum for signed
    /// integers, the maximum for unsigned ones and `true` for bool, as in JAX.
    FillOrDrop,
    /// The caller promises every index is in bounds. Out-of-bounds indices
    /// then give unspecified values; here they clamp in gathers and are
    /// dropped in scatters, as on XLA's CPU backend.
    PromiseInBounds,
}

/// The value JAX gathers for out-of-bounds indices under [`Mode::FillOrDrop`]
/// when no fill value is given: NaN, the minimum signed or maximum unsigned
/// integer, or `true`.
///
/// ```
/// assert_eq!(jax::index::default_fill::<i32>(), i32::MIN);
/// assert!(jax::index::default_fill::<f32>().is_nan());
/// ```
pub fn default_fill<T: Element>() -> T {
    let bits = T::DTYPE.bits();
    match T::DTYPE {
        DType::Bool => T::ONE,
        d if d.is_float() => T::from_f64(f64::NAN),
        d if d.is_integer() && matches!(d, DType::U8 | DType::U16 | DType::U32 | DType::U64) => {
            T::from_value(Value::Int((1i128 << bits) - 1))
        }
        d if d.is_integer() => T::from_value(Value::Int(-(1i128 << (bits - 1)))),
        d => panic!("no default fill value for {}", d.name()),
    }
}

/// Where each element of an indexing result comes from: its shape, and for
/// every result element one (possibly out-of-bounds) position per source axis.
pub(crate) struct Plan {
    pub(crate) out_shape: Vec<usize>,
    src_shape: Vec<usize>,
    raw: Vec<i64>,
}

impl Plan {
    /// Resolves an index against a shape with NumPy's rules: integers and
    /// slices are basic indices; index arrays (and integers, when an array is
    /// present) are advanced indices broadcast together, whose dimensions go
    /// where the first of them was if they are adjacent, else in front.
    pub(crate) fn new(op: &str, src_shape: &[usize], spec: &IndexSpec) -> Plan {
        let items = &spec.0;
        let used = items.iter().filter(|i| **i != IndexItem::NewAxis).count();
        let rank = src_shape.len();
        assert!(
            used <= rank,
            "{op}: too many indices for array: array is {rank}-dimensional, but {used} were indexed"
        );
        let any_array = items.iter().any(|i| matches!(i, IndexItem::Array { .. }));
        let is_adv = |i: &IndexItem| {
            matches!(i, IndexItem::Array { .. }) || (any_array && matches!(i, IndexItem::Int(_)))
        };
        // The broadcast shape of the advanced indices, and where its dims go.
        let mut adv_shape: Vec<usize> = Vec::new();
        let adv_pos: Vec<usize> = (0..items.len()).filter(|&k| is_adv(&items[k])).collect();
        for &k in &adv_pos {
            let s: &[usize] = match &items[k] {
                IndexItem::Array { shape, .. } => shape,
                _ => &[],
            };
            adv_shape = shape::broadcast_shapes(&adv_shape, s)
                .unwrap_or_else(|e| panic!("{op}: index arrays cannot be broadcast together: {e}"));
        }
        let adjacent = adv_pos.windows(2).all(|w| w[1] == w[0] + 1);

        // Output dims: a slice (its positions), a new axis, or the advanced block.
        enum Dim {
            Slice(Vec<usize>),
            New,
            Adv,
        }
        let mut dims: Vec<Dim> = Vec::new();
        let mut axis = 0;
        let mut adv_placed = false;
        if !adjacent && !adv_pos.is_empty() {
            dims.push(Dim::Adv);
            adv_placed = true;
        }
        // Per source axis: how to get its position.
        enum Src {
            Fixed(i64),
            Slice(usize),  // output dim index
            Adv(Vec<i64>), // values, broadcast to adv_shape
        }
        let mut src: Vec<Option<Src>> = (0..rank).map(|_| None).collect();
        let normalize = |i: i64, len: usize| if i < 0 { i + len as i64 } else { i };
        for item in items {
            match item {
                IndexItem::NewAxis => dims.push(Dim::New),
                IndexItem::Slice(s) => {
                    let pos = s.positions(src_shape[axis]);
                    src[axis] = Some(Src::Slice(dims.len()));
                    dims.push(Dim::Slice(pos));
                    axis += 1;
                }
                IndexItem::Int(i) if !any_array => {
                    src[axis] = Some(Src::Fixed(normalize(*i, src_shape[axis])));
                    axis += 1;
                }
                IndexItem::Int(_) | IndexItem::Array { .. } => {
                    let (data, shape): (Vec<i64>, Vec<usize>) = match item {
                        IndexItem::Int(i) => (vec![*i], vec![]),
                        IndexItem::Array { data, shape } => (data.clone(), shape.clone()),
                        _ => unreachable!(),
                    };
                    let len = src_shape[axis];
                    let map = shape::broadcast_indices(&shape, &adv_shape);
                    let vals = map.iter().map(|&m| normalize(data[m], len)).collect();
                    src[axis] = Some(Src::Adv(vals));
                    if !adv_placed {
                        dims.push(Dim::Adv);
                        adv_placed = true;
                    }
                    axis += 1;
                }
            }
        }
        // Trailing axes are taken whole.
        while axis < rank {
            src[axis] = Some(Src::Slice(dims.len()));
            dims.push(Dim::Slice((0..src_shape[axis]).collect()));
            axis += 1;
        }

        // Output shape, and where each output dim sits in it.
        let mut out_shape = Vec::new();
        let mut dim_start = Vec::with_capacity(dims.len());
        for d in &dims {
            dim_start.push(out_shape.len());
            match d {
                Dim::Slice(pos) => out_shape.push(pos.len()),
                Dim::New => out_shape.push(1),
                Dim::Adv => out_shape.extend_from_slice(&adv_shape),
            }
        }
        let adv_start = dims
            .iter()
            .position(|d| matches!(d, Dim::Adv))
            .map(|k| dim_start[k]);
        let out_size: usize = out_shape.iter().product();
        let out_strides = shape::strides(&out_shape);
        let adv_strides = shape::strides(&adv_shape);
        let mut raw = Vec::with_capacity(out_size * rank);
        let mut multi = vec![0usize; out_shape.len()];
        for o in 0..out_size {
            let mut rem = o;
            for (m, st) in multi.iter_mut().zip(&out_strides) {
                *m = rem / st;
                rem %= st;
            }
            let adv_flat = adv_start.map_or(0, |s| {
                adv_strides
                    .iter()
                    .enumerate()
                    .map(|(k, st)| multi[s + k] * st)
                    .sum::<usize>()
            });
            for s in &src {
                raw.push(match s.as_ref().expect("every axis is indexed") {
                    Src::Fixed(i) => *i,
                    Src::Slice(d) => match &dims[*d] {
                        Dim::Slice(pos) => pos[multi[dim_start[*d]]] as i64,
                        _ => unreachable!(),
                    },
                    Src::Adv(vals) => vals[adv_flat],
                });
            }
        }
        Plan {
            out_shape,
            src_shape: src_shape.to_vec(),
            raw,
        }
    }

    fn out_size(&self) -> usize {
        self.out_shape.iter().product()
    }

    /// The flat source offset of result element `o`; `None` if out of bounds
    /// and not clamped.
    fn offset(&self, o: usize, clamp: bool) -> Option<usize> {
        let rank = self.src_shape.len();
        let mut off = 0usize;
        for (k, &len) in self.src_shape.iter().enumerate() {
            let mut i = self.raw[o * rank + k];
            if i < 0 || i >= len as i64 {
                if !clamp || len == 0 {
                    return None;
                }
                i = i.clamp(0, len as i64 - 1);
            }
            off = off * len + i as usize;
        }
        Some(off)
    }

    /// Gathers the indexed elements; out-of-bounds ones are clamped or `fill`.
    pub(crate) fn gather<T: Element>(&self, data: &[T], mode: Mode, fill: T) -> Vec<T> {
        let clamp = mode != Mode::FillOrDrop;
        (0..self.out_size())
            .map(|o| self.offset(o, clamp).map_or(fill, |off| data[off]))
            .collect()
    }

    /// Applies `op(old, update)` at the indexed elements in row-major order of
    /// the result (so with duplicate indices the last `set` wins and `add`
    /// accumulates). Out-of-bounds updates are dropped unless `mode` is `Clip`.
    pub(crate) fn scatter<T: Element>(
        &self,
        data: &mut [T],
        updates: &[T],
        update_shape: &[usize],
        mode: Mode,
        op: impl Fn(T, T) -> T,
    ) {
        let map = shape::broadcast_indices(update_shape, &self.out_shape);
        let clamp = mode == Mode::Clip;
        for (o, &u) in map.iter().enumerate() {
            if let Some(off) = self.offset(o, clamp) {
                data[off] = op(data[off], updates[u]);
            }
        }
    }
}

/// Scatter update values: a Rust scalar (weakly typed: converted to the
/// array's dtype like a Python scalar, so `x_i32.at(1).set(2.7)` stores 2) or
/// an array that broadcasts to the indexed shape (converted to the array's dtype).
pub trait Updates {
    /// The shape of the update values (`[]` for a scalar).
    fn update_shape(&self) -> Vec<usize>;
    /// The values converted to `T` with XLA's conversion semantics.
    fn update_values<T: Element>(&self) -> Vec<T>;
}

macro_rules! impl_scalar_updates {
    ($($t:ty),*) => {$(
        impl Updates for $t {
            fn update_shape(&self) -> Vec<usize> {
                Vec::new()
            }
            fn update_values<T: Element>(&self) -> Vec<T> {
                vec![self.cast::<T>()]
            }
        }
    )*};
}
impl_scalar_updates!(
    bool,
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    f32,
    f64,
    half::f16,
    half::bf16
);

macro_rules! impl_array_updates {
    ($($ref:tt)?) => {
        impl<
                U: Element,
                const D0: usize,
                const D1: usize,
                const D2: usize,
                const D3: usize,
                const D4: usize,
                const D5: usize,
            > Updates for $($ref)? Array<U, D0, D1, D2, D3, D4, D5>
        {
            fn update_shape(&self) -> Vec<usize> {
                Array::<U, D0, D1, D2, D3, D4, D5>::SHAPE.to_vec()
            }
            fn update_values<T: Element>(&self) -> Vec<T> {
                self.as_slice().iter().map(|v| v.cast::<T>()).collect()
            }
        }
    };
}
impl_array_updates!();
impl_array_updates!(&);

/// The pending indexed access made by [`Array::at`], as JAX's `x.at[idx]`:
/// finish it with [`get`](At::get) or a functional update
/// ([`set`](At::set), [`add`](At::add), [`mul`](At::mul), [`min`](At::min),
/// [`max`](At::max)).
#[derive(Clone, Debug)]
pub struct At<A> {
    array: A,
    index: IndexSpec,
}

/// [`Array::at`] on a borrowed array: `(&x).at(i)` leaves `x` usable (the
/// update then copies the buffer, since `x` still shares it).
pub trait AtRef {
    /// The array type.
    type Array;
    /// Starts an indexed access on a (cheap) clone of the array.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x: Array<f32, 3> = Array::arange();
    /// let y = (&x).at(0).set(5.0);
    /// assert_eq!(x.to_vec(), [0.0, 1.0, 2.0]);
    /// assert_eq!(y.to_vec(), [5.0, 1.0, 2.0]);
    /// ```
    fn at<I: IntoIndex>(self, index: I) -> At<Self::Array>;
}

// Combinations through `Value`, so integers wrap as XLA's do. Floats are
// combined in f64 and rounded once, which is exactly the correctly rounded
// f32/f16/bf16 result (f64 has more than twice their precision plus two bits).
fn combine<T: Element>(a: T, b: T, int_op: fn(i128, i128) -> i128, f_op: fn(f64, f64) -> f64) -> T {
    match (a.to_value(), b.to_value()) {
        (Value::Int(x), Value::Int(y)) => T::from_value(Value::Int(int_op(x, y))),
        (Value::Float(x), Value::Float(y)) => T::from_f64(f_op(x, y)),
        (Value::Bool(x), Value::Bool(y)) => {
            T::from_value(Value::Bool(int_op(x as i128, y as i128) != 0))
        }
        _ => unreachable!("operands of one element type"),
    }
}

fn add<T: Element>(a: T, b: T) -> T {
    // XLA's add on bool is a logical or.
    if T::DTYPE == DType::Bool {
        return combine(a, b, |x, y| x | y, |x, y| x + y);
    }
    combine(a, b, i128::wrapping_add, |x, y| x + y)
}

fn mul<T: Element>(a: T, b: T) -> T {
    combine(a, b, i128::wrapping_mul, |x, y| x * y)
}

// min/max propagate NaN, as lax.min/lax.max.
#[allow(clippy::eq_op)]
fn min<T: Element>(a: T, b: T) -> T {
    if a != a || b < a || b != b {
        if a != a {
            a
        } else {
            b
        }
    } else {
        a
    }
}

#[allow(clippy::eq_op)]
fn max<T: Element>(a: T, b: T) -> T {
    if a != a || b > a || b != b {
        if a != a {
            a
        } else {
            b
        }
    } else {
        a
    }
}

macro_rules! array_impl {
    ($($item:item)*) => {
        impl<
                T: Element,
                const D0: usize,
                const D1: usize,
                const D2: usize,
                const D3: usize,
                const D4: usize,
                const D5: usize,
            > Array<T, D0, D1, D2, D3, D4, D5>
        {
            $($item)*
        }
    };
}

array_impl! {
    /// Starts an indexed access, as JAX's `x.at[index]`. Takes the array by
    /// value so that an update can write into its buffer when no one else
    /// shares it; use `(&x).at(i)` (see [`AtRef`]) or `x.clone().at(i)` to
    /// keep `x`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x: Array<f32, 3, 3> = Array::zeros();
    /// let y = x.at((1, ..)).set(1.0);
    /// assert_eq!(y.to_vec(), [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    /// ```
    pub fn at<I: IntoIndex>(self, index: I) -> At<Self> {
        At {
            array: self,
            index: index.into_index(),
        }
    }

    /// A copy of the indexed part (JAX's `x[index]`), usually with an
    /// [`s!`](crate::s) spec. Integer indices out of range are clamped. The
    /// result type is chosen by the caller and checked.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x: Array<f32, 10> = Array::arange();
    /// let y: Array<f32, 2> = x.slice(s![8..20]);
    /// assert_eq!(y.to_vec(), [8.0, 9.0]);
    /// ```
    #[track_caller]
    pub fn slice<Out: ArrayType<Elem = T>>(&self, index: impl IntoIndex) -> Out {
        gather_impl(self, &index.into_index(), "slice", Mode::Clip, T::ZERO)
    }
}

#[track_caller]
pub(crate) fn gather_impl<T: Element, A: ArrayType<Elem = T>, Out: ArrayType<Elem = T>>(
    x: &A,
    index: &IndexSpec,
    op: &str,
    mode: Mode,
    fill: T,
) -> Out {
    let plan = Plan::new(op, A::SHAPE, index);
    shape::check_result::<Out>(op, T::DTYPE, &plan.out_shape);
    Out::from_data(plan.gather(x.data(), mode, fill)).set_weak(x.is_weak())
}

macro_rules! at_impl {
    ($($item:item)*) => {
        impl<
                T: Element,
                const D0: usize,
                const D1: usize,
                const D2: usize,
                const D3: usize,
                const D4: usize,
                const D5: usize,
            > At<Array<T, D0, D1, D2, D3, D4, D5>>
        {
            $($item)*
        }
    };
}

at_impl! {
    /// Gathers the indexed elements (JAX's `x.at[i].get()`, or `x[i]`).
    /// Out-of-bounds indices are clamped; negative ones count from the end
    /// first (`-6` on length 5 clamps to 0).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x: Array<f32, 10> = Array::arange();
    /// let v: Array<f32> = x.at(11).get();
    /// assert_eq!(v.item(), 9.0);
    /// ```
    #[track_caller]
    pub fn get<Out: ArrayType<Elem = T>>(self) -> Out {
        self.get_with(Mode::Clip)
    }

    /// Gathers with a [`Mode`]; [`Mode::FillOrDrop`] fills with [`default_fill`].
    ///
    /// ```
    /// use jax::prelude::*;
    /// use jax::index::Mode;
    /// let x: Array<i32, 10> = Array::arange();
    /// let v: Array<i32> = x.at(11).get_with(Mode::FillOrDrop);
    /// assert_eq!(v.item(), i32::MIN);
    /// ```
    #[track_caller]
    pub fn get_with<Out: ArrayType<Elem = T>>(self, mode: Mode) -> Out {
        gather_impl(&self.array, &self.index, "get", mode, default_fill::<T>())
    }

    /// Gathers with `mode='fill'` and a fill value (converted to the array's dtype).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x: Array<f32, 5> = Array::arange();
    /// let v: Array<f32> = x.at(-6).get_fill(-1.0);
    /// assert_eq!(v.item(), -1.0);
    /// ```
    #[track_caller]
    pub fn get_fill<Out: ArrayType<Elem = T>, S: Element>(self, fill_value: S) -> Out {
        gather_impl(&self.array, &self.index, "get", Mode::FillOrDrop, fill_value.cast())
    }

    #[track_caller]
    fn scatter(self, op_name: &str, v: impl Updates, mode: Mode, op: impl Fn(T, T) -> T) -> Array<T, D0, D1, D2, D3, D4, D5> {
        let plan = Plan::new(op_name, Array::<T, D0, D1, D2, D3, D4, D5>::SHAPE, &self.index);
        let ushape = v.update_shape();
        match shape::broadcast_shapes(&ushape, &plan.out_shape) {
            Ok(s) if s == plan.out_shape => {}
            _ => panic!(
                "{op_name}: update values of shape {:?} do not broadcast to the indexed shape {:?}",
                ushape, plan.out_shape
            ),
        }
        let values = v.update_values::<T>();
        let mut array = self.array;
        plan.scatter(array.make_mut(), &values, &ushape, mode, op);
        array
    }

    /// Sets the indexed elements to `v` (JAX's `x.at[i].set(v)`): a scalar or
    /// an array broadcasting to the indexed shape. Out-of-bounds updates are
    /// dropped; with duplicate indices the last update wins.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x: Array<i32, 5> = Array::arange();
    /// assert_eq!(x.at(1).set(2.7).to_vec(), [0, 2, 2, 3, 4]);
    /// ```
    #[track_caller]
    pub fn set(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.set_with(v, Mode::FillOrDrop)
    }

    /// [`set`](At::set) with a [`Mode`]: `Mode::Clip` clamps out-of-bounds indices.
    ///
    /// ```
    /// use jax::prelude::*;
    /// use jax::index::Mode;
    /// let x: Array<f32, 5> = Array::arange();
    /// assert_eq!(x.at(7).set_with(9.0, Mode::Clip).to_vec(), [0.0, 1.0, 2.0, 3.0, 9.0]);
    /// ```
    #[track_caller]
    pub fn set_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.scatter("set", v, mode, |_, u| u)
    }

    /// Adds `v` at the indexed elements (`x.at[i].add(v)`); duplicate indices accumulate.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x: Array<f32, 4> = Array::zeros();
    /// let i = Array::<i32, 3>::from([0, 0, 2]);
    /// assert_eq!(x.at(i).add(1.0).to_vec(), [2.0, 0.0, 1.0, 0.0]);
    /// ```
    #[track_caller]
    #[allow(clippy::should_implement_trait)] // JAX's name
    pub fn add(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.add_with(v, Mode::FillOrDrop)
    }

    /// [`add`](At::add) with a [`Mode`].
    #[track_caller]
    pub fn add_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.scatter("add", v, mode, add)
    }

    /// Multiplies the indexed elements by `v` (`x.at[i].mul(v)`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    /// assert_eq!(x.at(1).mul(10.0).to_vec(), [1.0, 20.0, 3.0]);
    /// ```
    #[track_caller]
    #[allow(clippy::should_implement_trait)] // JAX's name
    pub fn mul(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.mul_with(v, Mode::FillOrDrop)
    }

    /// [`mul`](At::mul) with a [`Mode`].
    #[track_caller]
    pub fn mul_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.scatter("mul", v, mode, mul)
    }

    /// Replaces the indexed elements by their minimum with `v` (`x.at[i].min(v)`); NaN propagates.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    /// assert_eq!(x.at(2).min(0.5).to_vec(), [1.0, 2.0, 0.5]);
    /// ```
    #[track_caller]
    pub fn min(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.min_with(v, Mode::FillOrDrop)
    }

    /// [`min`](At::min) with a [`Mode`].
    #[track_caller]
    pub fn min_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.scatter("min", v, mode, min)
    }

    /// Replaces the indexed elements by their maximum with `v` (`x.at[i].max(v)`); NaN propagates.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
    /// assert_eq!(x.at(0).max(5.0).to_vec(), [5.0, 2.0, 3.0]);
    /// ```
    #[track_caller]
    pub fn max(self, v: impl Updates) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.max_with(v, Mode::FillOrDrop)
    }

    /// [`max`](At::max) with a [`Mode`].
    #[track_caller]
    pub fn max_with(self, v: impl Updates, mode: Mode) -> Array<T, D0, D1, D2, D3, D4, D5> {
        self.scatter("max", v, mode, max)
    }
}

impl<
        T: Element,
        const D0: usize,
        const D1: usize,
        const D2: usize,
        const D3: usize,
        const D4: usize,
        const D5: usize,
    > AtRef for &Array<T, D0, D1, D2, D3, D4, D5>
{
    type Array = Array<T, D0, D1, D2, D3, D4, D5>;
    fn at<I: IntoIndex>(self, index: I) -> At<Self::Array> {
        self.clone().at(index)
    }
}

/// Gathers `x[index]` from any array argument (by value or reference), as
/// `jnp.take`-style indexing: the function form of `x.at(index).get()`.
///
/// ```
/// use jax::prelude::*;
/// let x: Array<f32, 3, 4> = Array::arange();
/// let v: Array<f32> = jax::index::get(&x, (-1, -2));
/// assert_eq!(v.item(), 10.0);
/// ```
#[track_caller]
pub fn get<A: AsArray, Out: ArrayType<Elem = <A::Array as ArrayType>::Elem>>(
    x: A,
    index: impl IntoIndex,
) -> Out {
    gather_impl(
        x.as_array(),
        &index.into_index(),
        "get",
        Mode::Clip,
        <A::Array as ArrayType>::Elem::ZERO,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s;

    fn plan(shape: &[usize], spec: IndexSpec) -> (Vec<usize>, Vec<Option<usize>>) {
        let p = Plan::new("test", shape, &spec);
        let offs = (0..p.out_size()).map(|o| p.offset(o, false)).collect();
        (p.out_shape, offs)
    }

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

    #[test]
    fn advanced_index_dims_go_first_when_separated() {
        let idx = IndexItem::Array {
            data: vec![0, 1],
            shape: vec![2],
        };
        // Adjacent: x[:, idx] on (3, 4, 5) -> (3, 2, 5).
        let spec = IndexSpec(vec![IndexItem::Slice(RangeFull.into_slice()), idx.clone()]);
        assert_eq!(plan(&[3, 4, 5], spec).0, [3, 2, 5]);
        // Separated by a slice: x[idx, :, 0] -> (2, 4).
        let spec = IndexSpec(vec![
            idx,
            IndexItem::Slice(RangeFull.into_slice()),
            IndexItem::Int(0),
        ]);
        assert_eq!(plan(&[3, 4, 5], spec).0, [2, 4]);
    }

    #[test]
    fn out_of_bounds_offsets() {
        let (shape, offs) = plan(&[5], 7.into_index());
        assert_eq!(shape, Vec::<usize>::new());
        assert_eq!(offs, [None]);
        let (_, offs) = plan(&[2, 3], (-1, -1).into_index());
        assert_eq!(offs, [Some(5)]);
    }

    #[test]
    fn nan_propagating_min_max() {
        assert!(min(f32::NAN, 1.0).is_nan());
        assert!(min(1.0, f32::NAN).is_nan());
        assert!(max(1.0f32, f32::NAN).is_nan());
        assert_eq!(max(1i32, 2), 2);
        assert_eq!(min(1i32, 2), 1);
        assert_eq!(add(i8::MAX, 1), i8::MIN);
        assert_eq!(mul(u64::MAX, 2), u64::MAX - 1);
        assert!(add(true, false));
    }

    #[test]
    fn update_in_place_when_unshared() {
        let x: Array<f32, 4> = Array::arange();
        let p = x.as_slice().as_ptr();
        let y = x.at(1).set(7.0);
        assert_eq!(y.as_slice().as_ptr(), p);
        let z = (&y).at(0).set(7.0);
        assert_ne!(z.as_slice().as_ptr(), p);
        assert_eq!(y.to_vec(), [0.0, 7.0, 2.0, 3.0]);
    }
}
