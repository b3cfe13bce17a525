//! Pytrees: nested containers of arrays, as JAX's `jax.tree` module sees them.
//!
//! A type is a pytree when it implements [`Pytree`]: every [`Array`] is a
//! leaf; `()`, tuples (up to 6), fixed-size Rust arrays `[T; N]` and `Vec<T>`
//! of pytrees are containers; structs get the impl from
//! `#[derive(jax::Pytree)]` or from being declared inside a `#[jax::jit] mod`.
//! Leaves are visited in JAX's flattening order: struct fields in declaration
//! order, tuple and list elements in order.
//!
//! ```
//! use jax::prelude::*;
//! use jax::tree::{Pytree, TreeDef};
//!
//! let t = (Array::<f32, 2>::ones(), [Array::<i32>::zeros(), Array::<i32>::ones()]);
//! let mut n = 0;
//! t.for_each_leaf(&mut |_| n += 1);
//! assert_eq!(n, 3);
//! assert_eq!(t.def().to_string(), "PyTreeDef((*, [*, *]))");
//! ```

use std::any::Any;
use std::fmt;

use crate::element::{bf16, f16, Complex, DType, Element};
use crate::Array;

/// A pytree: a value made of array leaves in a fixed structure.
///
/// Implemented for every [`Array`] (a leaf), `()`, tuples up to 6, `[T; N]`,
/// `Vec<T>`, and for structs by `#[derive(jax::Pytree)]`.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree::Pytree;
///
/// let mut t = (Array::<f32, 2>::ones(), Array::<f32>::full(3.0));
/// let mut sizes = vec![];
/// t.for_each_leaf(&mut |l| sizes.push(l.shape().iter().product::<usize>()));
/// assert_eq!(sizes, [2, 1]);
/// // Double every leaf in place.
/// t.for_each_leaf_mut(&mut |l| {
///     let v: Vec<f64> = l.to_dyn().to_vec_f64().iter().map(|x| 2.0 * x).collect();
///     let d = jax::tree::DynArray::from_f64(l.dtype(), l.shape().to_vec(), &v).unwrap();
///     l.assign(d).unwrap();
/// });
/// assert_eq!(t.1.item(), 6.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pytree",
    label = "not a pytree",
    note = "add `#[derive(jax::Pytree)]` to the definition of `{Self}` (its fields must be arrays, tuples, `[T; N]` or other pytrees)"
)]
pub trait Pytree: Clone {
    /// Every leaf, in JAX's flattening order (struct fields in declaration
    /// order, tuple/array elements in order).
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf));
    /// Every leaf, mutably, in the same order as [`Pytree::for_each_leaf`].
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf));
    /// The structure (JAX's PyTreeDef; `Display` prints like JAX's `PyTreeDef(...)`).
    fn def(&self) -> TreeDef;
}

/// One leaf, type-erased: an [`Array`] of any element type and shape.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree::Leaf;
///
/// let mut x = Array::<f32, 2>::zeros();
/// assert_eq!((Leaf::dtype(&x), Leaf::shape(&x)), (DType::F32, &[2usize][..]));
/// x.assign(jax::tree::DynArray::from_vec(vec![2], vec![1.0f32, 2.0]).unwrap()).unwrap();
/// assert_eq!(x.to_vec(), [1.0, 2.0]);
/// ```
pub trait Leaf {
    /// The element type.
    fn dtype(&self) -> DType;
    /// The shape, one entry per axis.
    fn shape(&self) -> &[usize];
    /// A copy of the leaf as a dynamically typed array.
    fn to_dyn(&self) -> DynArray;
    /// Replaces the leaf's value; an error (naming both) when the dtype or the
    /// shape differ from the leaf's.
    fn assign(&mut self, v: DynArray) -> Result<(), TreeError>;
}

/// The structure of a pytree, JAX's `PyTreeDef`: what is left of a pytree
/// when its leaves are taken out.
///
/// `Display` prints it as JAX's `str(jax.tree.structure(x))`.
///
/// ```
/// use jax::tree::TreeDef;
/// let d = TreeDef::Tuple(vec![TreeDef::Leaf, TreeDef::List(vec![TreeDef::Leaf, TreeDef::None])]);
/// assert_eq!(d.to_string(), "PyTreeDef((*, [*, None]))");
/// assert_eq!(d.num_leaves(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TreeDef {
    /// One array.
    Leaf,
    /// Nothing (Python's `None`): no leaves.
    None,
    /// A tuple of subtrees (Rust tuples and `()`).
    Tuple(Vec<TreeDef>),
    /// A list of subtrees (Rust `[T; N]` and `Vec<T>`).
    List(Vec<TreeDef>),
    /// A struct (a registered dataclass in JAX) with named fields.
    Node {
        /// The struct's name.
        name: &'static str,
        /// The field names, in declaration order.
        fields: Vec<&'static str>,
        /// One subtree per field.
        children: Vec<TreeDef>,
    },
}

