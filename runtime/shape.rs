//! Shape arithmetic shared by the eager operations: broadcasting, strides,
//! axis normalization, and the check of a result type chosen by the caller.

use crate::array::ArrayType;
use crate::element::{DType, Element};

/// A type in JAX's notation: `f32[3,4]`, `i32[]`.
///
/// ```
/// use jax::{shape::type_string, DType};
/// assert_eq!(type_string(DType::F32, &[3, 4]), "f32[3,4]");
/// assert_eq!(type_string(DType::I32, &[]), "i32[]");
/// ```
pub fn type_string(dtype: DType, shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", dtype.short_name(), dims.join(","))
}

/// Row-major strides, in elements.
///
/// ```
/// use jax::shape::strides;
/// assert_eq!(strides(&[2, 3, 4]), [12, 4, 1]);
/// ```
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1];
    }
    s
}

/// Counts `idx` up in row-major order within `shape` (back to all zeros
/// after the last index).
pub(crate) fn next_index(idx: &mut [usize], shape: &[usize]) {
    for k in (0..shape.len()).rev() {
        idx[k] += 1;
        if idx[k] < shape[k] {
            return;
        }
        idx[k] = 0;
    }
}

/// NumPy's broadcasting of two shapes (trailing axes aligned, 1 stretches),
/// or the message JAX gives for incompatible shapes.
///
/// ```
/// use jax::shape::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap(), [3, 4]);
/// assert!(broadcast_shapes(&[3, 4], &[5]).is_err());
/// ```
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>, String> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for k in 0..rank {
        let da = if k + a.len() >= rank {
            a[k + a.len() - rank]
        } else {
            1
        };
        let db = if k + b.len() >= rank {
            b[k + b.len() - rank]
        } else {
            1
        };
        out[k] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(format!(
                    "Incompatible shapes for broadcasting: shapes=[{:?}, {:?}]",
                    a, b
                ))
            }
        };
    }
    Ok(out)
}

/// For each element of an array of shape `out`, the row-major index of the
/// element of an array of shape `src` that broadcasts to it. `src` must
/// broadcast to `out`.
///
/// ```
/// use jax::shape::broadcast_indices;
/// // A column [a, b] broadcast to 2×3 repeats each element along the row.
/// assert_eq!(broadcast_indices(&[2, 1], &[2, 3]), [0, 0, 0, 1, 1, 1]);
/// assert_eq!(broadcast_indices(&[3], &[2, 3]), [0, 1, 2, 0, 1, 2]);
/// ```
pub fn broadcast_indices(src: &[usize], out: &[usize]) -> Vec<usize> {
    let size: usize = out.iter().product();
    let offset = out.len() - src.len();
    let src_strides = strides(src);
    // A stretched axis (size 1 in src) contributes stride 0.
    let eff: Vec<usize> = (0..out.len())
        .map(|k| {
            if k < offset || src[k - offset] == 1 {
                0
            } else {
                src_strides[k - offset]
            }
        })
        .collect();
    let mut idx = Vec::with_capacity(size);
    let mut counter = vec![0usize; out.len()];
    let mut pos = 0usize;
    for _ in 0..size {
        idx.push(pos);
        // Advance the multi-index like an odometer, updating `pos` incrementally.
        for k in (0..out.len()).rev() {
            counter[k] += 1;
            pos += eff[k];
            if counter[k] < out[k] {
                break;
            }
            pos -= eff[k] * counter[k];
            counter[k] = 0;
        }
    }
    idx
}

/// Normalizes a possibly negative axis (`-1` is the last) for an array of `rank` axes;
/// panics, naming the operation `op`, when the axis is out of bounds.
///
/// ```
/// use jax::shape::normalize_axis;
/// assert_eq!(normalize_axis("sum", -1, 3), 2);
/// assert_eq!(normalize_axis("sum", 1, 3), 1);
/// ```
pub fn normalize_axis(op: &str, axis: isize, rank: usize) -> usize {
    match jax_dtypes::checks::normalize_axis(axis as i128, rank) {
        Ok(a) => a,
        Err(msg) => panic!("{op}: {msg}"),
    }
}

