//! Errors of fallible conversions.

use std::fmt;

/// Data that does not fit an array type's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// A flat buffer had the wrong number of elements.
    Length { expected: Vec<usize>, len: usize },
    /// An n-dimensional value had the wrong shape.
    Shape {
        expected: Vec<usize>,
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
