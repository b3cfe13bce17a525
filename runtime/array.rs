//! [`Array`]: an immutable, shape-typed n-dimensional array.

use std::sync::Arc;

use crate::element::{DType, Element, Float};
use crate::error::ShapeError;

/// Marks an unused dimension slot of [`Array`]: `Array<f32, 3>` is `Array<f32, 3, NONE, NONE, ...>`.
pub const NONE: usize = usize::MAX;

/// The largest rank an [`Array`] can have.
pub const MAX_RANK: usize = 6;

/// An immutable n-dimensional array whose shape is part of its type.
///
/// `Array<f32>` is a scalar, `Array<f32, 10>` a vector, `Array<f32, 3, 4>` a
/// 3×4 matrix, up to rank 6. Data is stored contiguously in row-major order
/// and shared: `clone` is cheap (a reference count), and there is no way to
/// mutate an array in place. "Updates" such as `x.at(i).set(v)` return a new
/// array (reusing the buffer when nobody else holds it).
///
/// ```
/// use jax::Array;
/// let x: Array<f32, 2, 3> = Array::arange();
/// assert_eq!(x.shape(), &[2, 3]);
/// assert_eq!(x.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
/// ```
///
/// A function generic over a dimension is compiled once per shape it is used
/// with, as JAX re-traces per shape:
///
/// ```
/// use jax::Array;
/// fn rows<const N: usize>(x: &Array<f32, N, 3>) -> usize {
///     x.shape()[0]
/// }
/// assert_eq!(rows(&Array::<f32, 4, 3>::zeros()), 4);
/// ```
pub struct Array<
    T: Element,
    const D0: usize = NONE,
    const D1: usize = NONE,
    const D2: usize = NONE,
    const D3: usize = NONE,
    const D4: usize = NONE,
    const D5: usize = NONE,
> {
    data: Arc<Vec<T>>,
    weak: bool,
}