impl TreeDef {
    /// The number of leaves (JAX's `treedef.num_leaves`).
    ///
    /// ```
    /// use jax::tree::TreeDef;
    /// assert_eq!(TreeDef::List(vec![TreeDef::Leaf; 3]).num_leaves(), 3);
    /// assert_eq!(TreeDef::None.num_leaves(), 0);
    /// ```
    pub fn num_leaves(&self) -> usize {
        match self {
            TreeDef::Leaf => 1,
            TreeDef::None => 0,
            TreeDef::Tuple(c) | TreeDef::List(c) | TreeDef::Node { children: c, .. } => {
                c.iter().map(TreeDef::num_leaves).sum()
            }
        }
    }

    /// The structure without the `PyTreeDef(..)` wrapper, as JAX prints nested nodes.
    fn write_inner(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn seq(f: &mut fmt::Formatter<'_>, c: &[TreeDef]) -> fmt::Result {
            for (i, t) in c.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                t.write_inner(f)?;
            }
            Ok(())
        }
        match self {
            TreeDef::Leaf => f.write_str("*"),
            TreeDef::None => f.write_str("None"),
            TreeDef::Tuple(c) => {
                f.write_str("(")?;
                seq(f, c)?;
                // A one-element tuple keeps Python's trailing comma.
                if c.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            TreeDef::List(c) => {
                f.write_str("[")?;
                seq(f, c)?;
                f.write_str("]")
            }
            TreeDef::Node { name, children, .. } => {
                // As JAX prints a dataclass registered with
                // `jax.tree_util.register_dataclass` (no metadata fields):
                // `CustomNode(Name[()], [children])`; field names are not printed.
                write!(f, "CustomNode({name}[()], [")?;
                seq(f, children)?;
                f.write_str("])")
            }
        }
    }
}

impl fmt::Display for TreeDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PyTreeDef(")?;
        self.write_inner(f)?;
        f.write_str(")")
    }
}

/// An error of a tree operation: mismatched structures, or a leaf of the
/// wrong dtype or shape. The message is JAX's where JAX has one.
///
/// ```
/// use jax::tree::TreeError;
/// let e = TreeError::new("leaf has the wrong shape");
/// assert_eq!(e.to_string(), "leaf has the wrong shape");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeError {
    message: String,
}

impl TreeError {
    /// An error with this message.
    ///
    /// ```
    /// use jax::tree::TreeError;
    /// assert_eq!(TreeError::new("x").message(), "x");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        TreeError {
            message: message.into(),
        }
    }

    /// The message.
    ///
    /// ```
    /// use jax::tree::TreeError;
    /// assert_eq!(TreeError::new("bad leaf").message(), "bad leaf");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TreeError {}

/// A function of a slice of any element type, for
/// [`DynData::visit_mut`]: the one generic body each dtype's arm calls.
pub(crate) trait ElementsMut {
    type Out;
    fn call<T: Element>(self, v: &mut [T]) -> Self::Out;
}

/// Lists the element types once: `$m!(Variant, RustType, ...)`.
macro_rules! for_each_dtype {
    ($m:ident) => {
        $m! {
            Bool bool, U8 u8, U16 u16, U32 u32, U64 u64,
            I8 i8, I16 i16, I32 i32, I64 i64,
            BF16 bf16, F16 f16, F32 f32, F64 f64,
            C64 Complex<f32>, C128 Complex<f64>
        }
    };
}

