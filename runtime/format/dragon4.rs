//! Float to decimal conversion that reproduces NumPy's `dragon4_positional`
//! and `dragon4_scientific` digit for digit.
//!
//! NumPy prints floats with the Dragon4 algorithm (Steele & White, Burger &
//! Dybvig) over exact big integers: shortest digits that identify the value
//! among its neighbours of the *same* precision ("unique" mode), optionally
//! cut off after a number of digits and rounded there from the exact value,
//! ties to the even digit. The cut-off and padding rules are NumPy's, so the
//! printed strings match byte for byte, including the cases where Rust's own
//! float formatting would pick other digits (cut-offs, half-precision types).

use std::cmp::Ordering;

/// An unsigned big integer, little-endian base 2^32, without leading zero limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn pow2(e: u32) -> Big {
        let mut b = Big::from_u64(1);
        b.shl(e);
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn shl(&mut self, n: u32) {
        if self.is_zero() {
            return;
        }
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let p = *limb as u64 * m as u64 + carry;
            *limb = p as u32;
            carry = p >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        self.mul_small(10u32.pow(n));
    }

    fn add(&self, other: &Big) -> Big {
        let (long, short) = if self.0.len() >= other.0.len() {
            (&self.0, &other.0)
        } else {
            (&other.0, &self.0)
        };
        let mut out = Vec::with_capacity(long.len() + 1);
        let mut carry = 0u64;
        for (i, &l) in long.iter().enumerate() {
            let s = l as u64 + short.get(i).copied().unwrap_or(0) as u64 + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        if carry != 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    /// `self -= other`; `self >= other` must hold.
    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let d = *limb as i64 - other.0.get(i).copied().unwrap_or(0) as i64 - borrow;
            borrow = (d < 0) as i64;
            *limb = d.rem_euclid(1 << 32) as u32;
        }
        debug_assert_eq!(borrow, 0);
        self.trim();
    }

    /// Replaces `self` by `self mod d` and returns `self / d`, which must be below 10.
    fn div_digit(&mut self, d: &Big) -> u32 {
        let mut q = 0;
        while *self >= *d {
            self.sub_assign(d);
            q += 1;
        }
        debug_assert!(q < 10);
        q
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Big) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A binary floating-point format: its exponent and stored mantissa widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FloatFormat {
    pub exponent_bits: u32,
    pub mantissa_bits: u32,
}

pub(crate) const F16: FloatFormat = FloatFormat {
    exponent_bits: 5,
    mantissa_bits: 10,
};
pub(crate) const BF16: FloatFormat = FloatFormat {
    exponent_bits: 8,
    mantissa_bits: 7,
};
pub(crate) const F32: FloatFormat = FloatFormat {
    exponent_bits: 8,
    mantissa_bits: 23,
};
pub(crate) const F64: FloatFormat = FloatFormat {
    exponent_bits: 11,
    mantissa_bits: 52,
};

/// A float split into sign and `mantissa * 2^exponent`, with what Dragon4
/// needs to know about the gaps to its neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parts {
    Nan,
    Inf {
        negative: bool,
    },
    Finite {
        negative: bool,
        mantissa: u64,
        exponent: i32,
        /// Index of the highest set bit of `mantissa`.
        mantissa_bit: u32,
        /// The gap above is twice the gap below (the mantissa is a power of two).
        unequal_margins: bool,
    },
}

impl FloatFormat {
    /// Splits the IEEE bit pattern `bits` of this format.
    pub(crate) fn parts(self, bits: u64) -> Parts {
        let mbits = self.mantissa_bits;
        let emax = (1u64 << self.exponent_bits) - 1;
        let bias = (1i32 << (self.exponent_bits - 1)) - 1;
        let negative = (bits >> (mbits + self.exponent_bits)) & 1 == 1;
        let biased = (bits >> mbits) & emax;
        let frac = bits & ((1u64 << mbits) - 1);
        if biased == emax {
            return if frac == 0 {
                Parts::Inf { negative }
            } else {
                Parts::Nan
            };
        }
        if biased != 0 {
            Parts::Finite {
                negative,
                mantissa: frac | (1u64 << mbits),
                exponent: biased as i32 - bias - mbits as i32,
                mantissa_bit: mbits,
                unequal_margins: biased != 1 && frac == 0,
            }
        } else {
            Parts::Finite {
                negative,
                mantissa: frac,
                exponent: 1 - bias - mbits as i32,
                mantissa_bit: 63u32.saturating_sub(frac.leading_zeros()),
                unequal_margins: false,
            }
        }
    }
}

