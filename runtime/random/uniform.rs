//! Uniform floats from random bits, as `jax.random.uniform` makes them: the
//! top mantissa bits of a word become a float in [1, 2), minus 1.

use half::{bf16, f16};

use super::Bits;

/// Float types `uniform` can fill.
pub trait Uniform: crate::element::Element + PartialOrd {
    /// A float in [0, 1) from one threefry block.
    fn unit(y: [u32; 2]) -> Self;
    /// A bound converted to this type.
    fn from_f64(v: f64) -> Self;
    /// `a - b`.
    fn sub(a: Self, b: Self) -> Self;
    /// `a * b + c` with one rounding: XLA's CPU backend fuses it into an
    /// FMA (a separate multiply and add differ in the last bit).
    fn mul_add(a: Self, b: Self, c: Self) -> Self;
}

/// `bitcast((bits >> (width - nmant)) | bits(1.0)) - 1`.
macro_rules! unit_from {
    ($bits:expr, $width:expr, $nmant:expr, $one:expr, $from_bits:expr) => {{
        let float_bits = ($bits >> ($width - $nmant)) | $one;
        $from_bits(float_bits)
    }};
}

impl Uniform for f32 {
    #[inline(always)]
    fn unit(y: [u32; 2]) -> f32 {
        unit_from!(u32::from_block(y), 32, 23, 0x3f80_0000u32, f32::from_bits) - 1.0
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    #[inline(always)]
    fn sub(a: f32, b: f32) -> f32 {
        a - b
    }
    #[inline(always)]
    fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

impl Uniform for f64 {
    #[inline(always)]
    fn unit(y: [u32; 2]) -> f64 {
        unit_from!(
            u64::from_block(y),
            64,
            52,
            0x3ff0_0000_0000_0000u64,
            f64::from_bits
        ) - 1.0
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f64 {
        v
    }
    #[inline(always)]
    fn sub(a: f64, b: f64) -> f64 {
        a - b
    }
    #[inline(always)]
    fn mul_add(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}

/// Half-width floats compute in f32 and round after each step, as XLA's CPU
/// backend computes them; only f16 keeps a multiply and add fused.
macro_rules! uniform_half {
    ($t:ty, $rng_bits:expr, $nmant:expr, $one:expr, $fused:expr) => {
        impl Uniform for $t {
            #[inline(always)]
            fn unit(y: [u32; 2]) -> $t {
                // Fewer than 8 mantissa bits (bf16) still draw 8 random bits.
                let bits = super::bits_of_width(y, $rng_bits) as u16;
                let one: u16 = $one;
                let f = unit_from!(bits, $rng_bits, $nmant, one, <$t>::from_bits);
                <$t>::from_f32(f.to_f32() - 1.0)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> $t {
                <$t>::from_f64(v)
            }
            #[inline(always)]
            fn sub(a: $t, b: $t) -> $t {
                <$t>::from_f32(a.to_f32() - b.to_f32())
            }
            #[inline(always)]
            fn mul_add(a: $t, b: $t, c: $t) -> $t {
                if $fused {
                    <$t>::from_f32(a.to_f32().mul_add(b.to_f32(), c.to_f32()))
                } else {
                    let product = <$t>::from_f32(a.to_f32() * b.to_f32());
                    <$t>::from_f32(product.to_f32() + c.to_f32())
                }
            }
        }
    };
}

// bf16 goes through XLA's float normalization, which puts a rounding
// between the multiply and the add; f16 arithmetic is contracted to an FMA.
uniform_half!(f16, 16, 10, 0x3c00, true);
uniform_half!(bf16, 8, 7, 0x3f80, false);
