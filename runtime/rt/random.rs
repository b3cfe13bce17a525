//! `jax::random` samplers one element at a time, for jitted code: element
//! `i` (its row-major index, which is its threefry counter) of a sample
//! from the key with words `key`, by the same functions eager sampling uses,
//! so a sample fused into a loop equals the eager one bit for bit.

use crate::random::continuous::{
    between, exponential_of_block, gumbel_of_block, normal_of_block, Truncation,
};
// Debug builds (`cargo test`) route f32/f64/u32 samples to out-of-line
// functions optimized in the `jax` crate (see `random::fills`).
#[cfg(debug_assertions)]
use crate::random::fills::{one, routed};
use crate::random::{block, Bits, Continuous, Key, Uniform};

/// A key parameter's two words, as jitted code reads its inputs.
#[inline]
pub fn key_words(k: &Key) -> &[u32] {
    &k.data
}

#[inline(always)]
fn at(key: [u32; 2], i: usize) -> [u32; 2] {
    block(Key { data: key }, i)
}

/// `random::bits`.
#[inline(always)]
pub fn bits<T: Bits>(key: [u32; 2], i: usize) -> T {
    #[cfg(debug_assertions)]
    if let Some(v) = routed::<T, u32>(|| one::bits_u32(key, i)) {
        return v;
    }
    T::from_block(at(key, i))
}

/// `random::uniform`.
#[inline(always)]
pub fn uniform<T: Uniform>(key: [u32; 2], i: usize) -> T {
    #[cfg(debug_assertions)]
    if let Some(v) = routed::<T, f32>(|| one::uniform_f32(key, i))
        .or_else(|| routed::<T, f64>(|| one::uniform_f64(key, i)))
    {
        return v;
    }
    T::unit(at(key, i))
}

/// `random::uniform_range`.
#[inline(always)]
pub fn uniform_range<T: Uniform>(key: [u32; 2], i: usize, minval: f64, maxval: f64) -> T {
    let (lo, hi) = (
        <T as Uniform>::from_f64(minval),
        <T as Uniform>::from_f64(maxval),
    );
    between(at(key, i), lo, T::sub(hi, lo))
}

/// `random::normal`.
#[inline(always)]
pub fn normal<T: Continuous>(key: [u32; 2], i: usize) -> T {
    #[cfg(debug_assertions)]
    if let Some(v) = routed::<T, f32>(|| one::normal_f32(key, i))
        .or_else(|| routed::<T, f64>(|| one::normal_f64(key, i)))
    {
        return v;
    }
    normal_of_block(at(key, i))
}

/// `random::exponential`.
#[inline(always)]
pub fn exponential<T: Continuous>(key: [u32; 2], i: usize) -> T {
    exponential_of_block(at(key, i))
}

/// `random::gumbel`.
#[inline(always)]
pub fn gumbel<T: Continuous>(key: [u32; 2], i: usize) -> T {
    gumbel_of_block(at(key, i))
}

/// `random::truncated_normal`.
#[inline(always)]
pub fn truncated_normal<T: Continuous>(key: [u32; 2], i: usize, lower: f64, upper: f64) -> T {
    Truncation::new(lower, upper).sample(at(key, i))
}

/// `random::split` of each key of `keys` (their words, two per key) into
/// `n` keys: for each key in order, its `n` new keys' words.
pub fn split_keys(keys: &[u32], n: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(keys.len() * n);
    for k in keys.chunks_exact(2) {
        for i in 0..n {
            out.extend_from_slice(&at([k[0], k[1]], i));
        }
    }
    out
}

/// `random::fold_in` of each key of `keys` with its datum (one datum is
/// shared by every key).
pub fn fold_in_keys(keys: &[u32], data: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(keys.len());
    for (j, k) in keys.chunks_exact(2).enumerate() {
        let d = if data.len() == 1 { data[0] } else { data[j] };
        out.extend_from_slice(&crate::random::threefry2x32([k[0], k[1]], [0, d]));
    }
    out
}
