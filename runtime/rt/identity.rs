//! Identity elements of the reductions, by primitive name.

use crate::element::Element;

use super::ops::Arith;

#[inline]
pub fn reduce_sum<T: Element>() -> T {
    T::ZERO
}

#[inline]
pub fn reduce_prod<T: Element>() -> T {
    T::ONE
}

/// The smallest value (`-inf` for floats), so any element replaces it.
#[inline]
pub fn reduce_max<T: Arith>() -> T {
    T::LOWEST
}

/// The largest value (`inf` for floats).
#[inline]
pub fn reduce_min<T: Arith>() -> T {
    T::HIGHEST
}

#[inline]
pub fn reduce_and<T: Element>() -> T {
    T::ONE
}

#[inline]
pub fn reduce_or<T: Element>() -> T {
    T::ZERO
}
