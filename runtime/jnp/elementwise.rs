//! Elementwise `jnp` functions, with JAX's promotion.
//!
//! Unary functions take an array by value or by reference and return an
//! array of the same shape. Float-valued math on integer or bool input
//! computes in the type [`ToInexact`] gives, as JAX does (`jnp.sqrt(int32)`
//! is `float32`).
//!
//! Binary functions take two operands, each an array or a Rust scalar (which
//! is weakly typed, like a Python literal). Their result type is a type
//! parameter `Out`:
//!
//! - with a Rust scalar operand, Rust infers it (the other operand's shape);
//! - between two arrays, the result shape is their broadcast, which the
//!   caller states with an annotation, checked when the function runs:
//!
//! ```
//! use jax::prelude::*;
//! let x = Array::<f32, 3, 1>::from([[1.0], [2.0], [3.0]]);
//! let y = Array::<f32, 4>::from([0.0, 1.5, 2.5, 3.5]);
//! let m: Array<f32, 3, 4> = jnp::maximum(&x, &y);
//! assert_eq!(m.as_slice()[..4], [1.0, 1.5, 2.5, 3.5]);
//! let r = jnp::maximum(&x, 2.0); // inferred: Array<f32, 3, 1>
//! assert_eq!(r.to_vec(), [2.0f32, 2.0, 3.0]);
//! ```
//!
//! `bf16` and `f16` compute through `f32`, as on XLA's CPU backend.

use crate::array::{ArrayType, AsArray};
use crate::element::{Element, Float, ToInexact};
use crate::ops::{
    float, float_apply2, integer_pow, map, map_same, pow_int_int, result_weak, zip3_with, zip_with,
    Arith, Numeric, Operand, PromoteWith, ResultShape, ToNumeric,
};

pub use crate::array::{ElemOf, WithElem};
/// The result type of float-valued functions of `A` (`exp`, `sqrt`, ...).
pub type Inexact<A> = WithElem<A, <ElemOf<A> as ToInexact>::Out>;
/// The element type two operands promote to.
pub type Promoted<A, B> = <A as PromoteWith<B>>::Out;

macro_rules! inexact_unary {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// Integer and bool input computes in the type [`ToInexact`] gives (f32 for
        /// types up to 32 bits).
        pub fn $name<A: AsArray>(x: A) -> Inexact<A>
        where
            ElemOf<A>: ToInexact,
        {
            map(x.as_array(), |v| float::$name(v.cast::<<ElemOf<A> as ToInexact>::Out>()))
        }
    )*};
}

inexact_unary! {
    /// `2^x`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::exp2(Array::<i32, 2>::from([3, -1])).to_vec(), [8.0f32, 0.5]);
    /// ```
    exp2;
    /// `log(1 + x)`, accurate near 0.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::log1p(Array::<f32, 1>::from([1e-10])).to_vec(), [1e-10]);
    /// ```
    log1p;
    /// `e^x - 1`, accurate near 0.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::expm1(Array::<f32, 1>::from([1e-10])).to_vec(), [1e-10]);
    /// ```
    expm1;
    /// The sine (radians).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::sin(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    sin;
    /// The cosine (radians).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::cos(Array::<f32, 1>::from([0.0])).to_vec(), [1.0]);
    /// ```
    cos;
    /// The tangent (radians).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::tan(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    tan;
    /// The hyperbolic tangent.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::tanh(Array::<f32, 2>::from([0.0, 100.0])).to_vec(), [0.0, 1.0]);
    /// ```
    tanh;
    /// The hyperbolic sine.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::sinh(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    sinh;
    /// The hyperbolic cosine.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::cosh(Array::<f32, 1>::from([0.0])).to_vec(), [1.0]);
    /// ```
    cosh;
    /// The inverse sine (NaN outside [-1, 1]).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert!(jnp::arcsin(Array::<f32, 1>::from([2.0])).item().is_nan());
    /// ```
    arcsin;
    /// The inverse cosine (NaN outside [-1, 1]).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::arccos(Array::<f32, 1>::from([1.0])).to_vec(), [0.0]);
    /// ```
    arccos;
    /// The inverse tangent.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::arctan(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    arctan;
    /// The inverse hyperbolic sine.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::arcsinh(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    arcsinh;
    /// The inverse hyperbolic cosine (NaN below 1).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::arccosh(Array::<f32, 1>::from([1.0])).to_vec(), [0.0]);
    /// ```
    arccosh;
    /// The inverse hyperbolic tangent (±inf at ±1, NaN beyond).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::arctanh(Array::<f32, 1>::from([1.0])).to_vec(), [f32::INFINITY]);
    /// ```
    arctanh;
    /// `1 / sqrt(x)` (`lax.rsqrt`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::rsqrt(Array::<f32, 1>::from([4.0])).to_vec(), [0.5]);
    /// ```
    rsqrt;
    /// The cube root (negative for negative input).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::cbrt(Array::<f32, 1>::from([-8.0])).to_vec(), [-2.0]);
    /// ```
    cbrt;
    /// `1 / x`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::reciprocal(Array::<i32, 2>::from([2, 0])).to_vec(), [0.5f32, f32::INFINITY]);
    /// ```
    reciprocal;
    /// The error function.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::erf(Array::<f32, 2>::from([0.0, f32::INFINITY])).to_vec(), [0.0, 1.0]);
    /// ```
    erf;
    /// The complementary error function `1 - erf(x)`, accurate for large `x`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::erfc(Array::<f32, 1>::from([0.0])).to_vec(), [1.0]);
    /// ```
    erfc;
    /// The inverse error function (±inf at ±1, NaN outside [-1, 1]).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::erf_inv(Array::<f32, 2>::from([0.0, 1.0])).to_vec(), [0.0, f32::INFINITY]);
    /// ```
    erf_inv;
}