/// Writes an impl for every [`Array`] type, so that the six const generic
/// dimensions are not spelled out at each one. The input is an ordinary impl
/// (attributes and doc comments included) in whose header `Array<X, ..>`
/// stands for `Array<X, D0, D1, D2, D3, D4, D5>`; the macro appends
/// `const D0: usize, ..., const D5: usize` to the impl's generic parameters,
/// and the body names the dimensions `D0` to `D5` (the header may too). Only
/// the header is rewritten: the body is copied as written.
///
/// ```text
/// impl_array! {
///     impl<T: Element> AsArray for &Array<T, ..> {
///         type Array = Array<T, D0, D1, D2, D3, D4, D5>;
///         // ...
///     }
/// }
/// ```
macro_rules! impl_array {
    ($(#[$($attr:tt)*])* impl < $($rest:tt)*) => {
        $crate::array::impl_array!(@generics [$(#[$($attr)*])*] [] [] $($rest)*);
    };
    // The generic parameters, up to the `>` that closes them; the second
    // bracket holds one `<` per angle bracket open inside them.
    (@generics $attrs:tt [$($g:tt)*] [] > $($rest:tt)*) => {
        $crate::array::impl_array!(@header $attrs [$($g)*] [] $($rest)*);
    };
    (@generics $attrs:tt [$($g:tt)*] [<] >> $($rest:tt)*) => {
        $crate::array::impl_array!(@header $attrs [$($g)* >] [] $($rest)*);
    };
    (@generics $attrs:tt [$($g:tt)*] [< $($open:tt)*] > $($rest:tt)*) => {
        $crate::array::impl_array!(@generics $attrs [$($g)* >] [$($open)*] $($rest)*);
    };
    (@generics $attrs:tt [$($g:tt)*] [< < $($open:tt)*] >> $($rest:tt)*) => {
        $crate::array::impl_array!(@generics $attrs [$($g)* >>] [$($open)*] $($rest)*);
    };
    (@generics $attrs:tt [$($g:tt)*] [$($open:tt)*] < $($rest:tt)*) => {
        $crate::array::impl_array!(@generics $attrs [$($g)* <] [< $($open)*] $($rest)*);
    };
    (@generics $attrs:tt [$($g:tt)*] $open:tt $t:tt $($rest:tt)*) => {
        $crate::array::impl_array!(@generics $attrs [$($g)* $t] $open $($rest)*);
    };
    // The rest of the header, up to the body, with the dimensions filled in.
    (@header $attrs:tt $g:tt [$($h:tt)*] Array < $T:ident , .. > $($rest:tt)*) => {
        $crate::array::impl_array!(
            @header $attrs $g [$($h)* Array<$T, D0, D1, D2, D3, D4, D5>] $($rest)*
        );
    };
    (@header $attrs:tt $g:tt [$($h:tt)*] Array < $T:ident , .. >> $($rest:tt)*) => {
        $crate::array::impl_array!(
            @header $attrs $g [$($h)* Array<$T, D0, D1, D2, D3, D4, D5> >] $($rest)*
        );
    };
    (@header [$($attrs:tt)*] [$($g:tt)*] [$($h:tt)*] { $($body:tt)* }) => {
        $($attrs)*
        impl<
            $($g)*,
            const D0: usize,
            const D1: usize,
            const D2: usize,
            const D3: usize,
            const D4: usize,
            const D5: usize,
        > $($h)*
        {
            $($body)*
        }
    };
    (@header $attrs:tt $g:tt [$($h:tt)*] $t:tt $($rest:tt)*) => {
        $crate::array::impl_array!(@header $attrs $g [$($h)* $t] $($rest)*);
    };
}
pub(crate) use impl_array;

/// Implemented by every [`Array`] type: lets a function name "some array
/// type" whose shape the caller chooses, as the output of reshapes, axis
/// reductions and broadcasts whose shape Rust's types cannot compute.
///
/// ```
/// use jax::prelude::*;
/// // The caller's annotation picks the result shape.
/// fn filled<X: ArrayType<Elem = f32>>(v: f32) -> X {
///     X::from_data(vec![v; X::SIZE])
/// }
/// let m: Array<f32, 2, 3> = filled(1.5);
/// assert_eq!(m.to_vec(), [1.5; 6]);
/// ```
pub trait ArrayType: Sized + Clone {
    /// The element type.
    type Elem: Element;
    /// The shape, one entry per axis.
    const SHAPE: &'static [usize];
    /// The number of elements.
    const SIZE: usize;
    /// Wraps row-major data that has exactly `SIZE` elements (panics otherwise).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let m = <Array<i32, 2, 2> as ArrayType>::from_data(vec![1, 2, 3, 4]);
    /// assert_eq!(m, Array::from([[1, 2], [3, 4]]));
    /// ```
    fn from_data(data: Vec<Self::Elem>) -> Self;
    /// The row-major data.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let m = Array::<i32, 2, 2>::from([[1, 2], [3, 4]]);
    /// assert_eq!(ArrayType::data(&m), &[1, 2, 3, 4]);
    /// ```
    fn data(&self) -> &[Self::Elem];
    /// Whether the array is weakly typed (see [`Array::weak_type`]).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2>::ones();
    /// assert!(!x.is_weak());
    /// assert!((x + 1.0).is_weak());
    /// ```
    fn is_weak(&self) -> bool;
    /// Marks the array weakly typed or not.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::ones().set_weak(true);
    /// assert!(x.weak_type());
    /// assert!(!x.set_weak(false).weak_type());
    /// ```
    fn set_weak(self, weak: bool) -> Self;
    /// The row-major data moved out, when no other array shares it; else
    /// the array itself back. How a jitted function takes the buffer of an
    /// argument passed by value (donation).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2>::from([1, 2]);
    /// let y = x.clone();
    /// let x = x.try_into_data().expect_err("`y` shares the buffer");
    /// drop(y);
    /// assert_eq!(x.try_into_data().ok(), Some(vec![1, 2]));
    /// ```
    fn try_into_data(self) -> Result<Vec<Self::Elem>, Self>;
    /// The array type with the same shape and element type `U`.
    type WithElem<U: Element>: ArrayType<Elem = U, WithElem<Self::Elem> = Self>;
}

/// The element type of an array argument `A` (an array or a reference to one).
pub type ElemOf<A> = <<A as AsArray>::Array as ArrayType>::Elem;
/// The array type of argument `A` with element type `E`.
pub type WithElem<A, E> = <<A as AsArray>::Array as ArrayType>::WithElem<E>;

/// An array argument taken by value or by reference: `jnp::exp(x)` and
/// `jnp::exp(&x)` both work, so eager code reads like the jitted code.
///
/// ```
/// use jax::prelude::*;
/// // Accepts `x` and `&x`, like the `jnp` functions.
/// fn first<A: AsArray<Array = Array<f32, 3>>>(x: A) -> f32 {
///     x.as_array().as_slice()[0]
/// }
/// let x = Array::<f32, 3>::from([4.0, 5.0, 6.0]);
/// assert_eq!(first(&x), 4.0);
/// assert_eq!(first(x), 4.0);
/// ```
pub trait AsArray {
    /// The array type.
    type Array: ArrayType;
    /// Borrows the array.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([1.0, 2.0]);
    /// assert!(std::ptr::eq(x.as_array(), &x));
    /// ```
    fn as_array(&self) -> &Self::Array;
    /// The array itself (a cheap clone when given a reference).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([1.0, 2.0]);
    /// let y: Array<f32, 2> = (&x).into_array();
    /// assert_eq!(y.as_slice().as_ptr(), x.as_slice().as_ptr()); // shared buffer
    /// ```
    fn into_array(self) -> Self::Array;
}

impl_array! {
    impl<T: Element> Array<T, ..> {
        /// All six dimension slots, unused ones [`NONE`].
        pub const DIMS: [usize; MAX_RANK] = [D0, D1, D2, D3, D4, D5];

        /// The number of axes. Evaluating it checks that the used dimensions come
        /// first and are not zero-sized beyond what fits in memory.
        pub const RANK: usize = {
            let mut rank = 0;
            while rank < MAX_RANK && Self::DIMS[rank] != NONE {
                rank += 1;
            }
            let mut k = rank;
            while k < MAX_RANK {
                assert!(
                    Self::DIMS[k] == NONE,
                    "Array dimensions must be given left to right: a used dimension follows NONE"
                );
                k += 1;
            }
            rank
        };

        /// The shape, one entry per axis (empty for a scalar).
        pub const SHAPE: &'static [usize] = Self::DIMS.split_at(Self::RANK).0;

        /// The number of elements (1 for a scalar).
        pub const SIZE: usize = {
            let mut size: usize = 1;
            let mut k = 0;
            while k < Self::RANK {
                size = match size.checked_mul(Self::DIMS[k]) {
                    Some(s) => s,
                    None => panic!("Array size overflows usize"),
                };
                k += 1;
            }
            size
        };

        /// Wraps data whose length is already known to be `SIZE`.
        #[inline]
        pub(crate) fn from_vec_unchecked(data: Vec<T>) -> Self {
            debug_assert_eq!(data.len(), Self::SIZE);
            Array {
                data: Arc::new(data),
                weak: false,
            }
        }

        /// The same array marked weakly typed (see [`Array::weak_type`]).
        pub(crate) fn with_weak(mut self, weak: bool) -> Self {
            self.weak = weak;
            self
        }

        /// Builds an array from row-major data; `Err` if the length is not the array's size.
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::<f32, 2, 2>::from_vec(vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        /// assert_eq!(x.to_vec(), [1.0, 2.0, 3.0, 4.0]);
        /// assert!(Array::<f32, 2, 2>::from_vec(vec![1.0]).is_err());
        /// ```
        pub fn from_vec(data: Vec<T>) -> Result<Self, ShapeError> {
            if data.len() == Self::SIZE {
                Ok(Self::from_vec_unchecked(data))
            } else {
                Err(ShapeError::Length {
                    expected: Self::SHAPE.to_vec(),
                    len: data.len(),
                })
            }
        }

        /// Builds an array by calling `f` with each element's row-major index.
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::<i32, 4>::from_fn(|i| (i * i) as i32);
        /// assert_eq!(x.to_vec(), [0, 1, 4, 9]);
        /// ```
        pub fn from_fn(f: impl FnMut(usize) -> T) -> Self {
            Self::from_vec_unchecked((0..Self::SIZE).map(f).collect())
        }

        /// The shape, one entry per axis: `[3, 4]` for `Array<f32, 3, 4>`.
        ///
        /// ```
        /// use jax::Array;
        /// assert_eq!(Array::<f32, 3, 4>::zeros().shape(), &[3, 4]);
        /// assert_eq!(Array::<f32>::zeros().shape(), &[] as &[usize]);
        /// ```
        #[inline]
        pub fn shape(&self) -> &'static [usize] {
            Self::SHAPE
        }

        /// The number of axes.
        ///
        /// ```
        /// use jax::Array;
        /// assert_eq!(Array::<f32, 2, 3, 4>::zeros().ndim(), 3);
        /// assert_eq!(Array::<f32>::zeros().ndim(), 0);
        /// ```
        #[inline]
        pub fn ndim(&self) -> usize {
            Self::RANK
        }

        /// The number of elements.
        ///
        /// ```
        /// use jax::Array;
        /// assert_eq!(Array::<f32, 2, 3, 4>::zeros().size(), 24);
        /// assert_eq!(Array::<f32>::zeros().size(), 1);
        /// ```
        #[inline]
        pub fn size(&self) -> usize {
            Self::SIZE
        }

        /// The element type as a [`DType`].
        ///
        /// ```
        /// use jax::{Array, DType};
        /// assert_eq!(Array::<f32, 2>::zeros().dtype(), DType::F32);
        /// assert_eq!(Array::<i8, 2>::zeros().dtype(), DType::I8);
        /// ```
        #[inline]
        pub fn dtype(&self) -> DType {
            T::DTYPE
        }

        /// Whether the array is weakly typed, as JAX's results of operations on
        /// Python scalars are (`jnp.asarray(1.0)`); printed as `weak_type=True`.
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::<i32, 2>::ones();
        /// assert!(!x.weak_type());
        /// assert!((&x + 1.0).weak_type()); // i32 + a Rust float literal: weak float
        /// assert!(!(&x + 1).weak_type()); // the strong i32 wins
        /// ```
        #[inline]
        pub fn weak_type(&self) -> bool {
            self.weak
        }

        /// The elements in row-major order.
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::<i32, 2, 2>::from([[1, 2], [3, 4]]);
        /// assert_eq!(x.as_slice(), &[1, 2, 3, 4]);
        /// ```
        #[inline]
        pub fn as_slice(&self) -> &[T] {
            &self.data
        }

        /// A copy of the elements in row-major order.
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::<i32, 2, 2>::from([[1, 2], [3, 4]]);
        /// assert_eq!(x.to_vec(), vec![1, 2, 3, 4]);
        /// ```
        pub fn to_vec(&self) -> Vec<T> {
            self.data.to_vec()
        }

        /// The elements, without copying when this is the only reference to them.
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::<i32, 3>::from([1, 2, 3]);
        /// let v: Vec<i32> = x.into_vec();
        /// assert_eq!(v, [1, 2, 3]);
        /// ```
        pub fn into_vec(mut self) -> Vec<T> {
            // Taken out of the Arc (leaving an empty Vec for `drop`), since
            // `Array` has a `Drop` and its fields cannot be moved out.
            match Arc::get_mut(&mut self.data) {
                Some(v) => std::mem::take(v),
                None => self.data.to_vec(),
            }
        }

        /// Mutable access to the buffer, copying it first if it is shared. Only for
        /// functional updates that consume `self`, so no one can observe the write.
        pub(crate) fn make_mut(&mut self) -> &mut Vec<T> {
            Arc::make_mut(&mut self.data)
        }

        /// An array filled with `value`.
        ///
        /// ```
        /// use jax::Array;
        /// assert_eq!(Array::<f32, 2, 2>::full(0.5).to_vec(), [0.5; 4]);
        /// ```
        pub fn full(value: T) -> Self {
            Self::from_vec_unchecked(vec![value; Self::SIZE])
        }

        /// An array of zeros (`false` for bool).
        ///
        /// ```
        /// use jax::Array;
        /// assert_eq!(Array::<f32, 3>::zeros().to_vec(), [0.0; 3]);
        /// assert_eq!(Array::<bool, 2>::zeros().to_vec(), [false, false]);
        /// ```
        pub fn zeros() -> Self {
            Self::full(T::ZERO)
        }

        /// An array of ones (`true` for bool).
        ///
        /// ```
        /// use jax::Array;
        /// assert_eq!(Array::<i32, 3>::ones().to_vec(), [1; 3]);
        /// assert_eq!(Array::<bool, 2>::ones().to_vec(), [true, true]);
        /// ```
        pub fn ones() -> Self {
            Self::full(T::ONE)
        }

        /// `0, 1, 2, ...` in row-major order, converted to `T` as `astype` does.
        ///
        /// ```
        /// use jax::Array;
        /// let x: Array<f32, 2, 2> = Array::arange();
        /// assert_eq!(x.to_vec(), [0.0, 1.0, 2.0, 3.0]);
        /// ```
        pub fn arange() -> Self {
            Self::from_fn(|i| T::from_value(crate::element::Value::Int(i as i128)))
        }

        /// The element of a scalar array, or of a one-element array.
        ///
        /// ```
        /// use jax::Array;
        /// assert_eq!(Array::<i32>::full(7).item(), 7);
        /// ```
        ///
        /// On an array of more than one element it is a build error (a
        /// constant evaluated when `item` is instantiated, so `cargo build`
        /// reports it and `cargo check` does not):
        ///
        /// ```compile_fail,E0080
        /// use jax::Array;
        /// let x: Array<f32, 3> = Array::ones();
        /// let _ = x.item(); // error: item() needs an array with exactly one element
        /// ```
        pub fn item(&self) -> T {
            const {
                assert!(
                    Self::SIZE == 1,
                    "item() needs an array with exactly one element"
                )
            };
            self.data[0]
        }

        /// Converts every element to `U` with XLA's semantics: float to int
        /// saturates (NaN gives 0), int to int wraps, anything to bool is `!= 0`.
        ///
        /// ```
        /// use jax::Array;
        /// let x = Array::<f32, 4>::from([254.0, 255.0, 256.0, 257.0]);
        /// assert_eq!(x.astype::<u8>().to_vec(), [254, 255, 255, 255]);
        /// ```
        pub fn astype<U: Element>(&self) -> Array<U, D0, D1, D2, D3, D4, D5> {
            // A converted array is strongly typed, as in JAX.
            Array::from_vec_unchecked(self.data.iter().map(|&x| x.cast::<U>()).collect())
        }
    }
}

impl<T: Float, const N: usize> Array<T, N> {
    /// `N` evenly spaced values from `start` to `stop`, both included (`jnp.linspace`).
    ///
    /// ```
    /// use jax::Array;
    /// let x = Array::<f32, 3>::linspace(0.0, 1.0);
    /// assert_eq!(x.to_vec(), [0.0, 0.5, 1.0]);
    /// ```
    pub fn linspace(start: T, stop: T) -> Self {
        // As JAX computes it, so eager and jitted values agree.
        crate::jnp::linspace(start, stop)
    }
}

impl<T: Element, const N: usize> Array<T, N, N> {
    /// The identity matrix.
    ///
    /// ```
    /// use jax::Array;
    /// assert_eq!(Array::<i32, 2, 2>::eye().to_vec(), [1, 0, 0, 1]);
    /// ```
    pub fn eye() -> Self {
        Self::from_fn(|i| if i / N == i % N { T::ONE } else { T::ZERO })
    }
}

impl_array! {
    impl<T: Element> Clone for Array<T, ..> {
        fn clone(&self) -> Self {
            Array {
                data: Arc::clone(&self.data),
                weak: self.weak,
            }
        }
    }
}

impl_array! {
    impl<T: Element> Drop for Array<T, ..> {
        /// The last reference gives the buffer to the pool of output buffers
        /// (`__rt::pool`), so the next jitted call of the same size skips the
        /// allocation and its page faults. If two clones drop at the same time on
        /// two threads, both may see the other and neither pools: the buffer is
        /// then freed as usual.
        fn drop(&mut self) {
            if let Some(v) = Arc::get_mut(&mut self.data) {
                crate::__rt::pool::put(std::mem::take(v));
            }
        }
    }
}

impl_array! {
    impl<T: Element> PartialEq for Array<T, ..> {
        /// Element-wise equality of the data (NaN != NaN, as for floats).
        fn eq(&self, other: &Self) -> bool {
            self.data == other.data
        }
    }
}

impl_array! {
    impl<T: Element> ArrayType for Array<T, ..> {
        type Elem = T;
        const SHAPE: &'static [usize] = Self::SHAPE;
        const SIZE: usize = Self::SIZE;
        fn from_data(data: Vec<T>) -> Self {
            assert_eq!(data.len(), Self::SIZE, "internal error: wrong data length");
            Self::from_vec_unchecked(data)
        }
        fn data(&self) -> &[T] {
            &self.data
        }
        fn is_weak(&self) -> bool {
            self.weak
        }
        fn set_weak(self, weak: bool) -> Self {
            self.with_weak(weak)
        }
        fn try_into_data(mut self) -> Result<Vec<T>, Self> {
            // Taken out of the Arc, leaving an empty Vec for `drop`.
            match Arc::get_mut(&mut self.data) {
                Some(v) => Ok(std::mem::take(v)),
                None => Err(self),
            }
        }
        type WithElem<U: Element> = Array<U, D0, D1, D2, D3, D4, D5>;
    }
}

impl_array! {
    impl<T: Element> AsArray for Array<T, ..> {
        type Array = Self;
        #[inline]
        fn as_array(&self) -> &Self {
            self
        }
        #[inline]
        fn into_array(self) -> Self {
            self
        }
    }
}

impl_array! {
    impl<T: Element> AsArray for &Array<T, ..> {
        type Array = Array<T, D0, D1, D2, D3, D4, D5>;
        #[inline]
        fn as_array(&self) -> &Self::Array {
            self
        }
        #[inline]
        fn into_array(self) -> Self::Array {
            self.clone()
        }
    }
}

impl_array! {
    impl<T: Element> Default for Array<T, ..> {
        fn default() -> Self {
            Self::zeros()
        }
    }
}

// Nested Rust arrays, rank 0 to 4.
impl<T: Element> From<T> for Array<T> {
    fn from(v: T) -> Self {
        Array::from_vec_unchecked(vec![v])
    }
}

impl<T: Element, const D0: usize> From<[T; D0]> for Array<T, D0> {
    fn from(v: [T; D0]) -> Self {
        Array::from_vec_unchecked(v.to_vec())
    }
}

impl<T: Element, const D0: usize, const D1: usize> From<[[T; D1]; D0]> for Array<T, D0, D1> {
    /// ```
    /// use jax::Array;
    /// let m = Array::from([[1.0f32, 2.0], [3.0, 4.0]]);
    /// assert_eq!(m.shape(), &[2, 2]);
    /// ```
    fn from(v: [[T; D1]; D0]) -> Self {
        Array::from_vec_unchecked(v.as_flattened().to_vec())
    }
}

impl<T: Element, const D0: usize, const D1: usize, const D2: usize> From<[[[T; D2]; D1]; D0]>
    for Array<T, D0, D1, D2>
{
    fn from(v: [[[T; D2]; D1]; D0]) -> Self {
        Array::from_vec_unchecked(v.as_flattened().as_flattened().to_vec())
    }
}

impl<T: Element, const D0: usize, const D1: usize, const D2: usize, const D3: usize>
    From<[[[[T; D3]; D2]; D1]; D0]> for Array<T, D0, D1, D2, D3>
{
    fn from(v: [[[[T; D3]; D2]; D1]; D0]) -> Self {
        Array::from_vec_unchecked(v.as_flattened().as_flattened().as_flattened().to_vec())
    }
}

// A scalar array converts to its Rust scalar: `let v: f32 = x.sum().into();`.
macro_rules! impl_into_scalar {
    ($($t:ty),*) => {$(
        impl From<Array<$t>> for $t {
            fn from(a: Array<$t>) -> $t {
                a.item()
            }
        }
    )*};
}
impl_into_scalar!(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_consts() {
        assert_eq!(Array::<f32>::SHAPE, &[] as &[usize]);
        assert_eq!(Array::<f32>::SIZE, 1);
        assert_eq!(Array::<f32, 3, 4>::SHAPE, &[3, 4]);
        assert_eq!(Array::<f32, 2, 3, 4, 5, 6, 7>::SIZE, 5040);
        assert_eq!(Array::<f32, 0, 3>::SIZE, 0);
    }

    #[test]
    fn arrays_are_shared_and_send() {
        fn send_sync<X: Send + Sync>() {}
        send_sync::<Array<f32, 3>>();
        let x = Array::<f32, 3>::ones();
        let y = x.clone();
        assert!(std::ptr::eq(x.as_slice(), y.as_slice()));
    }

    #[test]
    fn wrong_length_is_an_error() {
        let e = Array::<f32, 2, 3>::from_vec(vec![0.0; 5]).unwrap_err();
        assert_eq!(e.to_string(), "expected 6 elements for shape [2, 3], got 5");
    }
}