/// Whether `precision` counts all significant digits or those after the point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cutoff {
    Total,
    Fraction,
}

/// NumPy's `trim` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trim {
    /// `'k'`: keep trailing zeros and the decimal point.
    Keep,
    /// `'.'`: drop trailing zeros, keep the decimal point.
    Zeros,
    /// `'0'`: drop trailing zeros but leave one after the point.
    LeaveOneZero,
    /// `'-'`: drop trailing zeros and the decimal point.
    DotAndZeros,
}

/// Options of one `dragon4_positional` / `dragon4_scientific` call; `-1` means "not given".
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub precision: i32,
    pub min_digits: i32,
    pub unique: bool,
    pub trim: Trim,
    pub pad_left: i32,
    pub pad_right: i32,
    pub exp_digits: i32,
    /// Print `+` before non-negative values (NumPy's `sign='+'`, used for
    /// the imaginary part of complex numbers).
    pub sign: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            precision: -1,
            min_digits: -1,
            unique: true,
            trim: Trim::Keep,
            pad_left: -1,
            pad_right: -1,
            exp_digits: -1,
            sign: false,
        }
    }
}

/// Decimal digits of `mantissa * 2^exponent` and the power of ten of the first digit.
///
/// In unique mode the digits stop as soon as they identify the value (but not
/// before `cutoff_min` digits); in both modes they stop at `cutoff_max`
/// digits. The last digit is rounded: toward the side that stays within the
/// value's rounding interval, else to the nearest, ties to even.
fn digits(
    parts: Parts,
    unique: bool,
    cutoff: Cutoff,
    cutoff_max: i32,
    cutoff_min: i32,
) -> (Vec<u8>, i32) {
    let Parts::Finite {
        mantissa,
        exponent,
        mantissa_bit,
        unequal_margins,
        ..
    } = parts
    else {
        unreachable!("digits of a non-finite value")
    };
    if mantissa == 0 {
        return (vec![b'0'], 0);
    }
    let is_even = mantissa & 1 == 0;

    // value = scaled_value / scale; the margins are half the gaps to the
    // neighbouring floats, on the same scale. Everything is doubled (and
    // doubled again for unequal margins) so the halves are integers.
    let extra = 1 + unequal_margins as u32;
    let mut value = Big::from_u64(mantissa);
    let (mut scale, mut margin_low) = if exponent > 0 {
        value.shl(exponent as u32 + extra);
        (Big::from_u64(1 << extra), Big::pow2(exponent as u32))
    } else {
        value.shl(extra);
        (Big::pow2((-exponent) as u32 + extra), Big::from_u64(1))
    };
    let margin_high = |low: &Big| {
        let mut high = low.clone();
        if unequal_margins {
            high.shl(1);
        }
        high
    };

    // An estimate of floor(log10(value)) + 1 that is exact or one too low.
    let log10_2 = std::f64::consts::LOG10_2;
    let mut digit_exp = ((mantissa_bit as i32 + exponent) as f64 * log10_2 - 0.69).ceil() as i32;
    // With a fractional cut-off, digits beyond it are never printed, so start
    // no lower than the cut-off (the value then rounds at its first digit).
    if cutoff_max >= 0 && cutoff == Cutoff::Fraction && digit_exp <= -cutoff_max {
        digit_exp = -cutoff_max + 1;
    }
    match digit_exp.cmp(&0) {
        Ordering::Greater => scale.mul_pow10(digit_exp as u32),
        Ordering::Less => {
            value.mul_pow10((-digit_exp) as u32);
            margin_low.mul_pow10((-digit_exp) as u32);
        }
        Ordering::Equal => {}
    }
    if value >= scale {
        digit_exp += 1;
    } else {
        value.mul_small(10);
        margin_low.mul_small(10);
    }

    let mut cutoff_max_exp = i32::MIN;
    if cutoff_max >= 0 {
        let desired = match cutoff {
            Cutoff::Total => digit_exp - cutoff_max,
            Cutoff::Fraction => -cutoff_max,
        };
        cutoff_max_exp = cutoff_max_exp.max(desired);
    }
    let mut cutoff_min_exp = digit_exp;
    if cutoff_min >= 0 {
        let desired = match cutoff {
            Cutoff::Total => digit_exp - cutoff_min,
            Cutoff::Fraction => -cutoff_min,
        };
        cutoff_min_exp = cutoff_min_exp.min(desired);
    }
    let mut out_exp = digit_exp - 1;

    let mut out = Vec::new();
    let (mut low, mut high) = (false, false);
    let mut digit;
    loop {
        digit_exp -= 1;
        digit = value.div_digit(&scale);
        if unique {
            let value_high = value.add(&margin_high(&margin_low));
            low = if is_even {
                value <= margin_low
            } else {
                value < margin_low
            };
            high = if is_even {
                value_high >= scale
            } else {
                value_high > scale
            };
            if ((low || high) && digit_exp <= cutoff_min_exp) || digit_exp == cutoff_max_exp {
                break;
            }
            margin_low.mul_small(10);
        } else if value.is_zero() || digit_exp == cutoff_max_exp {
            break;
        }
        out.push(b'0' + digit as u8);
        value.mul_small(10);
    }

    let mut round_down = low;
    if low == high {
        value.shl(1);
        round_down = match value.cmp(&scale) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => digit % 2 == 0,
        };
    }
    if round_down {
        out.push(b'0' + digit as u8);
    } else if digit < 9 {
        out.push(b'0' + digit as u8 + 1);
    } else {
        // Carry into the earlier digits; trailing nines become (dropped) zeros.
        loop {
            match out.pop() {
                None => {
                    out.push(b'1');
                    out_exp += 1;
                    break;
                }
                Some(b'9') => {}
                Some(d) => {
                    out.push(d + 1);
                    break;
                }
            }
        }
    }
    (out, out_exp)
}