/// The logistic sigmoid `1 / (1 + e^-x)` (`jax.nn.sigmoid`, `lax.logistic`).
/// Float input only, as in JAX.
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::logistic(Array::<f32, 1>::from([0.0])).to_vec(), [0.5]);
/// ```
pub fn logistic<A: AsArray>(x: A) -> A::Array
where
    ElemOf<A>: Float,
{
    map_same(x.as_array(), float::logistic)
}

/// Alias of [`logistic`] (`jax.nn.sigmoid`).
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::sigmoid(Array::<f32, 1>::from([0.0])).to_vec(), [0.5]);
/// ```
pub fn sigmoid<A: AsArray>(x: A) -> A::Array
where
    ElemOf<A>: Float,
{
    logistic(x)
}

macro_rules! same_type_unary {
    ($($(#[$doc:meta])* $name:ident: $Bound:ident => $f:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name<A: AsArray>(x: A) -> A::Array
        where
            ElemOf<A>: $Bound,
        {
            map_same(x.as_array(), $f)
        }
    )*};
}

same_type_unary! {
    /// -1, 0 or 1 by sign (NaN stays NaN, ±0 stays ±0). Not for bool.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::sign(Array::<f32, 3>::from([-2.0, 0.0, 5.0])).to_vec(), [-1.0, 0.0, 1.0]);
    /// ```
    sign: Numeric => Numeric::sign;
    /// Rounds toward -inf (integers and bool unchanged).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::floor(Array::<f32, 2>::from([-1.5, 1.5])).to_vec(), [-2.0, 1.0]);
    /// ```
    floor: Arith => Arith::floor;
    /// Rounds toward +inf (integers and bool unchanged).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::ceil(Array::<f32, 2>::from([-1.5, 1.5])).to_vec(), [-1.0, 2.0]);
    /// ```
    ceil: Arith => Arith::ceil;
    /// Rounds half to even, like `jnp.round` (integers unchanged; not for bool).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::round(Array::<f32, 3>::from([0.5, 1.5, 2.5])).to_vec(), [0.0, 2.0, 2.0]);
    /// ```
    round: Numeric => Numeric::round_even;
    /// `-x`, wrapping for integers. Not for bool.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jnp::negative(Array::<i8, 2>::from([1, -128])).to_vec(), [-1, -128]);
    /// ```
    negative: Numeric => Numeric::neg;
}

/// `x * x`; bool input gives the default int type, as in JAX.
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::square(Array::<i32, 2>::from([3, -4])).to_vec(), [9, 16]);
/// ```
pub fn square<A: AsArray>(x: A) -> WithElem<A, <ElemOf<A> as ToNumeric>::Out>
where
    ElemOf<A>: ToNumeric,
{
    map(x.as_array(), |v| {
        let v = v.cast::<<ElemOf<A> as ToNumeric>::Out>();
        Arith::mul(v, v)
    })
}

