//! Identity elements of the reductions, by primitive name.

use crate::element::{bf16, f16, Element};

/// The extreme values of an element type: where max and min reductions start.
pub trait Extremes: Element {
    /// `-inf` for floats, `MIN` for integers, `false`.
    const LOWEST: Self;
    /// `inf` for floats, `MAX` for integers, `true`.
    const HIGHEST: Self;
}

macro_rules! extremes {
    ($($t:ty => $lo:expr, $hi:expr;)*) => {$(
        impl Extremes for $t {
            const LOWEST: Self = $lo;
            const HIGHEST: Self = $hi;
        }
    )*};
}
extremes! {
    bool => false, true;
    u8 => u8::MIN, u8::MAX;
    u16 => u16::MIN, u16::MAX;
    u32 => u32::MIN, u32::MAX;
    u64 => u64::MIN, u64::MAX;
    i8 => i8::MIN, i8::MAX;
    i16 => i16::MIN, i16::MAX;
    i32 => i32::MIN, i32::MAX;
    i64 => i64::MIN, i64::MAX;
    f16 => f16::NEG_INFINITY, f16::INFINITY;
    bf16 => bf16::NEG_INFINITY, bf16::INFINITY;
    f32 => f32::NEG_INFINITY, f32::INFINITY;
    f64 => f64::NEG_INFINITY, f64::INFINITY;
}

#[inline(always)]
pub fn reduce_sum<T: Element>() -> T {
    T::ZERO
}

#[inline(always)]
pub fn reduce_prod<T: Element>() -> T {
    T::ONE
}

#[inline(always)]
pub fn reduce_max<T: Extremes>() -> T {
    T::LOWEST
}

#[inline(always)]
pub fn reduce_min<T: Extremes>() -> T {
    T::HIGHEST
}

#[inline(always)]
pub fn reduce_and<T: Element>() -> T {
    T::ONE
}

#[inline(always)]
pub fn reduce_or<T: Element>() -> T {
    T::ZERO
}