/// Panics with both types when a result type chosen by the caller does not
/// have the shape the operation computes. Inside `#[jax::jit]` the compiler
/// reports this at compile time instead.
///
/// ```
/// use jax::{shape::check_result, Array, DType};
/// check_result::<Array<f32, 2, 3>>("reshape", DType::F32, &[2, 3]);
/// let err = std::panic::catch_unwind(|| check_result::<Array<f32, 6>>("reshape", DType::F32, &[2, 3]));
/// let msg = err.unwrap_err().downcast::<String>().unwrap();
/// assert!(msg.contains("reshape gives f32[2,3] but the result type is f32[6]"));
/// ```
#[track_caller]
pub fn check_result<Out: ArrayType>(op: &str, dtype: DType, shape: &[usize]) {
    if Out::SHAPE != shape || <Out::Elem as Element>::DTYPE != dtype {
        panic!(
            "{op} gives {} but the result type is {}: annotate the result as Array<{}, {}>",
            type_string(dtype, shape),
            type_string(<Out::Elem as Element>::DTYPE, Out::SHAPE),
            dtype.short_name(),
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// A panic message assembled during constant evaluation, so compile-time
/// shape errors can name both types (`f32[2,3]`), which `const` panics
/// cannot format.
pub(crate) struct ConstMsg {
    buf: [u8; 256],
    len: usize,
}

impl ConstMsg {
    pub(crate) const fn new() -> Self {
        ConstMsg {
            buf: [0; 256],
            len: 0,
        }
    }

    pub(crate) const fn str(mut self, s: &str) -> Self {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && self.len < self.buf.len() {
            self.buf[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    pub(crate) const fn num(mut self, mut n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 && self.len < self.buf.len() {
            k -= 1;
            self.buf[self.len] = digits[k];
            self.len += 1;
        }
        self
    }

    /// A type in JAX's notation, as [`type_string`].
    pub(crate) const fn ty(mut self, dtype: DType, shape: &[usize]) -> Self {
        self = self.str(dtype.short_name()).str("[");
        let mut k = 0;
        while k < shape.len() {
            if k > 0 {
                self = self.str(",");
            }
            self = self.num(shape[k]);
            k += 1;
        }
        self.str("]")
    }

    pub(crate) const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => s,
            Err(_) => "shape error",
        }
    }
}

/// The array of type `Out` holding `data`, after checking that `shape` (the
/// operation's result shape) is `Out`'s.
#[track_caller]
pub(crate) fn finish<Out: crate::array::ArrayType>(
    op: &str,
    shape: &[usize],
    data: Vec<Out::Elem>,
    weak: bool,
) -> Out {
    check_result::<Out>(op, <Out::Elem as crate::element::Element>::DTYPE, shape);
    Out::from_data(data).set_weak(weak)
}

/// The number of elements of an array of `shape`, in a const context.
pub(crate) const fn size_of(shape: &[usize]) -> usize {
    let mut n = 1;
    let mut k = 0;
    while k < shape.len() {
        n *= shape[k];
        k += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[64, 10], &[10]).unwrap(), vec![64, 10]);
        assert_eq!(broadcast_shapes(&[3, 1], &[1, 4]).unwrap(), vec![3, 4]);
        assert!(broadcast_shapes(&[3, 4], &[5]).is_err());
        assert_eq!(broadcast_indices(&[3], &[2, 3]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(broadcast_indices(&[2, 1], &[2, 3]), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(broadcast_indices(&[], &[2]), vec![0, 0]);
    }

    #[test]
    fn const_messages() {
        let m = ConstMsg::new()
            .str("a ")
            .ty(DType::F32, &[2, 30])
            .str(" b ")
            .ty(DType::I8, &[]);
        assert_eq!(m.as_str(), "a f32[2,30] b i8[]");
        assert_eq!(ConstMsg::new().num(0).num(1234567).as_str(), "01234567");
    }

    #[test]
    fn types_in_jax_notation() {
        assert_eq!(type_string(DType::F32, &[3, 4]), "f32[3,4]");
        assert_eq!(type_string(DType::I32, &[]), "i32[]");
    }
}
