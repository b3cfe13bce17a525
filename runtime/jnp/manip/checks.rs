//! Shape predicates usable in `const` blocks, and the message builder that
//! lets compile-time shape errors name both types.

use crate::element::DType;

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

    /// A type in JAX's notation, as [`shape::type_string`].
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

pub(crate) const fn size_of(shape: &[usize]) -> usize {
    let mut n = 1;
    let mut k = 0;
    while k < shape.len() {
        n *= shape[k];
        k += 1;
    }
    n
}

pub(crate) const fn is_reversal(src: &[usize], dst: &[usize]) -> bool {
    if src.len() != dst.len() {
        return false;
    }
    let mut k = 0;
    while k < src.len() {
        if src[k] != dst[src.len() - 1 - k] {
            return false;
        }
        k += 1;
    }
    true
}

/// Whether `src` broadcasts to exactly `dst` (NumPy rules, as `jnp.broadcast_to`).
pub(crate) const fn broadcasts_to(src: &[usize], dst: &[usize]) -> bool {
    if src.len() > dst.len() {
        return false;
    }
    let off = dst.len() - src.len();
    let mut k = 0;
    while k < src.len() {
        if src[k] != 1 && src[k] != dst[off + k] {
            return false;
        }
        k += 1;
    }
    true
}

pub(crate) const fn is_squeeze(src: &[usize], dst: &[usize]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < src.len() {
        if src[i] != 1 {
            if j >= dst.len() || dst[j] != src[i] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    j == dst.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn const_shape_predicates() {
        assert!(broadcasts_to(&[3], &[2, 3]));
        assert!(broadcasts_to(&[1, 3], &[4, 3]));
        assert!(!broadcasts_to(&[2], &[2, 3]));
        assert!(!broadcasts_to(&[2, 3], &[3]));
        assert!(is_squeeze(&[1, 3, 1, 2], &[3, 2]));
        assert!(!is_squeeze(&[1, 3], &[1, 3]));
        assert!(is_reversal(&[1, 2, 3], &[3, 2, 1]));
        assert!(!is_reversal(&[1, 2], &[1, 2]));
    }
}
