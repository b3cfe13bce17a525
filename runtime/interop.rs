//! Conversions between [`Array`](crate::Array) and `ndarray`.