macro_rules! define_dyn_data {
    ($($v:ident $t:ty),*) => {
        /// The elements of a [`DynArray`], row-major, one variant per dtype.
        ///
        /// ```
        /// use jax::tree::{DynArray, DynData};
        /// let x = DynArray::from_vec(vec![2], vec![1i32, 2]).unwrap();
        /// assert!(matches!(x.data(), DynData::I32(v) if v == &[1, 2]));
        /// ```
        #[derive(Clone, Debug, PartialEq)]
        pub enum DynData {
            $(
                #[doc = concat!("`", stringify!($t), "` elements.")]
                $v(Vec<$t>),
            )*
        }

        impl DynData {
            /// The dtype of the elements.
            ///
            /// ```
            /// use jax::{tree::DynData, DType};
            /// assert_eq!(DynData::F32(vec![]).dtype(), DType::F32);
            /// ```
            pub fn dtype(&self) -> DType {
                match self {
                    $(DynData::$v(_) => DType::$v,)*
                }
            }

            /// The number of elements.
            ///
            /// ```
            /// use jax::tree::DynData;
            /// assert_eq!(DynData::U8(vec![1, 2, 3]).len(), 3);
            /// ```
            pub fn len(&self) -> usize {
                match self {
                    $(DynData::$v(d) => d.len(),)*
                }
            }

            /// Whether there are no elements.
            ///
            /// ```
            /// use jax::tree::DynData;
            /// assert!(DynData::U8(vec![]).is_empty());
            /// ```
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// Wraps a vector of any element type.
            pub(crate) fn wrap<T: Element>(v: Vec<T>) -> DynData {
                let any: Box<dyn Any> = Box::new(v);
                match T::DTYPE {
                    $(DType::$v => match any.downcast::<Vec<$t>>() {
                        Ok(v) => DynData::$v(*v),
                        Err(_) => unreachable!("Element::DTYPE names its own type"),
                    },)*
                }
            }

            /// The elements as a `&[T]`, if `T` is their type.
            pub(crate) fn as_slice_of<T: Element>(&self) -> Option<&[T]> {
                match self {
                    $(DynData::$v(d) => (d as &dyn Any).downcast_ref::<Vec<T>>().map(|v| v.as_slice()),)*
                }
            }

            /// The elements as a `Vec<T>`, if `T` is their type.
            fn into_vec_of<T: Element>(self) -> Result<Vec<T>, DynData> {
                match self {
                    $(DynData::$v(d) => {
                        let any: Box<dyn Any> = Box::new(d);
                        match any.downcast::<Vec<T>>() {
                            Ok(v) => Ok(*v),
                            Err(any) => match any.downcast::<Vec<$t>>() {
                                Ok(d) => Err(DynData::$v(*d)),
                                Err(_) => unreachable!("the box holds a Vec<{}>", stringify!($t)),
                            },
                        }
                    })*
                }
            }

            /// Calls `f` with the elements as a mutable slice of their type.
            pub(crate) fn visit_mut<F: ElementsMut>(&mut self, f: F) -> F::Out {
                match self {
                    $(DynData::$v(d) => f.call(d.as_mut_slice()),)*
                }
            }

            /// The `len` elements from `start`, in a pooled buffer.
            pub(crate) fn range(&self, start: usize, len: usize) -> DynData {
                match self {
                    $(DynData::$v(d) => {
                        let mut b = crate::__rt::buffer::<$t>(len);
                        b.copy_from_slice(&d[start..start + len]);
                        DynData::$v(b)
                    })*
                }
            }

            /// A pooled buffer of `n` elements of `dtype`, with stale values.
            pub(crate) fn buffer(dtype: DType, n: usize) -> DynData {
                match dtype {
                    $(DType::$v => DynData::$v(crate::__rt::buffer::<$t>(n)),)*
                }
            }

            /// Gives the elements' buffer back to the pool.
            pub(crate) fn recycle(self) {
                match self {
                    $(DynData::$v(d) => crate::__rt::pool::put(d),)*
                }
            }

            /// Every element as `f64` (complex: the real part).
            fn to_f64(&self) -> Vec<f64> {
                match self {
                    $(DynData::$v(d) => d.iter().map(|&x| Element::to_f64(x)).collect(),)*
                }
            }

            /// Elements of `dtype` converted from `f64` with XLA's semantics.
            pub(crate) fn from_f64(dtype: DType, v: &[f64]) -> DynData {
                match dtype {
                    $(DType::$v => DynData::$v(v.iter().map(|&x| <$t as Element>::from_f64(x)).collect()),)*
                }
            }
        }
    };
}
for_each_dtype!(define_dyn_data);

/// An owned, dynamically typed array: a shape and the row-major elements of
/// one dtype. What the eager tree functions hand to their closures.
///
/// ```
/// use jax::prelude::*;
/// use jax::tree::DynArray;
///
/// let x = DynArray::from_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
/// assert_eq!((x.dtype(), x.shape()), (DType::F32, &[2usize, 2][..]));
/// assert_eq!(x.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
/// assert!(x.to_vec::<i32>().is_err()); // checked
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DynArray {
    shape: Vec<usize>,
    data: DynData,
    /// JAX's weak type: a Rust scalar, or an array computed only from them.
    weak: bool,
}