fn sign_or_plus(negative: bool, plus: bool) -> &'static str {
    match (negative, plus) {
        (true, _) => "-",
        (false, true) => "+",
        (false, false) => "",
    }
}

fn sign_str(negative: bool) -> &'static str {
    if negative {
        "-"
    } else {
        ""
    }
}

/// NumPy's `dragon4_positional(x, ..., fractional=True)` for a finite value.
pub(crate) fn positional(parts: Parts, opt: &Options) -> String {
    let Parts::Finite { negative, .. } = parts else {
        unreachable!("positional formatting of a non-finite value")
    };
    let (digits, exp) = digits(
        parts,
        opt.unique,
        Cutoff::Fraction,
        opt.precision,
        opt.min_digits,
    );
    let digits = String::from_utf8(digits).expect("ASCII digits");
    let mut s = String::from(sign_or_plus(negative, opt.sign));
    let whole;
    let mut frac;
    if exp >= 0 {
        whole = exp as usize + 1;
        if digits.len() <= whole {
            s += &digits;
            s.extend(std::iter::repeat_n('0', whole - digits.len()));
            frac = 0;
        } else {
            s += &digits[..whole];
            s.push('.');
            s += &digits[whole..];
            frac = digits.len() - whole;
        }
    } else {
        whole = 1;
        let zeros = (-(exp + 1)) as usize;
        s += "0.";
        s.extend(std::iter::repeat_n('0', zeros));
        s += &digits;
        frac = zeros + digits.len();
    }
    if opt.trim != Trim::DotAndZeros && frac == 0 {
        s.push('.');
    }
    let add_digits = if opt.unique {
        opt.min_digits
    } else {
        opt.precision
    };
    let desired_frac = add_digits.max(0) as usize;
    match opt.trim {
        Trim::LeaveOneZero if frac == 0 => {
            s.push('0');
            frac = 1;
        }
        Trim::Keep if desired_frac > frac => {
            s.extend(std::iter::repeat_n('0', desired_frac - frac));
            frac = desired_frac;
        }
        _ => {}
    }
    if opt.trim != Trim::Keep && frac > 0 {
        while s.ends_with('0') {
            s.pop();
            frac -= 1;
        }
        if s.ends_with('.') {
            match opt.trim {
                Trim::LeaveOneZero => {
                    s.push('0');
                    frac += 1;
                }
                Trim::DotAndZeros => {
                    s.pop();
                }
                _ => {}
            }
        }
    }
    if opt.pad_right >= frac as i32 {
        if opt.trim == Trim::DotAndZeros && frac == 0 {
            s.push(' ');
        }
        s.extend(std::iter::repeat_n(' ', opt.pad_right as usize - frac));
    }
    let left = (whole + (negative || opt.sign) as usize) as i32;
    if opt.pad_left > left {
        s.insert_str(0, &" ".repeat((opt.pad_left - left) as usize));
    }
    s
}

