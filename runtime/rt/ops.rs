//! Scalar operations of generated code, one function per elementwise
//! primitive and named after it. Each delegates to the crate's one
//! implementation of that operation (`crate::ops::kernels`), so jitted and
//! eager code compute the same values.

use crate::element::{Element, Float};
use crate::jnp::Abs;
use crate::ops::{
    self as kernels, float, AddMul, Arith, BitPattern, Bitwise, Numeric, Parts, Shift, SubDiv,
    ToComplex, TotalOrder,
};

pub use super::complex::{Conj, Transcendental};

macro_rules! float_unary {
    ($($name:ident => $f:path),* $(,)?) => {$(
        #[inline(always)]
        pub fn $name<T: Float>(x: T) -> T {
            $f(x)
        }
    )*};
}
float_unary! {
    exp2 => float::exp2, tan => float::tan, sinh => float::sinh, cosh => float::cosh, asin => float::arcsin,
    acos => float::arccos, atan => float::arctan, asinh => float::arcsinh,
    acosh => float::arccosh, atanh => float::arctanh,
    rsqrt => float::rsqrt, cbrt => float::cbrt, logistic => float::logistic,
    erf => float::erf, erfc => float::erfc, erf_inv => float::erf_inv,
    lgamma => crate::scipy::gamma::lgamma, digamma => crate::scipy::gamma::digamma,
}

macro_rules! inexact_unary {
    ($($name:ident),* $(,)?) => {$(
        #[inline(always)]
        pub fn $name<T: Transcendental>(x: T) -> T {
            T::$name(x)
        }
    )*};
}
// Float and complex operands (JAX's `_float | _complex`).
inexact_unary!(exp, log, log1p, expm1, sin, cos, tanh, sqrt);

/// `(sin x, cos x)` with one argument reduction, for a loop that evaluates
/// both `sin` and `cos` of one real operand: the same bits as [`sin`] and
/// [`cos`].
#[inline(always)]
pub fn sincos<T: Float>(x: T) -> (T, T) {
    float::sincos(x)
}

/// `sin`, `cos` and `sincos` in the first pass of a loop run in blocks: an
/// argument too large for the fast reduction sets `wide`, and the block is
/// then computed again with `sin`, `cos` and `sincos` (see
/// `backend/emit/sincos.rs`), so results are theirs, bit for bit.
#[inline(always)]
pub fn sin_near<T: Transcendental>(x: T, wide: &mut bool) -> T {
    x.sin_near(wide)
}

/// See [`sin_near`].
#[inline(always)]
pub fn cos_near<T: Transcendental>(x: T, wide: &mut bool) -> T {
    x.cos_near(wide)
}

/// See [`sin_near`].
#[inline(always)]
pub fn sincos_near<T: Float>(x: T, wide: &mut bool) -> (T, T) {
    float::sincos_near(x, wide)
}

/// `abs`: real for a complex operand.
#[inline(always)]
pub fn abs<T: Abs>(x: T) -> T::Out {
    Abs::abs(x)
}

/// The real part of a complex number.
#[inline(always)]
pub fn real<T: Parts>(x: T) -> T::Real {
    x.real()
}

/// The imaginary part of a complex number.
#[inline(always)]
pub fn imag<T: Parts>(x: T) -> T::Real {
    x.imag()
}

/// The complex conjugate; a real operand becomes complex (`lax.conj`).
#[inline(always)]
pub fn conj<T: Conj>(x: T) -> T::Out {
    x.conj_complex()
}

/// `re + i im` (`lax.complex`).
#[inline(always)]
pub fn complex<T: ToComplex>(re: T, im: T) -> T::Out {
    T::complex(re, im)
}

/// `copy` (`jnp.array` of a traced value): the value itself.
#[inline(always)]
pub fn copy<T: Copy>(x: T) -> T {
    x
}

/// `lax.round` with its default: half away from zero.
#[inline(always)]
pub fn round<T: Numeric>(x: T) -> T {
    T::round_away(x)
}

/// `round` half to even (`jnp.round`, `lax.RoundingMethod.TO_NEAREST_EVEN`).
#[inline(always)]
pub fn round_even<T: Numeric>(x: T) -> T {
    T::round_even(x)
}

#[inline(always)]
pub fn floor<T: Arith>(x: T) -> T {
    T::floor(x)
}

#[inline(always)]
pub fn ceil<T: Arith>(x: T) -> T {
    T::ceil(x)
}

#[inline(always)]
pub fn is_finite<T: Arith>(x: T) -> bool {
    !T::is_nan(x) && !T::is_inf(x)
}

#[inline(always)]
pub fn pow<T: Float>(x: T, y: T) -> T {
    kernels::pow_float(x, y)
}

#[inline(always)]
pub fn atan2<T: Float>(y: T, x: T) -> T {
    kernels::float_apply2(y, x, f32::atan2, f64::atan2)
}