impl DynArray {
    /// An array of `shape` from row-major `data`; an error if the length is
    /// not the product of the shape.
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// assert!(DynArray::from_vec(vec![3], vec![1u8, 2, 3]).is_ok());
    /// assert!(DynArray::from_vec(vec![2], vec![1u8, 2, 3]).is_err());
    /// ```
    pub fn from_vec<T: Element>(shape: Vec<usize>, data: Vec<T>) -> Result<Self, TreeError> {
        Self::new(shape, DynData::wrap(data))
    }

    /// An array of `shape` from elements of any dtype; an error if the length
    /// is not the product of the shape.
    ///
    /// ```
    /// use jax::tree::{DynArray, DynData};
    /// let x = DynArray::new(vec![], DynData::F64(vec![2.5])).unwrap();
    /// assert_eq!(x.to_vec_f64(), [2.5]);
    /// ```
    pub fn new(shape: Vec<usize>, data: DynData) -> Result<Self, TreeError> {
        let size: usize = shape.iter().product();
        if size != data.len() {
            return Err(TreeError::new(format!(
                "expected {size} elements for shape {shape:?}, got {}",
                data.len()
            )));
        }
        Ok(DynArray {
            shape,
            data,
            weak: false,
        })
    }

    /// An array of `dtype` and `shape` from `f64` values, converted with XLA's
    /// semantics (float to int saturates, NaN gives 0).
    ///
    /// ```
    /// use jax::{tree::DynArray, DType};
    /// let x = DynArray::from_f64(DType::U8, vec![2], &[300.0, -1.0]).unwrap();
    /// assert_eq!(x.to_vec::<u8>().unwrap(), [255, 0]);
    /// ```
    pub fn from_f64(dtype: DType, shape: Vec<usize>, data: &[f64]) -> Result<Self, TreeError> {
        Self::new(shape, DynData::from_f64(dtype, data))
    }

    /// A scalar (shape `[]`).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// assert_eq!(DynArray::scalar(3i32).to_vec::<i32>().unwrap(), [3]);
    /// ```
    pub fn scalar<T: Element>(v: T) -> Self {
        DynArray {
            shape: vec![],
            data: DynData::wrap(vec![v]),
            weak: false,
        }
    }

    /// The element type.
    ///
    /// ```
    /// use jax::{tree::DynArray, DType};
    /// assert_eq!(DynArray::scalar(1.0f64).dtype(), DType::F64);
    /// ```
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    /// The shape, one entry per axis.
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// assert_eq!(DynArray::from_vec(vec![1, 2], vec![0i8, 1]).unwrap().shape(), &[1, 2]);
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements.
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// assert_eq!(DynArray::from_vec(vec![2, 3], vec![0i8; 6]).unwrap().size(), 6);
    /// ```
    pub fn size(&self) -> usize {
        self.data.len()
    }

    /// The elements.
    ///
    /// ```
    /// use jax::tree::{DynArray, DynData};
    /// assert_eq!(DynArray::scalar(true).data(), &DynData::Bool(vec![true]));
    /// ```
    pub fn data(&self) -> &DynData {
        &self.data
    }

    /// The shape and the elements.
    ///
    /// ```
    /// use jax::tree::{DynArray, DynData};
    /// let (shape, data) = DynArray::scalar(1u16).into_parts();
    /// assert_eq!((shape, data), (vec![], DynData::U16(vec![1])));
    /// ```
    pub fn into_parts(self) -> (Vec<usize>, DynData) {
        (self.shape, self.data)
    }

    /// The elements as `&[T]`; an error naming both dtypes if `T` is not the
    /// array's element type.
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// let x = DynArray::from_vec(vec![2], vec![1i64, 2]).unwrap();
    /// assert_eq!(x.as_slice::<i64>().unwrap(), &[1, 2]);
    /// assert!(x.as_slice::<i32>().is_err());
    /// ```
    pub fn as_slice<T: Element>(&self) -> Result<&[T], TreeError> {
        self.data
            .as_slice_of::<T>()
            .ok_or_else(|| self.dtype_error(T::DTYPE))
    }