/// The base-2 logarithm, as JAX writes it (`log(x) / log(2)`).
///
/// Integer and bool input computes in the type [`ToInexact`] gives (f32 for
/// types up to 32 bits).
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::log2(Array::<f32, 1>::from([8.0])).to_vec(), [3.0]);
/// ```
#[track_caller]
pub fn log2<A: AsArray>(x: A) -> Inexact<A>
where
    ElemOf<A>: ToInexact,
{
    crate::nn::eager_unary("log2", "", &x, &|t, x| {
        jax_core::numeric::log_base(t, x, true)
    })
}

/// The base-10 logarithm, as JAX writes it (`log(x) * (1 / log(10))`).
///
/// Integer and bool input computes in the type [`ToInexact`] gives (f32 for
/// types up to 32 bits).
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::log10(Array::<f32, 1>::from([100.0])).to_vec(), [2.0]);
/// ```
#[track_caller]
pub fn log10<A: AsArray>(x: A) -> Inexact<A>
where
    ElemOf<A>: ToInexact,
{
    crate::nn::eager_unary("log10", "", &x, &|t, x| {
        jax_core::numeric::log_base(t, x, false)
    })
}

/// Rounds toward zero (integers and bool unchanged): `where(x < 0,
/// ceil(x), floor(x))`, as JAX writes it.
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::trunc(Array::<f32, 2>::from([-1.5, 1.5])).to_vec(), [-1.0, 1.0]);
/// ```
#[track_caller]
pub fn trunc<A: AsArray>(x: A) -> A::Array
where
    ElemOf<A>: Arith,
{
    crate::nn::eager_unary("trunc", "", &x, &|t, x| jax_core::numeric::trunc(t, x))
}

/// Whether each element is ±inf (false for integers and bool).
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2>::from([1.0, f32::NEG_INFINITY]);
/// assert_eq!(jnp::isinf(&x).to_vec(), [false, true]);
/// ```
#[track_caller]
pub fn isinf<A: AsArray>(x: A) -> WithElem<A, bool>
where
    ElemOf<A>: Arith,
{
    crate::nn::eager_unary("isinf", "", &x, &|t, x| jax_core::numeric::isinf(t, x))
}

/// Whether each element is neither NaN nor ±inf (true for integers and
/// bool).
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2>::from([1.0, f32::NAN]);
/// assert_eq!(jnp::isfinite(&x).to_vec(), [true, false]);
/// ```
#[track_caller]
pub fn isfinite<A: AsArray>(x: A) -> WithElem<A, bool>
where
    ElemOf<A>: Arith,
{
    crate::nn::eager_unary("isfinite", "", &x, &|t, x| {
        jax_core::numeric::isfinite(t, x)
    })
}

macro_rules! predicate_unary {
    ($($(#[$doc:meta])* $name:ident => $f:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name<A: AsArray>(x: A) -> WithElem<A, bool>
        where
            ElemOf<A>: Arith,
        {
            map(x.as_array(), $f)
        }
    )*};
}

predicate_unary! {
    /// Whether each element is NaN (false for integers and bool).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([1.0, f32::NAN]);
    /// assert_eq!(jnp::isnan(&x).to_vec(), [false, true]);
    /// ```
    isnan => Arith::is_nan;
}

/// Logical not: `x == 0` for numbers (NaN counts as true, so gives false).
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::logical_not(Array::<i32, 2>::from([0, 3])).to_vec(), [true, false]);
/// ```
pub fn logical_not<A: AsArray>(x: A) -> WithElem<A, bool> {
    map(x.as_array(), |v| !v.cast::<bool>())
}

macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident: $Bound:ident => $f:path;)*) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name<A, B, Out>(a: A, b: B) -> Out
        where
            A: PromoteWith<B> + ResultShape<B, Out>,
            B: Operand,
            Promoted<A, B>: $Bound,
            Out: ArrayType<Elem = Promoted<A, B>>,
        {
            zip_with(stringify!($name), a.view(), b.view(), $f)
        }
    )*};
}

