//! Errors of fallible conversions.

use std::fmt;

/// Data that does not fit an array type's shape.
///
/// ```
/// use jax::{Array, ShapeError};
/// let err = Array::<f32, 2, 3>::from_vec(vec![0.0; 5]).unwrap_err();
/// assert_eq!(err, ShapeError::Length { expected: vec![2, 3], len: 5 });
/// assert_eq!(err.to_string(), "expected 6 elements for shape [2, 3], got 5");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// A flat buffer had the wrong number of elements.
    Length {
        /// The shape of the array type.
        expected: Vec<usize>,
        /// The number of elements given.
        len: usize,
    },
    /// An n-dimensional value had the wrong shape.
    Shape {
        /// The shape of the array type.
        expected: Vec<usize>,
        /// The shape of the value given.
        found: Vec<usize>,
    },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::Length { expected, len } => write!(
                f,
                "expected {} elements for shape {:?}, got {}",
                expected.iter().product::<usize>(),
                expected,
                len
            ),
            ShapeError::Shape { expected, found } => {
                write!(f, "expected shape {:?}, got {:?}", expected, found)
            }
        }
    }
}

impl std::error::Error for ShapeError {}