    /// A copy of the elements as `Vec<T>`; an error naming both dtypes if `T`
    /// is not the array's element type (no conversion: use
    /// [`DynArray::astype`] first).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// let x = DynArray::scalar(2.0f32);
    /// assert_eq!(x.to_vec::<f32>().unwrap(), [2.0]);
    /// assert_eq!(
    ///     x.to_vec::<f64>().unwrap_err().to_string(),
    ///     "expected an array of dtype float64, got float32"
    /// );
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, TreeError> {
        self.as_slice::<T>().map(|s| s.to_vec())
    }

    /// The elements as `Vec<T>` without copying; the same checks as [`DynArray::to_vec`].
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// assert_eq!(DynArray::scalar(7u8).into_vec::<u8>().unwrap(), [7]);
    /// ```
    pub fn into_vec<T: Element>(self) -> Result<Vec<T>, TreeError> {
        let dtype = self.dtype();
        self.data
            .into_vec_of::<T>()
            .map_err(|_| dtype_mismatch(T::DTYPE, dtype))
    }

    /// Every element as `f64` (complex: the real part; bool: 0 or 1).
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// assert_eq!(DynArray::from_vec(vec![2], vec![true, false]).unwrap().to_vec_f64(), [1.0, 0.0]);
    /// ```
    pub fn to_vec_f64(&self) -> Vec<f64> {
        self.data.to_f64()
    }

    /// Converts every element to `dtype` with XLA's semantics (as `Array::astype`).
    ///
    /// ```
    /// use jax::{tree::DynArray, DType};
    /// let x = DynArray::from_vec(vec![2], vec![1.7f32, -2.5]).unwrap();
    /// assert_eq!(x.astype(DType::I32).to_vec::<i32>().unwrap(), [1, -2]);
    /// ```
    pub fn astype(&self, dtype: DType) -> DynArray {
        if dtype == self.dtype() {
            return self.clone();
        }
        macro_rules! convert {
            ($($v:ident $t:ty),*) => {
                match &self.data {
                    $(DynData::$v(d) => DynData::from_elements(dtype, d),)*
                }
            };
        }
        DynArray {
            shape: self.shape.clone(),
            data: for_each_dtype!(convert),
            weak: self.weak,
        }
    }

    /// Converts to a typed [`Array`]; an error naming the dtypes or shapes if
    /// they differ from the array type's.
    ///
    /// ```
    /// use jax::prelude::*;
    /// use jax::tree::DynArray;
    /// let x = DynArray::from_vec(vec![2], vec![1.0f32, 2.0]).unwrap();
    /// let a: Array<f32, 2> = x.to_array().unwrap();
    /// assert_eq!(a.to_vec(), [1.0, 2.0]);
    /// assert!(x.to_array::<Array<f32, 3>>().is_err());
    /// ```
    pub fn to_array<A: Leaf + Default>(&self) -> Result<A, TreeError> {
        let mut a = A::default();
        a.assign(self.clone())?;
        Ok(a)
    }

    /// Whether the array is weakly typed (as JAX's `weak_type`): then in
    /// arithmetic with a strongly typed array it takes that array's dtype.
    ///
    /// ```
    /// use jax::{tree::DynArray, DType};
    /// let w = DynArray::from(0.5f64);
    /// assert!(w.weak_type());
    /// let x = DynArray::from_vec(vec![1], vec![2.0f32]).unwrap();
    /// assert_eq!((&x * &w).dtype(), DType::F32); // the weak f64 takes x's dtype
    /// ```
    pub fn weak_type(&self) -> bool {
        self.weak
    }

    /// The same array, weakly typed or not.
    ///
    /// ```
    /// use jax::tree::DynArray;
    /// assert!(DynArray::scalar(1.0f32).with_weak(true).weak_type());
    /// ```
    pub fn with_weak(mut self, weak: bool) -> Self {
        self.weak = weak;
        self
    }

    fn dtype_error(&self, expected: DType) -> TreeError {
        dtype_mismatch(expected, self.dtype())
    }
}

fn dtype_mismatch(expected: DType, found: DType) -> TreeError {
    TreeError::new(format!(
        "expected an array of dtype {}, got {}",
        expected.name(),
        found.name()
    ))
}

impl DynData {
    /// Elements of `dtype` converted from any element type with XLA's semantics.
    fn from_elements<S: Element>(dtype: DType, d: &[S]) -> DynData {
        macro_rules! build {
            ($($v:ident $t:ty),*) => {
                match dtype {
                    $(DType::$v => DynData::$v(d.iter().map(|&x| x.cast::<$t>()).collect()),)*
                }
            };
        }
        for_each_dtype!(build)
    }
}