macro_rules! forward {
    ($trait:ident: $($name:ident($($a:ident),*)),* $(,)?) => {$(
        #[inline(always)]
        pub fn $name<T: $trait>($($a: T),*) -> T {
            T::$name($($a),*)
        }
    )*};
}
forward!(AddMul: add(a, b), mul(a, b));
forward!(Arith: max(a, b), min(a, b));
forward!(SubDiv: sub(a, b), div(a, b), neg(a));
forward!(Numeric: rem(a, b), sign(a));
forward!(Bitwise: and(a, b), or(a, b), xor(a, b), not(a));
forward!(Shift: shift_left(a, b), shift_right_logical(a, b), shift_right_arithmetic(a, b));

/// `a` if `a > b`, else `b` (also when they compare equal or either is
/// NaN): one `maxps`. Only for float folds that refold with [`max`] when
/// their result is NaN-tainted or zero ([`needs_exact_fold`]); everywhere
/// else the two agree.
#[inline(always)]
pub fn max_unordered<T: PartialOrd>(a: T, b: T) -> T {
    if a > b {
        a
    } else {
        b
    }
}

/// `a` if `a < b`, else `b`: one `minps`; see [`max_unordered`].
#[inline(always)]
pub fn min_unordered<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        a
    } else {
        b
    }
}

/// Whether `x` is NaN (never for integers and bool).
#[inline(always)]
pub fn is_nan<T: Arith>(x: T) -> bool {
    T::is_nan(x)
}

/// Whether a float max or min folded with [`max_unordered`] or
/// [`min_unordered`] may differ from the fold with [`max`] or [`min`]: only
/// when an operand was NaN (which they may drop) or the result is a zero
/// (whose sign they take from whichever zero came last). Any other result is
/// the same value in every order.
#[inline(always)]
pub fn needs_exact_fold<T: Arith>(result: T, saw_nan: bool) -> bool {
    saw_nan || result == T::default()
}

/// `eq_to`, `lt_to`, `le_to`: comparisons in the total order.
#[inline(always)]
pub fn eq_to<T: TotalOrder>(a: T, b: T) -> bool {
    T::total_cmp(a, b).is_eq()
}

#[inline(always)]
pub fn lt_to<T: TotalOrder>(a: T, b: T) -> bool {
    T::total_cmp(a, b).is_lt()
}

#[inline(always)]
pub fn le_to<T: TotalOrder>(a: T, b: T) -> bool {
    T::total_cmp(a, b).is_le()
}

/// `bitcast_convert_type` between types of one width: the same bits.
#[inline(always)]
pub fn bitcast<F: BitPattern, T: BitPattern>(x: F) -> T {
    T::from_pattern(x.to_pattern())
}

/// `add_any`: the sum of two cotangents.
#[inline(always)]
pub fn add_any<T: AddMul>(a: T, b: T) -> T {
    T::add(a, b)
}

#[inline(always)]
pub fn square<T: AddMul>(x: T) -> T {
    T::mul(x, x)
}

macro_rules! compare {
    ($($name:ident => $op:tt $Bound:ident),*) => {$(
        #[inline(always)]
        pub fn $name<T: Element + $Bound>(a: T, b: T) -> bool {
            a $op b
        }
    )*};
}
compare!(eq => == PartialEq, ne => != PartialEq, lt => < PartialOrd, le => <= PartialOrd,
    gt => > PartialOrd, ge => >= PartialOrd);

/// The identity on values; it only matters to differentiation.
#[inline(always)]
pub fn stop_gradient<T: Element>(x: T) -> T {
    x
}

/// `clamp(lo, x, hi)`.
#[inline(always)]
pub fn clamp<T: Arith>(lo: T, x: T, hi: T) -> T {
    T::min(T::max(x, lo), hi)
}

/// What picks a case of `select_n`: a bool predicate, or an integer index
/// of any integer type (`vmap` of a two-branch `cond` selects by its int32
/// index; `jnp.select` by `argmax`'s, int64 under x64), clamped into range.
pub trait Which: Copy {
    /// Whether the second of two cases is picked.
    fn second(self) -> bool;
    /// The case picked among `n`.
    fn case(self, n: usize) -> usize;
}

impl Which for bool {
    #[inline(always)]
    fn second(self) -> bool {
        self
    }
    #[inline(always)]
    fn case(self, n: usize) -> usize {
        (self as usize).min(n - 1)
    }
}

