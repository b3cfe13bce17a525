//! JAX's rule for the integers that index a gather or a scatter: what `jnp`
//! indexing does to an index array (and to an integer beside one) before
//! its `gather` (`NDIndexer.normalize_indices`, then `_index_to_gather` in
//! `jax/_src/numpy/indexing.py`):
//!
//! 1. a signed index is normalized in its own dtype: a negative `i` becomes
//!    `i + n`, `n` the axis length as a constant of the index's dtype (numpy
//!    refuses an `n` the dtype cannot hold, so JAX does); an unsigned index
//!    is left as it is; an integer written in the program (a Python int in
//!    JAX, a Rust integer here) is normalized exactly;
//! 2. every index is then converted to the gather's index dtype (int32, or
//!    int64 when an axis is longer than int32's max), which wraps:
//!    `u64::MAX` becomes -1, `1 << 32` becomes 0;
//! 3. the gather clamps (a scatter drops) what is still out of bounds.
//!
//! The eager gathers and scatters (`jax::index`) apply [`index_position`] to
//! each value; the compiler emits steps 1 and 2 as JAX's primitives
//! (`select_n`, `add`, `convert_element_type`) with [`index_dtype`] and
//! [`axis_len_in`], and folds integer literals with [`wrap_to_index_dtype`],
//! so jit and eager index the same elements.
//!
//! ```
//! use jax_dtypes::index::{index_dtype, index_position};
//! use jax_dtypes::DType;
//!
//! // `x[jnp.array([2**64 - 1, 2**32, 2**32 + 1, 4], dtype=jnp.uint64)]` on
//! // `f32[5]` reads positions -1, 0, 1, 4; the gather clamps -1 to 0.
//! let at = |v: i128| index_position(v, DType::U64, 5, index_dtype(&[5])).unwrap();
//! assert_eq!([at(u64::MAX as i128), at(1 << 32), at((1 << 32) + 1), at(4)], [-1, 0, 1, 4]);
//! // A negative int64 counts from the end before it wraps.
//! assert_eq!(index_position(-(1 << 32) - 1, DType::I64, 5, DType::I32), Ok(4));
//! ```

use crate::{DType, Kind};

/// The dtype gather and scatter indices are converted to: int32, or int64
/// when an axis of the indexed array is longer than int32's max (JAX's
/// `int_dtype_for_shape(shape, signed=True)`).
///
/// ```
/// use jax_dtypes::{index::index_dtype, DType};
/// assert_eq!(index_dtype(&[4, 5]), DType::I32);
/// assert_eq!(index_dtype(&[1 << 31]), DType::I64);
/// ```
pub fn index_dtype(shape: &[usize]) -> DType {
    if shape.iter().any(|&d| d as u128 > i32::MAX as u128) {
        DType::I64
    } else {
        DType::I32
    }
}

/// The axis length `n` as a constant of a signed index dtype, for
/// normalization's `i + n`; JAX's error (numpy's `OverflowError`) when the
/// dtype cannot hold it, with what to write instead. Unsigned indices are
/// not normalized, so any length fits.
///
/// ```
/// use jax_dtypes::{index::axis_len_in, DType};
/// assert_eq!(axis_len_in(DType::I8, 100), Ok(100));
/// let e = axis_len_in(DType::I8, 200).unwrap_err();
/// assert!(e.contains("OverflowError: Python integer 200 out of bounds for int8"));
/// assert_eq!(axis_len_in(DType::U8, 200), Ok(200));
/// ```
pub fn axis_len_in(dtype: DType, len: usize) -> Result<i128, String> {
    let n = len as i128;
    if dtype.kind() == Kind::Int && n > (1i128 << (dtype.bits() - 1)) - 1 {
        return Err(format!(
            "an index array of dtype {} cannot index an axis of length {len}: JAX normalizes \
             negative indices with the length as an {} constant and raises \
             `OverflowError: Python integer {len} out of bounds for {}`; use a wider index \
             type (i32, or an unsigned type if no index is negative)",
            dtype.name(),
            dtype.name(),
            dtype.name(),
        ));
    }
    Ok(n)
}

/// An index converted to the gather's index dtype as
/// `lax.convert_element_type` does: wrapping, to its low 32 bits for int32
/// (and 64 for int64), read as signed.
///
/// ```
/// use jax_dtypes::{index::wrap_to_index_dtype, DType};
/// assert_eq!(wrap_to_index_dtype(u64::MAX as i128, DType::I32), -1);
/// assert_eq!(wrap_to_index_dtype((1 << 32) + 3, DType::I32), 3);
/// assert_eq!(wrap_to_index_dtype((1 << 32) + 3, DType::I64), (1 << 32) + 3);
/// ```
pub fn wrap_to_index_dtype(value: i128, index_dtype: DType) -> i64 {
    match index_dtype {
        DType::I32 => value as i32 as i64,
        DType::I64 => value as i64,
        other => panic!("gather indices are int32 or int64, not {}", other.name()),
    }
}

/// Where a value of an index array of `dtype` (an integer dtype) points on
/// an axis of length `len`, before the gather clamps or the scatter drops
/// it: normalized if signed (see [`axis_len_in`] for its error), then
/// wrapped to `index_dtype` ([`index_dtype`] of the indexed shape).
///
/// ```
/// use jax_dtypes::{index::index_position, DType};
/// assert_eq!(index_position(-6, DType::I8, 5, DType::I32), Ok(-1)); // clamps to 0
/// assert_eq!(index_position(255, DType::U8, 5, DType::I32), Ok(255)); // clamps to 4
/// assert!(index_position(-1, DType::I8, 200, DType::I32).is_err());
/// ```
pub fn index_position(
    value: i128,
    dtype: DType,
    len: usize,
    index_dtype: DType,
) -> Result<i64, String> {
    let normalized = match dtype.kind() {
        Kind::UInt => value,
        Kind::Int => {
            let n = axis_len_in(dtype, len)?;
            if value < 0 {
                value + n
            } else {
                value
            }
        }
        _ => {
            return Err(format!(
                "index arrays must be of an integer type, got {}",
                dtype.name()
            ))
        }
    };
    Ok(wrap_to_index_dtype(normalized, index_dtype))
}

/// Where an integer written in the program (a Python int in JAX) points
/// when it stands beside an index array, so is an advanced index too:
/// normalized exactly, then wrapped to `index_dtype`.
///
/// ```
/// use jax_dtypes::{index::literal_position, DType};
/// assert_eq!(literal_position(1 << 32, 5, DType::I32), 0);
/// assert_eq!(literal_position(-(1 << 32) - 1, 5, DType::I32), 4);
/// assert_eq!(literal_position(-7, 5, DType::I32), -2); // clamps to 0
/// ```
pub fn literal_position(value: i128, len: usize, index_dtype: DType) -> i64 {
    let normalized = if value < 0 {
        value + len as i128
    } else {
        value
    };
    wrap_to_index_dtype(normalized, index_dtype)
}