crate::array::impl_array! {
    impl<T: Element> From<Array<T, ..>> for DynArray {
        /// ```
        /// use jax::prelude::*;
        /// use jax::tree::DynArray;
        /// let d = DynArray::from(Array::<i32, 2>::from([1, 2]));
        /// assert_eq!(d.shape(), &[2]);
        /// ```
        fn from(a: Array<T, D0, D1, D2, D3, D4, D5>) -> DynArray {
            DynArray {
                shape: Array::<T, D0, D1, D2, D3, D4, D5>::SHAPE.to_vec(),
                weak: a.weak_type(),
                data: DynData::wrap(a.into_vec()),
            }
        }
    }
}

crate::array::impl_array! {
    impl<T: Element> Leaf for Array<T, ..> {
        fn dtype(&self) -> DType {
            T::DTYPE
        }
        fn shape(&self) -> &[usize] {
            Self::SHAPE
        }
        fn to_dyn(&self) -> DynArray {
            DynArray {
                shape: Self::SHAPE.to_vec(),
                data: DynData::wrap(self.to_vec()),
                weak: self.weak_type(),
            }
        }
        fn assign(&mut self, v: DynArray) -> Result<(), TreeError> {
            check_leaf(T::DTYPE, Self::SHAPE, &v)?;
            let data = v.into_vec::<T>()?;
            // Replaces the buffer's contents (copy-on-write when shared); the
            // leaf keeps its weak type.
            *self.make_mut() = data;
            Ok(())
        }
    }
}

crate::array::impl_array! {
    impl<T: Element> Pytree for Array<T, ..> {
        fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
            f(self)
        }
        fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
            f(self)
        }
        fn def(&self) -> TreeDef {
            TreeDef::Leaf
        }
    }
}

/// The error of assigning `v` to a leaf of `dtype` and `shape`, if any.
fn check_leaf(dtype: DType, shape: &[usize], v: &DynArray) -> Result<(), TreeError> {
    if v.dtype() != dtype || v.shape() != shape {
        return Err(TreeError::new(format!(
            "cannot assign an array of dtype {} and shape {:?} to a leaf of dtype {} and shape {:?}",
            v.dtype().name(),
            v.shape(),
            dtype.name(),
            shape
        )));
    }
    Ok(())
}

impl Pytree for () {
    fn for_each_leaf(&self, _: &mut dyn FnMut(&dyn Leaf)) {}
    fn for_each_leaf_mut(&mut self, _: &mut dyn FnMut(&mut dyn Leaf)) {}
    fn def(&self) -> TreeDef {
        TreeDef::Tuple(vec![])
    }
}

macro_rules! impl_tuple {
    ($($T:ident $i:tt),+) => {
        impl<$($T: Pytree),+> Pytree for ($($T,)+) {
            fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
                $(self.$i.for_each_leaf(f);)+
            }
            fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
                $(self.$i.for_each_leaf_mut(f);)+
            }
            fn def(&self) -> TreeDef {
                TreeDef::Tuple(vec![$(self.$i.def()),+])
            }
        }
    };
}
impl_tuple!(A 0);
impl_tuple!(A 0, B 1);
impl_tuple!(A 0, B 1, C 2);
impl_tuple!(A 0, B 1, C 2, D 3);
impl_tuple!(A 0, B 1, C 2, D 3, E 4);
impl_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
impl_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
impl_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
impl_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
impl_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
impl_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
impl_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

impl<T: Pytree, const N: usize> Pytree for [T; N] {
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
        for t in self {
            t.for_each_leaf(f);
        }
    }
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
        for t in self {
            t.for_each_leaf_mut(f);
        }
    }
    fn def(&self) -> TreeDef {
        TreeDef::List(self.iter().map(Pytree::def).collect())
    }
}

impl<T: Pytree> Pytree for Vec<T> {
    fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn Leaf)) {
        for t in self {
            t.for_each_leaf(f);
        }
    }
    fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn Leaf)) {
        for t in self {
            t.for_each_leaf_mut(f);
        }
    }
    fn def(&self) -> TreeDef {
        TreeDef::List(self.iter().map(Pytree::def).collect())
    }
}

// After the dtype macros, which they use.
mod arith;
mod funcs;
mod safetensors;

pub use self::safetensors::{load_safetensors, save_safetensors};
pub use funcs::{leaves, map, map2, map3, reduce, structure, unflatten};