macro_rules! integer_which {
    ($($t:ty),*) => {$(
        impl Which for $t {
            #[inline(always)]
            fn second(self) -> bool {
                self >= 1
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn case(self, n: usize) -> usize {
                if self <= 0 {
                    0
                } else {
                    (self as u64).min(n as u64 - 1) as usize
                }
            }
        }
    )*};
}
integer_which!(i8, i16, i32, i64, u8, u16, u32, u64);

/// `select_n(which, on_false, on_true)` for a bool predicate or an int32
/// index.
#[inline(always)]
pub fn select<W: Which, T: Element>(which: W, on_false: T, on_true: T) -> T {
    if which.second() {
        on_true
    } else {
        on_false
    }
}

/// `select_n(which, cases..)` for an integer index (clamped into range).
#[inline(always)]
pub fn select_n<W: Which, T: Element, const N: usize>(which: W, cases: [T; N]) -> T {
    cases[which.case(N)]
}

/// XLA's conversion (saturating float to int, NaN to 0, wrapping ints).
#[inline(always)]
pub fn convert<F: Element, T: Element>(x: F) -> T {
    x.cast::<T>()
}

/// `x ** y` for a static integer `y`.
#[inline(always)]
pub fn integer_pow<T: SubDiv>(x: T, y: i32) -> T {
    kernels::integer_pow(x, y)
}

/// `out[i] = Σ_p a[p * out.len() + i] · v[p]` for `p < v.len()`: a loop
/// body's matrix-vector product with its invariant matrix stored
/// contracted-axis first (`W^T`, transposed once before the loop). The same
/// sums, in the same order, as `gemm` gives for that product; inlined into
/// the caller, which dispatches the whole loop to a SIMD level once.
#[inline(always)]
pub fn matvec_f32(a: &[f32], v: &[f32], out: &mut [f32]) {
    crate::lax::matvec_cols(a, v, out)
}

/// [`matvec_f32`] for `f64`.
#[inline(always)]
pub fn matvec_f64(a: &[f64], v: &[f64], out: &mut [f64]) {
    crate::lax::matvec_cols(a, v, out)
}

/// The transcendental functions above, each compiled once (per element
/// type) rather than inlined at every call: what a loop over at most three
/// elements calls (`backend/emit/loops.rs`, `TINY_LOOP`), where inlining a
/// function's polynomial at every call site, unrolled over the elements in
/// each SIMD level's copy of the loop, is most of the build (1,000 chained
/// `sin` of three elements took 20 s of LLVM inlined). Each picks the
/// AVX2+FMA copy of its body when the CPU has it, so results are those of
/// the inlined calls, bit for bit.
pub mod outlined {
    use super::{Float, Transcendental};
    use crate::__rt::par::{dispatch2, Level};

    macro_rules! unary {
        ($bound:ident: $($name:ident),* $(,)?) => {$(
            #[inline(never)]
            pub fn $name<T: $bound>(x: T) -> T {
                dispatch2(Level::current(), &|x| super::$name(x), &|x| super::$name(x), x)
            }
        )*};
    }
    unary!(Transcendental: exp, log, log1p, expm1, sin, cos, tanh);
    unary!(Float: exp2, tan, sinh, cosh, asin, acos, atan, asinh, acosh, atanh, cbrt,
        logistic, erf, erfc, erf_inv, lgamma, digamma);

    /// See [`super::sincos`].
    #[inline(never)]
    pub fn sincos<T: Float>(x: T) -> (T, T) {
        dispatch2(Level::current(), &super::sincos, &super::sincos, x)
    }

    /// See [`super::pow`].
    #[inline(never)]
    pub fn pow<T: Float>(x: T, y: T) -> T {
        dispatch2(
            Level::current(),
            &|(x, y)| super::pow(x, y),
            &|(x, y)| super::pow(x, y),
            (x, y),
        )
    }

    /// See [`super::atan2`].
    #[inline(never)]
    pub fn atan2<T: Float>(y: T, x: T) -> T {
        dispatch2(
            Level::current(),
            &|(y, x)| super::atan2(y, x),
            &|(y, x)| super::atan2(y, x),
            (y, x),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::outlined;

    /// Every outlined function exists and gives the inlined call's bits.
    #[test]
    fn outlined_calls_give_the_inlined_bits() {
        macro_rules! same {
            ($($name:ident($($arg:expr),*)),* $(,)?) => {$(
                assert_eq!(
                    outlined::$name($($arg as f32),*).to_bits(),
                    super::$name($($arg as f32),*).to_bits(),
                    stringify!($name)
                );
                assert_eq!(
                    outlined::$name($($arg as f64),*).to_bits(),
                    super::$name($($arg as f64),*).to_bits(),
                    stringify!($name)
                );
            )*};
        }
        same!(
            exp(0.7),
            log(0.7),
            log1p(0.7),
            expm1(0.7),
            sin(0.7),
            cos(0.7),
            tanh(0.7),
            exp2(0.7),
            tan(0.7),
            sinh(0.7),
            cosh(0.7),
            asin(0.7),
            acos(0.7),
            atan(0.7),
            asinh(0.7),
            acosh(1.7),
            atanh(0.7),
            cbrt(0.7),
            logistic(0.7),
            erf(0.7),
            erfc(0.7),
            erf_inv(0.7),
            lgamma(0.7),
            digamma(0.7),
            pow(0.7, 1.3),
            atan2(0.7, -1.3),
        );
        let (s, c) = outlined::sincos(0.7f32);
        assert_eq!(
            (s.to_bits(), c.to_bits()),
            (super::sin(0.7f32).to_bits(), super::cos(0.7f32).to_bits())
        );
    }
}
