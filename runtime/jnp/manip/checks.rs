//! Shape predicates usable in `const` blocks, and the message builder that
//! lets compile-time shape errors name both types.

pub(crate) use crate::shape::size_of;

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