binary! {
    /// `a + b` with broadcasting (wrapping for integers, logical or for bool).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let a = Array::<f32, 3, 1>::from([[0.0], [10.0], [20.0]]);
    /// let b = Array::<f32, 2>::from([1.0, 2.0]);
    /// let c: Array<f32, 3, 2> = jnp::add(&a, &b);
    /// assert_eq!(c.to_vec(), [1.0, 2.0, 11.0, 12.0, 21.0, 22.0]);
    /// ```
    add: Arith => Arith::add;
    /// `a - b` with broadcasting (wrapping for integers; not for bool).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::subtract(Array::<u8, 2>::from([0, 5]), 1);
    /// assert_eq!(c.to_vec(), [255u8, 4]);
    /// ```
    subtract: Numeric => Numeric::sub;
    /// `a * b` with broadcasting (wrapping for integers, logical and for bool).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::multiply(Array::<i32, 2>::from([3, -4]), 2);
    /// assert_eq!(c.to_vec(), [6, -8]);
    /// ```
    multiply: Arith => Arith::mul;
    /// The larger of each pair; NaN if either is NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c: Array<f32, 2> = jnp::maximum(Array::<f32, 2>::from([1.0, f32::NAN]), 0.0);
    /// assert!(c.to_vec()[0] == 1.0 && c.to_vec()[1].is_nan());
    /// ```
    maximum: Arith => Arith::max;
    /// The smaller of each pair; NaN if either is NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::minimum(Array::<i32, 2>::from([1, 5]), 3);
    /// assert_eq!(c.to_vec(), [1, 3]);
    /// ```
    minimum: Arith => Arith::min;
}

