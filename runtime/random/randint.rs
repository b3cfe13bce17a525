//! The integer types `jax.random.randint` draws (its composition is
//! `jax_core::random::randint`).

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
