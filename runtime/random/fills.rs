//! Non-generic entry points of the samplers for the common element types
//! (f32, f64, u32), which the generic `random::uniform`, `normal`, `bits`
//! and jitted code's `__rt::random` route to.
//!
//! Why: a generic function is compiled in the crate that instantiates it, at
//! that crate's opt-level, so a user's `cargo test` (opt-level 0) would run
//! threefry unoptimized even with `[profile.dev.package."*"] opt-level = 3`.
//! These functions are compiled once, in the `jax` crate, at its opt-level.
//! Each computes exactly what the generic path computes (same body), so the
//! routing never changes a bit.

use std::any::{Any, TypeId};

use super::continuous::{between, normal_of_block, TRANSFORM_COST};
use super::{fill, Bits, Key, Uniform, THREEFRY_COST};

/// `make()` as a `T` when `T` is `U` (checked before `make` runs).
#[inline(always)]
pub(crate) fn routed<T: 'static, U: 'static>(make: impl FnOnce() -> U) -> Option<T> {
    if TypeId::of::<T>() == TypeId::of::<U>() {
        let boxed: Box<dyn Any> = Box::new(make());
        boxed.downcast::<T>().ok().map(|b| *b)
    } else {
        None
    }
}

macro_rules! fills {
    ($($name:ident: $t:ty, $cost:expr, |$y:ident| $body:expr;)*) => {$(
        #[doc(hidden)]
        pub fn $name(k: Key, n: usize) -> Vec<$t> {
            fill!(k, n, cost $cost, |$y| $body)
        }
    )*};
}

fills! {
    bits_u32: u32, THREEFRY_COST, |y| <u32 as Bits>::from_block(y);
    uniform_f32: f32, THREEFRY_COST, |y| <f32 as Uniform>::unit(y);
    uniform_f64: f64, THREEFRY_COST, |y| <f64 as Uniform>::unit(y);
    normal_f32: f32, THREEFRY_COST + TRANSFORM_COST, |y| normal_of_block::<f32>(y);
    normal_f64: f64, THREEFRY_COST + TRANSFORM_COST, |y| normal_of_block::<f64>(y);
}

/// `uniform_range` in f32: `n` samples in [lo, lo + span).
#[doc(hidden)]
pub fn uniform_range_f32(k: Key, n: usize, lo: f32, span: f32) -> Vec<f32> {
    fill!(k, n, cost THREEFRY_COST, |y| between(y, lo, span))
}

/// `uniform_range` in f64.
#[doc(hidden)]
pub fn uniform_range_f64(k: Key, n: usize, lo: f64, span: f64) -> Vec<f64> {
    fill!(k, n, cost THREEFRY_COST, |y| between(y, lo, span))
}

/// `bits` through the non-generic fill when `T` is u32.
#[inline(always)]
pub(crate) fn bits<T: 'static>(k: Key, n: usize) -> Option<Vec<T>> {
    routed::<Vec<T>, Vec<u32>>(|| bits_u32(k, n))
}

/// `uniform` through the non-generic fills when `T` is f32 or f64.
#[inline(always)]
pub(crate) fn uniform<T: 'static>(k: Key, n: usize) -> Option<Vec<T>> {
    routed::<Vec<T>, Vec<f32>>(|| uniform_f32(k, n))
        .or_else(|| routed::<Vec<T>, Vec<f64>>(|| uniform_f64(k, n)))
}

/// `uniform_range` through the non-generic fills when `T` is f32 or f64.
#[inline(always)]
pub(crate) fn uniform_range<T: 'static + Copy>(k: Key, n: usize, lo: T, span: T) -> Option<Vec<T>> {
    let (lo32, span32) = (routed::<f32, T>(|| lo), routed::<f32, T>(|| span));
    if let (Some(lo), Some(span)) = (lo32, span32) {
        return routed::<Vec<T>, Vec<f32>>(|| uniform_range_f32(k, n, lo, span));
    }
    let (lo64, span64) = (routed::<f64, T>(|| lo), routed::<f64, T>(|| span));
    if let (Some(lo), Some(span)) = (lo64, span64) {
        return routed::<Vec<T>, Vec<f64>>(|| uniform_range_f64(k, n, lo, span));
    }
    None
}

/// `normal` through the non-generic fills when `T` is f32 or f64.
#[inline(always)]
pub(crate) fn normal<T: 'static>(k: Key, n: usize) -> Option<Vec<T>> {
    routed::<Vec<T>, Vec<f32>>(|| normal_f32(k, n))
        .or_else(|| routed::<Vec<T>, Vec<f64>>(|| normal_f64(k, n)))
}

/// Element `i` of a sample, for jitted code (`__rt::random`): out of line
/// and optimized in the `jax` crate. Only debug builds route here; release
/// builds inline the generic form into the fused loop, where it vectorizes.
#[cfg(debug_assertions)]
pub(crate) mod one {
    use super::super::continuous::normal_of_block;
    use super::super::{block, Bits, Key, Uniform};

    fn at(key: [u32; 2], i: usize) -> [u32; 2] {
        block(Key { data: key }, i)
    }
    pub fn bits_u32(key: [u32; 2], i: usize) -> u32 {
        <u32 as Bits>::from_block(at(key, i))
    }
    pub fn uniform_f32(key: [u32; 2], i: usize) -> f32 {
        <f32 as Uniform>::unit(at(key, i))
    }
    pub fn uniform_f64(key: [u32; 2], i: usize) -> f64 {
        <f64 as Uniform>::unit(at(key, i))
    }
    pub fn normal_f32(key: [u32; 2], i: usize) -> f32 {
        normal_of_block(at(key, i))
    }
    pub fn normal_f64(key: [u32; 2], i: usize) -> f64 {
        normal_of_block(at(key, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routed_only_for_the_same_type() {
        assert_eq!(routed::<f32, f32>(|| 1.5f32), Some(1.5));
        assert_eq!(routed::<f64, f32>(|| 1.5f32), None);
        assert_eq!(routed::<Vec<u32>, Vec<u32>>(|| vec![3]), Some(vec![3]));
    }

    /// The non-generic fills equal the generic `fill!` bit for bit, over
    /// sizes around the lane groups and chunk edges.
    #[test]
    fn fills_equal_the_generic_path() {
        let k = super::super::key(7);
        for n in [0, 1, 7, 17, 33, 65, 129, 4099] {
            let g: Vec<f32> = fill!(k, n, cost THREEFRY_COST, |y| <f32 as Uniform>::unit(y));
            assert_eq!(uniform::<f32>(k, n).unwrap(), g);
            let g: Vec<f64> = fill!(k, n, cost THREEFRY_COST, |y| normal_of_block::<f64>(y));
            let r = normal::<f64>(k, n).unwrap();
            assert!(r.iter().zip(&g).all(|(a, b)| a.to_bits() == b.to_bits()) && r.len() == n);
            let g: Vec<u32> = fill!(k, n, cost THREEFRY_COST, |y| <u32 as Bits>::from_block(y));
            assert_eq!(bits::<u32>(k, n).unwrap(), g);
            assert!(uniform::<half::f16>(k, n).is_none() && bits::<u8>(k, n).is_none());
        }
    }
}