macro_rules! comparison {
    ($($(#[$doc:meta])* $name:ident $op:tt $Bound:ident;)*) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name<A, B, Out>(a: A, b: B) -> Out
        where
            A: PromoteWith<B> + ResultShape<B, Out>,
            B: Operand,
            Out: ArrayType<Elem = bool>,
            Promoted<A, B>: $Bound,
        {
            zip_with(stringify!($name), a.view(), b.view(), |x: Promoted<A, B>, y| x $op y)
        }
    )*};
}

comparison! {
    /// Elementwise `a < b` after promotion (false where either is NaN).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::less(Array::<i32, 3>::from([0, 1, 2]), 1);
    /// assert_eq!(c.to_vec(), [true, false, false]);
    /// ```
    less < PartialOrd;
    /// Elementwise `a <= b` after promotion.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::less_equal(Array::<i32, 3>::from([0, 1, 2]), 1);
    /// assert_eq!(c.to_vec(), [true, true, false]);
    /// ```
    less_equal <= PartialOrd;
    /// Elementwise `a > b` after promotion.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::greater(Array::<i32, 3>::from([0, 1, 2]), 1);
    /// assert_eq!(c.to_vec(), [false, false, true]);
    /// ```
    greater > PartialOrd;
    /// Elementwise `a >= b` after promotion.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::greater_equal(Array::<i32, 3>::from([0, 1, 2]), 1);
    /// assert_eq!(c.to_vec(), [false, true, true]);
    /// ```
    greater_equal >= PartialOrd;
    /// Elementwise `a == b` after promotion (NaN equals nothing).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::equal(Array::<i32, 2>::from([1, 2]), 1.0);
    /// assert_eq!(c.to_vec(), [true, false]);
    /// ```
    equal == PartialEq;
    /// Elementwise `a != b` after promotion (true where either is NaN).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::not_equal(Array::<i32, 2>::from([1, 2]), 1);
    /// assert_eq!(c.to_vec(), [false, true]);
    /// ```
    not_equal != PartialEq;
}

macro_rules! logical {
    ($($(#[$doc:meta])* $name:ident $op:tt;)*) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name<A, B, Out>(a: A, b: B) -> Out
        where
            A: Operand + ResultShape<B, Out>,
            B: Operand,
            Out: ArrayType<Elem = bool>,
        {
            zip_with(stringify!($name), a.view(), b.view(), |x: bool, y: bool| x $op y)
        }
    )*};
}

logical! {
    /// Elementwise logical and; numbers count as true when nonzero.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::logical_and(Array::<i32, 2>::from([0, 3]), true);
    /// assert_eq!(c.to_vec(), [false, true]);
    /// ```
    logical_and &;
    /// Elementwise logical or; numbers count as true when nonzero.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::logical_or(Array::<i32, 2>::from([0, 3]), false);
    /// assert_eq!(c.to_vec(), [false, true]);
    /// ```
    logical_or |;
    /// Elementwise logical exclusive or; numbers count as true when nonzero.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let c = jnp::logical_xor(Array::<i32, 2>::from([0, 3]), true);
    /// assert_eq!(c.to_vec(), [true, false]);
    /// ```
    logical_xor ^;
}

/// True division `a / b`: integers and bool divide as floats ([`ToInexact`]),
/// so `jnp::divide(int32, int32)` is f32, as Python's `/` on JAX arrays.
/// (The `/` operator on integer arrays truncates instead, as `lax.div`.)
///
/// ```
/// use jax::prelude::*;
/// let c = jnp::divide(Array::<i32, 2>::from([1, 3]), 2);
/// assert_eq!(c.to_vec(), [0.5f32, 1.5]);
/// ```
#[track_caller]
pub fn divide<A, B, Out>(a: A, b: B) -> Out
where
    A: PromoteWith<B> + ResultShape<B, Out>,
    B: Operand,
    Promoted<A, B>: ToInexact,
    Out: ArrayType<Elem = <Promoted<A, B> as ToInexact>::Out>,
{
    zip_with("divide", a.view(), b.view(), |x: Promoted<A, B>, y| {
        float_apply2(x.cast::<Out::Elem>(), y.cast(), |p, q| p / q, |p, q| p / q)
    })
}

/// The element type of `floor_divide`, `remainder` and `power`.
pub type NumericOf<A, B> = <Promoted<A, B> as ToNumeric>::Out;

/// Floor division, Python's `//` (`jnp.floor_divide`): rounds the quotient
/// toward -inf. Integer division by zero gives JAX's values
/// (`[1, -1, 0] // 0 = [-2, -2, -1]`), never a panic.
///
/// ```
/// use jax::prelude::*;
/// let c = jnp::floor_divide(Array::<i32, 2>::from([7, -7]), 2);
/// assert_eq!(c.to_vec(), [3, -4]);
/// ```
#[track_caller]
pub fn floor_divide<A, B, Out>(a: A, b: B) -> Out
where
    A: PromoteWith<B> + ResultShape<B, Out>,
    B: Operand,
    Promoted<A, B>: ToNumeric,
    Out: ArrayType<Elem = NumericOf<A, B>>,
{
    crate::nn::eager_binary("floor_divide", &a, &b, &|t, x, y| {
        jax_core::numeric::floor_divide(t, x, y)
    })
}

/// Floor modulo, Python's `%` (`jnp.remainder`): the result has the sign of
/// the divisor. Integer `x % 0` is 0, as in JAX.
///
/// ```
/// use jax::prelude::*;
/// let c = jnp::remainder(Array::<i32, 3>::from([7, -7, 5]), 3);
/// assert_eq!(c.to_vec(), [1, 2, 2]);
/// ```
#[track_caller]
pub fn remainder<A, B, Out>(a: A, b: B) -> Out
where
    A: PromoteWith<B> + ResultShape<B, Out>,
    B: Operand,
    Promoted<A, B>: ToNumeric,
    Out: ArrayType<Elem = NumericOf<A, B>>,
{
    crate::nn::eager_binary("remainder", &a, &b, &|t, x, y| {
        jax_core::numeric::remainder(t, x, y)
    })
}

/// `a ** b` (`jnp.power`), with JAX's three cases: a Rust integer exponent
/// uses `integer_pow` (exact repeated squaring; a negative one on an integer
/// base panics as JAX raises TypeError), two integer arrays use JAX's
/// 6-bit binary exponentiation (wrapping), anything else the float `pow`.
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jnp::power(Array::<i32, 2>::from([2, 3]), 3).to_vec(), [8, 27]);
/// assert_eq!(jnp::power(Array::<f32, 1>::from([4.0]), 0.5).to_vec(), [2.0f32]);
/// ```
#[track_caller]
pub fn power<A, B, Out>(a: A, b: B) -> Out
where
    A: PromoteWith<B> + ResultShape<B, Out>,
    B: Operand,
    Promoted<A, B>: ToNumeric,
    Out: ArrayType<Elem = NumericOf<A, B>>,
{
    let (va, vb) = (a.view(), b.view());
    let is_int = <Out::Elem as Element>::DTYPE.is_integer();
    if B::IS_SCALAR && <B::Elem as Element>::DTYPE.is_integer() {
        let n = match vb.data[0].to_value() {
            crate::element::Value::Int(n) => n,
            _ => unreachable!(),
        };
        if is_int && n < 0 {
            panic!(
                "Integers cannot be raised to negative powers, got integer_pow({}{:?}, {n})",
                <Out::Elem as Element>::DTYPE.name(),
                A::SHAPE
            );
        }
        let n = n.clamp(i32::MIN as i128, i32::MAX as i128) as i32;
        return zip_with("integer_pow", va, vb, |x: Promoted<A, B>, _| {
            integer_pow(x.cast::<Out::Elem>(), n)
        });
    }
    zip_with("power", va, vb, |x: Promoted<A, B>, y| {
        let (x, y) = (x.cast::<Out::Elem>(), y.cast::<Out::Elem>());
        if is_int {
            pow_int_int(x, y)
        } else {
            crate::ops::pow_float(x, y)
        }
    })
}

/// `arctan(a / b)` with the quadrant of `(b, a)` (`jnp.arctan2`); integers
/// compute in the [`ToInexact`] type.
///
/// ```
/// use jax::prelude::*;
/// let c = jnp::arctan2(Array::<f32, 1>::from([1.0]), 0.0);
/// assert_eq!(c.to_vec(), [std::f32::consts::FRAC_PI_2]);
/// ```
#[track_caller]
pub fn arctan2<A, B, Out>(a: A, b: B) -> Out
where
    A: PromoteWith<B> + ResultShape<B, Out>,
    B: Operand,
    Promoted<A, B>: ToInexact,
    Out: ArrayType<Elem = <Promoted<A, B> as ToInexact>::Out>,
{
    zip_with("arctan2", a.view(), b.view(), |x: Promoted<A, B>, y| {
        float_apply2(x.cast::<Out::Elem>(), y.cast(), f32::atan2, f64::atan2)
    })
}

/// Clamps each element to `[lo, hi]` (`jnp.clip`: `minimum(maximum(x, lo), hi)`,
/// so NaN propagates). `lo` and `hi` are arrays or Rust scalars; with scalar
/// bounds the result type is inferred. Both bounds must promote with `x` to
/// the same type.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 3>::from([-2.0, 0.5, 3.0]);
/// assert_eq!(jnp::clip(&x, 0.0, 1.0).to_vec(), [0.0f32, 0.5, 1.0]);
/// ```
#[track_caller]
pub fn clip<X, L, H, Out>(x: X, lo: L, hi: H) -> Out
where
    X: PromoteWith<L> + PromoteWith<H, Out = Promoted<X, L>>,
    X: ResultShape<L, Out> + ResultShape<H, Out>,
    L: Operand,
    H: Operand,
    Promoted<X, L>: Arith,
    Out: ArrayType<Elem = Promoted<X, L>>,
{
    let (vx, vl, vh) = (x.view(), lo.view(), hi.view());
    let weak = result_weak(&[
        (<X::Elem as Element>::DTYPE, vx.weak),
        (<L::Elem as Element>::DTYPE, vl.weak),
        (<H::Elem as Element>::DTYPE, vh.weak),
    ]);
    zip3_with("clip", vx, vl, vh, weak, |v: Out::Elem, l, h| {
        Arith::min(Arith::max(v, l), h)
    })
}

/// `x` where `cond` is true, else `y`, with broadcasting of all three and
/// promotion of `x` with `y` (`jnp.where` with three arguments; named
/// `where_` since `where` is a Rust keyword). The result type is chosen by
/// the caller and checked. A numeric `cond` counts as true when nonzero.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 3>::from([1.0, f32::NAN, 3.0]);
/// let y: Array<f32, 3> = jnp::where_(jnp::isnan(&x), 0.0, &x);
/// assert_eq!(y.to_vec(), [1.0, 0.0, 3.0]);
/// ```
#[track_caller]
pub fn where_<C, X, Y, Out>(cond: C, x: X, y: Y) -> Out
where
    C: Operand,
    X: PromoteWith<Y>,
    Y: Operand,
    Out: ArrayType<Elem = Promoted<X, Y>>,
{
    use crate::eager::unit::Input;
    let ins = vec![
        Input::view(cond.view()),
        Input::view(x.view()),
        Input::view(y.view()),
    ];
    crate::nn::eager_elementwise("where", ins, &|t, ins| {
        jax_core::jnp::where_(t, ins[0].clone(), ins[1].clone(), ins[2].clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Array;

    #[test]
    #[should_panic(
        expected = "Integers cannot be raised to negative powers, got integer_pow(int32[2], -1)"
    )]
    fn negative_integer_power_panics_like_jax() {
        let _ = power(Array::<i32, 2>::ones(), -1);
    }
}
