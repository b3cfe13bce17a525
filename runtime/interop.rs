//! Conversions between [`Array`] and [`ndarray`]'s arrays.
//!
//! An [`Array`] converts to an owned `ndarray::ArrayD` ([`Array::to_ndarray`],
//! `From`) or is viewed as one without copying ([`Array::as_ndarray`]). Any
//! `ndarray` array or view converts back with `TryFrom`, which checks the
//! shape against the target type and copies the elements in logical
//! row-major order, so transposed and strided views convert correctly.
//!
//! ```
//! use jax::Array;
//! use jax::interop::ndarray;
//!
//! let m = ndarray::arr2(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
//! let x = Array::<f32, 3, 2>::try_from(m.t()).unwrap();
//! assert_eq!(x.to_vec(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
//! assert_eq!(x.to_ndarray(), m.t().into_dyn());
//! ```

/// The `ndarray` crate these conversions use, so that callers can name the
/// same version: `use jax::interop::ndarray;`.
pub use ndarray;

use ndarray::{ArrayBase, ArrayD, ArrayViewD, Data, Dimension, IxDyn};

use crate::array::{impl_array, Array};
use crate::element::Element;
use crate::error::ShapeError;

impl_array! {
    impl<T: Element> Array<T, ..> {
        /// A copy as an `ndarray` array with a dynamic number of axes.
        ///
        /// ```
        /// use jax::Array;
        /// let x: Array<i32, 2, 2> = Array::arange();
        /// let m = x.to_ndarray();
        /// assert_eq!(m.shape(), &[2, 2]);
        /// assert_eq!(m[[1, 0]], 2);
        /// ```
        pub fn to_ndarray(&self) -> ArrayD<T> {
            self.as_ndarray().to_owned()
        }

        /// An `ndarray` view of the data, without copying.
        ///
        /// ```
        /// use jax::Array;
        /// let x: Array<f32, 2, 3> = Array::arange();
        /// let v = x.as_ndarray();
        /// assert_eq!(v[[1, 2]], 5.0);
        /// assert_eq!(v.sum(), 15.0);
        /// ```
        pub fn as_ndarray(&self) -> ArrayViewD<'_, T> {
            ArrayViewD::from_shape(IxDyn(Self::SHAPE), self.as_slice())
                .expect("an Array's data always has the length of its shape")
        }

        /// Copies an `ndarray` array or view of the matching shape, in logical
        /// row-major order whatever its strides.
        fn from_ndarray<S: Data<Elem = T>, D: Dimension>(
            a: &ArrayBase<S, D>,
        ) -> Result<Self, ShapeError> {
            if a.shape() != Self::SHAPE {
                return Err(ShapeError::Shape {
                    expected: Self::SHAPE.to_vec(),
                    found: a.shape().to_vec(),
                });
            }
            // `iter` visits elements in logical order; a standard-layout array
            // goes through one contiguous copy instead.
            let data = match a.as_slice() {
                Some(s) => s.to_vec(),
                None => a.iter().copied().collect(),
            };
            Ok(Self::from_vec_unchecked(data))
        }
    }
}

impl_array! {
    impl<T: Element, S: Data<Elem = T>, D: Dimension> TryFrom<ArrayBase<S, D>> for Array<T, ..> {
        type Error = ShapeError;

        /// Copies an owned `ndarray` array (or a view taken by value); `Err` with
        /// both shapes if its shape is not the array type's.
        ///
        /// ```
        /// use jax::{Array, ShapeError};
        /// use jax::interop::ndarray;
        ///
        /// let x = Array::<f64, 2, 2>::try_from(ndarray::arr2(&[[1.0, 2.0], [3.0, 4.0]])).unwrap();
        /// assert_eq!(x.to_vec(), [1.0, 2.0, 3.0, 4.0]);
        ///
        /// let err = Array::<f64, 3>::try_from(ndarray::arr1(&[1.0, 2.0])).unwrap_err();
        /// assert_eq!(err, ShapeError::Shape { expected: vec![3], found: vec![2] });
        /// ```
        fn try_from(a: ArrayBase<S, D>) -> Result<Self, ShapeError> {
            Self::from_ndarray(&a)
        }
    }
}

impl_array! {
    impl<T: Element, S: Data<Elem = T>, D: Dimension> TryFrom<&ArrayBase<S, D>> for Array<T, ..> {
        type Error = ShapeError;

        /// Copies a borrowed `ndarray` array or view; `Err` with both shapes if
        /// its shape is not the array type's.
        ///
        /// ```
        /// use jax::Array;
        /// use jax::interop::ndarray::{self, s};
        ///
        /// let m = ndarray::Array::from_shape_fn((4, 6), |(i, j)| (10 * i + j) as i32);
        /// let every_other = m.slice(s![..;2, 1..;2]);
        /// let x = Array::<i32, 2, 3>::try_from(&every_other).unwrap();
        /// assert_eq!(x.to_vec(), [1, 3, 5, 21, 23, 25]);
        /// ```
        fn try_from(a: &ArrayBase<S, D>) -> Result<Self, ShapeError> {
            Self::from_ndarray(a)
        }
    }
}

impl_array! {
    impl<T: Element> From<Array<T, ..>> for ArrayD<T> {
        /// Moves the data into an `ndarray` array, without copying when the
        /// array is not shared.
        ///
        /// ```
        /// use jax::Array;
        /// use jax::interop::ndarray::ArrayD;
        ///
        /// let m: ArrayD<u8> = Array::<u8, 3>::from([1, 2, 3]).into();
        /// assert_eq!(m.shape(), &[3]);
        /// ```
        fn from(a: Array<T, D0, D1, D2, D3, D4, D5>) -> ArrayD<T> {
            let shape = IxDyn(Array::<T, D0, D1, D2, D3, D4, D5>::SHAPE);
            ArrayD::from_shape_vec(shape, a.into_vec())
                .expect("an Array's data always has the length of its shape")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_round_trip() {
        let x = Array::<f32>::full(2.5);
        let m = x.to_ndarray();
        assert_eq!(m.ndim(), 0);
        assert_eq!(Array::<f32>::try_from(m).unwrap(), x);
    }

    #[test]
    fn rank_mismatch_is_an_error() {
        let m = ndarray::Array::<f32, _>::zeros((2, 3));
        let err = Array::<f32, 6>::try_from(&m).unwrap_err();
        assert_eq!(
            err,
            ShapeError::Shape {
                expected: vec![6],
                found: vec![2, 3]
            }
        );
    }
}