/// NumPy's `dragon4_scientific(x, ...)` for a finite value.
pub(crate) fn scientific(parts: Parts, opt: &Options) -> String {
    let Parts::Finite { negative, .. } = parts else {
        unreachable!("scientific formatting of a non-finite value")
    };
    let mut s = String::new();
    let left = 1 + (negative || opt.sign) as i32;
    if opt.pad_left > left {
        s.extend(std::iter::repeat_n(' ', (opt.pad_left - left) as usize));
    }
    s += sign_or_plus(negative, opt.sign);
    let plus_one = |p: i32| if p < 0 { -1 } else { p + 1 };
    let (digits, exp) = digits(
        parts,
        opt.unique,
        Cutoff::Total,
        plus_one(opt.precision),
        plus_one(opt.min_digits),
    );
    s.push(digits[0] as char);
    let mut frac = digits.len() - 1;
    if frac > 0 {
        s.push('.');
        s.extend(digits[1..].iter().map(|&d| d as char));
    }
    if opt.trim != Trim::DotAndZeros && frac == 0 {
        s.push('.');
    }
    let add_digits = if opt.unique {
        opt.min_digits
    } else {
        opt.precision
    }
    .max(0) as usize;
    match opt.trim {
        Trim::LeaveOneZero if frac == 0 => {
            s.push('0');
            frac = 1;
        }
        Trim::Keep if add_digits > frac => {
            s.extend(std::iter::repeat_n('0', add_digits - frac));
        }
        _ => {}
    }
    if opt.trim != Trim::Keep && frac > 0 {
        while s.ends_with('0') {
            s.pop();
        }
        if opt.trim == Trim::LeaveOneZero && s.ends_with('.') {
            s.push('0');
        }
    }
    let exp_digits = if opt.exp_digits < 0 {
        2
    } else {
        opt.exp_digits.min(5) as usize
    };
    s.push('e');
    s.push(if exp >= 0 { '+' } else { '-' });
    s += &format!("{:0exp_digits$}", exp.unsigned_abs());
    s
}

