//! Integers in [minval, maxval), as `jax.random.randint` draws them: twice
//! the bits of the type (high bits from one half of a split key, low bits
//! from the other), reduced modulo the span with the type's wrapping
//! arithmetic.

use super::bits_of_width;

/// Integer types `randint` can fill.
pub trait RandInt: crate::element::Element {
    /// Width in bits.
    const NBITS: u32;
    /// Smallest value.
    const MIN: i128;
    /// Largest value.
    const MAX: i128;
    /// The value whose `NBITS`-bit two's-complement pattern is `bits`.
    fn from_bits(bits: u64) -> Self;
}

macro_rules! rand_int {
    ($($t:ty),*) => {$(
        impl RandInt for $t {
            const NBITS: u32 = <$t>::BITS;
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
            fn from_bits(bits: u64) -> $t {
                bits as $t
            }
        }
    )*};
}

rand_int!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Element values from the two blocks of each element, for the bounds.
pub(super) fn randint_values<T: RandInt>(
    minval: i64,
    maxval: i64,
    blocks: impl Iterator<Item = ([u32; 2], [u32; 2])>,
) -> Vec<T> {
    let nbits = T::NBITS;
    let mask = if nbits == 64 {
        u64::MAX
    } else {
        (1u64 << nbits) - 1
    };
    let wrap = |v: u64| v & mask;
    // XLA's unsigned remainder: x % 0 is x.
    let rem = |a: u64, b: u64| if b == 0 { a } else { a % b };
    let (min, max) = (minval as i128, maxval as i128);
    let out_of_range = max > T::MAX;
    let lo = min.clamp(T::MIN, T::MAX);
    let hi = max.clamp(T::MIN, T::MAX);
    let mut span = wrap((hi - lo) as u64);
    if hi <= lo {
        span = 1;
    } else if out_of_range {
        // One more than fits: 2**nbits becomes 0, and x % 0 keeps x whole.
        span = wrap(span.wrapping_add(1));
    }
    let multiplier = rem(wrap(1u64 << (nbits / 2)), span);
    let multiplier = rem(wrap(multiplier.wrapping_mul(multiplier)), span);
    blocks
        .map(|(y_hi, y_lo)| {
            let (h, l) = (bits_of_width(y_hi, nbits), bits_of_width(y_lo, nbits));
            let offset =
                wrap(wrap(rem(h, span).wrapping_mul(multiplier)).wrapping_add(rem(l, span)));
            let offset = rem(offset, span);
            T::from_bits(wrap((lo as u64).wrapping_add(offset)))
        })
        .collect()
}