/// C's `printf("%.6g")` of the exact value, which is how `ml_dtypes` prints
/// bfloat16 scalars (through a C++ stream); `nan` is printed without sign.
pub(crate) fn printf_g6(parts: Parts) -> String {
    const P: i32 = 6;
    let negative = match parts {
        Parts::Nan => return "nan".into(),
        Parts::Inf { negative } => return format!("{}inf", sign_str(negative)),
        Parts::Finite { negative, .. } => negative,
    };
    let (digits, exp) = digits(parts, false, Cutoff::Total, P, -1);
    let digits = String::from_utf8(digits).expect("ASCII digits");
    let is_zero = matches!(parts, Parts::Finite { mantissa: 0, .. });
    let exp = if is_zero { 0 } else { exp };
    let mut s = String::from(sign_str(negative));
    if (-4..P).contains(&exp) {
        // %f with P-1-exp decimals, then trailing zeros and point removed.
        if exp >= 0 {
            let whole = exp as usize + 1;
            if digits.len() <= whole {
                s += &digits;
                s.extend(std::iter::repeat_n('0', whole - digits.len()));
            } else {
                s += &digits[..whole];
                s.push('.');
                s += digits[whole..].trim_end_matches('0');
            }
        } else {
            s += "0.";
            s.extend(std::iter::repeat_n('0', (-(exp + 1)) as usize));
            s += digits.trim_end_matches('0');
        }
    } else {
        s += &digits[..1];
        let rest = digits[1..].trim_end_matches('0');
        if !rest.is_empty() {
            s.push('.');
            s += rest;
        }
        s += &format!(
            "e{}{:02}",
            if exp >= 0 { '+' } else { '-' },
            exp.unsigned_abs()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_parts(x: f32) -> Parts {
        F32.parts(x.to_bits() as u64)
    }

    fn f64_parts(x: f64) -> Parts {
        F64.parts(x.to_bits())
    }

    fn unique(parts: Parts) -> String {
        let (d, e) = digits(parts, true, Cutoff::Total, -1, -1);
        format!("{}e{}", String::from_utf8(d).unwrap(), e)
    }

    #[test]
    fn shortest_digits_agree_with_rust() {
        // Rust's `{:e}` prints the shortest round-trip digits too.
        let samples = [
            1.0f64,
            0.1,
            1.0 / 3.0,
            5e-324,
            1.7976931348623157e308,
            2.2250738585072014e-308,
            1e23,
            123456.789,
            0.30000000000000004,
        ];
        for x in samples {
            let rust = format!("{x:e}");
            let (mant, exp) = rust.split_once('e').unwrap();
            assert_eq!(
                unique(f64_parts(x)),
                format!("{}e{}", mant.replace('.', ""), exp),
                "{x}"
            );
        }
        for x in [0.1f32, 1.0 / 3.0, 1e-45, 3.4028235e38, 16777217.0, 0.2] {
            let rust = format!("{x:e}");
            let (mant, exp) = rust.split_once('e').unwrap();
            assert_eq!(
                unique(f32_parts(x)),
                format!("{}e{}", mant.replace('.', ""), exp),
                "{x}"
            );
        }
    }

    #[test]
    fn cutoffs_round_half_to_even() {
        let opt = Options {
            precision: 8,
            trim: Trim::Zeros,
            ..Options::default()
        };
        // 2^-9 = 0.001953125 and 3 * 2^-9 = 0.005859375 are exact ties at 8 decimals.
        assert_eq!(positional(f32_parts(0.001953125), &opt), "0.00195312");
        assert_eq!(positional(f32_parts(0.005859375), &opt), "0.00585938");
        assert_eq!(positional(f64_parts(0.999999999), &opt), "1.");
        assert_eq!(positional(f64_parts(1e-12), &opt), "0.");
    }

    #[test]
    fn trims_and_pads() {
        let sci = Options {
            precision: 3,
            min_digits: 3,
            pad_left: 2,
            exp_digits: 2,
            ..Options::default()
        };
        assert_eq!(scientific(f32_parts(1e-5), &sci), " 1.000e-05");
        assert_eq!(scientific(f32_parts(-1001.0), &sci), "-1.001e+03");
        let pos = Options {
            precision: 8,
            min_digits: 0,
            trim: Trim::Zeros,
            pad_left: 3,
            pad_right: 2,
            ..Options::default()
        };
        assert_eq!(positional(f32_parts(-1.5), &pos), " -1.5 ");
        let scalar = Options {
            trim: Trim::LeaveOneZero,
            ..Options::default()
        };
        assert_eq!(positional(f64_parts(-0.0), &scalar), "-0.0");
        let dpt = Options {
            trim: Trim::DotAndZeros,
            ..Options::default()
        };
        assert_eq!(scientific(f64_parts(1e20), &dpt), "1e+20");
    }

    #[test]
    fn half_precision_parts() {
        // 65504 = 2047 * 2^5 is f16's largest finite value; 0x0001 the smallest subnormal.
        assert_eq!(
            F16.parts(0x7bff),
            Parts::Finite {
                negative: false,
                mantissa: 2047,
                exponent: 5,
                mantissa_bit: 10,
                unequal_margins: false
            }
        );
        assert_eq!(unique(F16.parts(0x0001)), "6e-8");
        assert_eq!(F16.parts(0xfc00), Parts::Inf { negative: true });
        assert_eq!(BF16.parts(0x7fc0), Parts::Nan);
    }

    #[test]
    fn printf_g_matches_c() {
        let bf = |x: f32| printf_g6(BF16.parts((half::bf16::from_f32(x).to_bits()) as u64));
        assert_eq!(bf(0.1), "0.100098");
        assert_eq!(bf(1e20), "9.97277e+19");
        assert_eq!(bf(123456.0), "123392");
        assert_eq!(bf(1234567.0), "1.23699e+06");
        assert_eq!(bf(-0.0), "-0");
        assert_eq!(bf(f32::NAN), "nan");
        // 0.1015625 ties at six digits and rounds to the even 2.
        assert_eq!(bf(0.1015625), "0.101562");
    }
}
