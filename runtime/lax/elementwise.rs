//! Strict elementwise operations, as `jax.lax`: both operands must have the
//! same element type and the same shape, which the signatures require, so
//! a mismatch is a compile error rather than JAX's TypeError ("lax.add
//! requires arguments to have the same dtypes"). Nothing is promoted or
//! broadcast; use `jnp` for that.
//!
//! ```compile_fail
//! use jax::prelude::*;
//! let x = Array::<f32, 2>::ones();
//! let i = Array::<i32, 2>::ones();
//! let _ = lax::add(&x, &i); // different dtypes: use jnp::add
//! ```
//!
//! ```compile_fail
//! use jax::prelude::*;
//! let x = Array::<f32, 2>::ones();
//! let y = Array::<f32, 3>::ones();
//! let _ = lax::add(&x, &y); // different shapes
//! ```

use crate::array::{ArrayType, AsArray};
use crate::element::{Element, Float};
use crate::ops::{
    float, integer_pow as integer_pow_elem, map, map_same, zip_with, Arith, Bitwise, Numeric, View,
};

/// The element type of an array argument.
use crate::array::ElemOf;
/// The array type of argument `A` with element type `E`.
type WithElem<A, E> = <<A as AsArray>::Array as ArrayType>::WithElem<E>;

#[track_caller]
fn zip<A: AsArray, O: Element, Out: ArrayType<Elem = O>>(
    op: &str,
    x: &A,
    y: &impl AsArray<Array = A::Array>,
    f: impl Fn(ElemOf<A>, ElemOf<A>) -> O,
) -> Out {
    zip_with(op, View::of(x.as_array()), View::of(y.as_array()), f)
}

macro_rules! strict_binary {
    ($($(#[$doc:meta])* $name:ident: $Bound:ident => $f:path;)*) => {$(
        $(#[$doc])*
        pub fn $name<A: AsArray>(x: A, y: impl AsArray<Array = A::Array>) -> A::Array
        where
            ElemOf<A>: $Bound,
        {
            zip(stringify!($name), &x, &y, $f)
        }
    )*};
}

strict_binary! {
    /// `x + y` (wrapping for integers, or for bool).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i8, 2>::from([100, 1]);
    /// assert_eq!(lax::add(&x, &x).to_vec(), [-56, 2]);
    /// ```
    add: Arith => Arith::add;
    /// `x - y` (wrapping for integers; not for bool).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<u8, 2>::from([0, 1]);
    /// let y = Array::<u8, 2>::from([1, 1]);
    /// assert_eq!(lax::sub(&x, &y).to_vec(), [255, 0]);
    /// ```
    sub: Numeric => Numeric::sub;
    /// `x * y` (wrapping for integers, and for bool).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([1.5, 2.0]);
    /// assert_eq!(lax::mul(&x, &x).to_vec(), [2.25, 4.0]);
    /// ```
    mul: Arith => Arith::mul;
    /// `x / y`: truncating for integers, with XLA's `x / 0` = -1 (all ones
    /// unsigned) and `MIN / -1` = `MIN`; IEEE for floats.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 3>::from([7, -7, 7]);
    /// let y = Array::<i32, 3>::from([2, 2, 0]);
    /// assert_eq!(lax::div(&x, &y).to_vec(), [3, -3, -1]);
    /// ```
    div: Numeric => Numeric::div;
    /// The remainder of `div`, with the sign of `x` (C's `fmod` for floats);
    /// integer `x % 0` is `x`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 3>::from([7, -7, 7]);
    /// let y = Array::<i32, 3>::from([2, 2, 0]);
    /// assert_eq!(lax::rem(&x, &y).to_vec(), [1, -1, 7]);
    /// ```
    rem: Numeric => Numeric::rem;
    /// The larger of each pair; NaN if either is NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([1.0, f32::NAN]);
    /// let y = Array::<f32, 2>::from([2.0, 0.0]);
    /// let m = lax::max(&x, &y).to_vec();
    /// assert!(m[0] == 2.0 && m[1].is_nan());
    /// ```
    max: Arith => Arith::max;
    /// The smaller of each pair; NaN if either is NaN.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2>::from([1, 5]);
    /// let y = Array::<i32, 2>::from([2, 0]);
    /// assert_eq!(lax::min(&x, &y).to_vec(), [1, 0]);
    /// ```
    min: Arith => Arith::min;
    /// Bitwise (bool: logical) and.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<u8, 2>::from([0b1100, 0b1010]);
    /// assert_eq!(lax::bitwise_and(&x, Array::from([0b1010u8, 0b1010])).to_vec(), [0b1000, 0b1010]);
    /// ```
    bitwise_and: Bitwise => Bitwise::and;
    /// Bitwise (bool: logical) or.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<bool, 2>::from([true, false]);
    /// assert_eq!(lax::bitwise_or(&x, &x).to_vec(), [true, false]);
    /// ```
    bitwise_or: Bitwise => Bitwise::or;
    /// Bitwise (bool: logical) exclusive or.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2>::from([5, -1]);
    /// assert_eq!(lax::bitwise_xor(&x, Array::from([1, 1])).to_vec(), [4, -2]);
    /// ```
    bitwise_xor: Bitwise => Bitwise::xor;
}

/// `x ** y` for floats (`lax.pow`), computed in f64 and rounded once.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2>::from([4.0, 2.0]);
/// let y = Array::<f32, 2>::from([0.5, -1.0]);
/// assert_eq!(lax::pow(&x, &y).to_vec(), [2.0, 0.5]);
/// ```
pub fn pow<A: AsArray>(x: A, y: impl AsArray<Array = A::Array>) -> A::Array
where
    ElemOf<A>: Float,
{
    zip("pow", &x, &y, crate::ops::pow_float::<ElemOf<A>>)
}

macro_rules! comparison {
    ($($(#[$doc:meta])* $name:ident $op:tt $Bound:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name<A: AsArray>(x: A, y: impl AsArray<Array = A::Array>) -> WithElem<A, bool>
        where
            ElemOf<A>: $Bound,
        {
            zip(stringify!($name), &x, &y, |a, b| a $op b)
        }
    )*};
}

comparison! {
    /// Elementwise `x == y` (NaN equals nothing).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([1.0, f32::NAN]);
    /// assert_eq!(lax::eq(&x, &x).to_vec(), [true, false]);
    /// ```
    eq == PartialEq;
    /// Elementwise `x != y`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([1.0, f32::NAN]);
    /// assert_eq!(lax::ne(&x, &x).to_vec(), [false, true]);
    /// ```
    ne != PartialEq;
    /// Elementwise `x < y`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2>::from([1, 2]);
    /// assert_eq!(lax::lt(&x, Array::from([2, 2])).to_vec(), [true, false]);
    /// ```
    lt < PartialOrd;
    /// Elementwise `x <= y`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2>::from([1, 2]);
    /// assert_eq!(lax::le(&x, Array::from([2, 2])).to_vec(), [true, true]);
    /// ```
    le <= PartialOrd;
    /// Elementwise `x > y`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2>::from([1, 3]);
    /// assert_eq!(lax::gt(&x, Array::from([2, 2])).to_vec(), [false, true]);
    /// ```
    gt > PartialOrd;
    /// Elementwise `x >= y`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<i32, 2>::from([1, 2]);
    /// assert_eq!(lax::ge(&x, Array::from([2, 2])).to_vec(), [false, true]);
    /// ```
    ge >= PartialOrd;
}

macro_rules! strict_unary {
    ($($(#[$doc:meta])* $name:ident: $Bound:ident => $f:path;)*) => {$(
        $(#[$doc])*
        pub fn $name<A: AsArray>(x: A) -> A::Array
        where
            ElemOf<A>: $Bound,
        {
            map_same(x.as_array(), $f)
        }
    )*};
}

strict_unary! {
    /// `-x` (wrapping for integers).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::neg(Array::<i32, 2>::from([1, i32::MIN])).to_vec(), [-1, i32::MIN]);
    /// ```
    neg: Numeric => Numeric::neg;
    /// `|x|` (the most negative integer wraps to itself).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::abs(Array::<f32, 2>::from([-1.5, 2.0])).to_vec(), [1.5, 2.0]);
    /// ```
    abs: Numeric => Arith::abs;
    /// -1, 0 or 1 by sign (NaN and ±0 unchanged).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::sign(Array::<i32, 3>::from([-5, 0, 5])).to_vec(), [-1, 0, 1]);
    /// ```
    sign: Numeric => Numeric::sign;
    /// Bitwise (bool: logical) not.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::bitwise_not(Array::<u8, 2>::from([0, 255])).to_vec(), [255, 0]);
    /// ```
    bitwise_not: Bitwise => Bitwise::not;
    /// Rounds toward -inf.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::floor(Array::<f32, 1>::from([-0.5])).to_vec(), [-1.0]);
    /// ```
    floor: Float => float::floor;
    /// Rounds toward +inf.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::ceil(Array::<f32, 1>::from([0.5])).to_vec(), [1.0]);
    /// ```
    ceil: Float => float::ceil;
    /// `e^x`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::exp(Array::<f32, 1>::from([0.0])).to_vec(), [1.0]);
    /// ```
    exp: Float => float::exp;
    /// The natural logarithm.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::log(Array::<f32, 1>::from([1.0])).to_vec(), [0.0]);
    /// ```
    log: Float => float::log;
    /// `log(1 + x)`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::log1p(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    log1p: Float => float::log1p;
    /// `e^x - 1`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::expm1(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    expm1: Float => float::expm1;
    /// The hyperbolic tangent.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::tanh(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    tanh: Float => float::tanh;
    /// The sine.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::sin(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    sin: Float => float::sin;
    /// The cosine.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::cos(Array::<f32, 1>::from([0.0])).to_vec(), [1.0]);
    /// ```
    cos: Float => float::cos;
    /// The square root.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::sqrt(Array::<f32, 1>::from([9.0])).to_vec(), [3.0]);
    /// ```
    sqrt: Float => float::sqrt;
    /// `1 / sqrt(x)`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::rsqrt(Array::<f32, 1>::from([0.25])).to_vec(), [2.0]);
    /// ```
    rsqrt: Float => float::rsqrt;
    /// The logistic sigmoid `1 / (1 + e^-x)`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::logistic(Array::<f32, 1>::from([0.0])).to_vec(), [0.5]);
    /// ```
    logistic: Float => float::logistic;
    /// The error function.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(lax::erf(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
    /// ```
    erf: Float => float::erf;
}

/// How [`round`] treats halfway values (`lax.RoundingMethod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RoundingMethod {
    /// Halfway values round away from zero (`2.5` -> `3`), `lax.round`'s default.
    #[default]
    AwayFromZero = 0,
    /// Halfway values round to the even neighbour (`2.5` -> `2`), as `jnp.round`.
    ToNearestEven = 1,
}

/// Rounds to the nearest integer, halfway values as `method` says (floats only).
///
/// ```
/// use jax::prelude::*;
/// use jax::lax::RoundingMethod;
/// let x = Array::<f32, 2>::from([2.5, -0.5]);
/// assert_eq!(lax::round(&x, RoundingMethod::AwayFromZero).to_vec(), [3.0, -1.0]);
/// assert_eq!(lax::round(&x, RoundingMethod::ToNearestEven).to_vec(), [2.0, -0.0]);
/// ```
pub fn round<A: AsArray>(x: A, method: RoundingMethod) -> A::Array
where
    ElemOf<A>: Float + Numeric,
{
    match method {
        RoundingMethod::AwayFromZero => map_same(x.as_array(), Numeric::round_away),
        RoundingMethod::ToNearestEven => map_same(x.as_array(), Numeric::round_even),
    }
}

/// `x ** n` for a static integer `n` by repeated squaring (`lax.integer_pow`;
/// negative `n` takes the reciprocal).
///
/// # Panics
///
/// With an integer `x` and a negative `n`, with JAX's message
/// (`Integers cannot be raised to negative powers, got integer_pow(int32[2], -1)`).
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(lax::integer_pow(Array::<i32, 2>::from([2, -3]), 3).to_vec(), [8, -27]);
/// assert_eq!(lax::integer_pow(Array::<f32, 1>::from([2.0]), -2).to_vec(), [0.25]);
/// ```
#[track_caller]
pub fn integer_pow<A: AsArray>(x: A, n: i32) -> A::Array
where
    ElemOf<A>: Numeric,
{
    let dtype = <ElemOf<A> as Element>::DTYPE;
    if n < 0 && dtype.is_integer() {
        panic!(
            "Integers cannot be raised to negative powers, got integer_pow({}{:?}, {n})",
            dtype.name(),
            <A::Array as ArrayType>::SHAPE
        );
    }
    map_same(x.as_array(), |v| integer_pow_elem(v, n))
}

/// `on_true` where `pred` is true, else `on_false` (`lax.select`): all three
/// have the same shape, and both branches the same type.
///
/// ```
/// use jax::prelude::*;
/// let p = Array::<bool, 2>::from([true, false]);
/// let a = Array::<f32, 2>::from([1.0, 2.0]);
/// let b = Array::<f32, 2>::from([-1.0, -2.0]);
/// assert_eq!(lax::select(&p, &a, &b).to_vec(), [1.0, -2.0]);
/// ```
pub fn select<A: AsArray>(
    pred: impl AsArray<Array = WithElem<A, bool>>,
    on_true: A,
    on_false: impl AsArray<Array = A::Array>,
) -> A::Array {
    let (t, f) = (on_true.as_array(), on_false.as_array());
    let data = pred
        .as_array()
        .data()
        .iter()
        .zip(t.data().iter().zip(f.data()))
        .map(|(&p, (&a, &b))| if p { a } else { b })
        .collect();
    <A::Array as ArrayType>::from_data(data).set_weak(t.is_weak() && f.is_weak())
}

/// Converts every element to `U` with XLA's semantics (float to int
/// saturates, NaN to 0; int to int wraps; to bool is `!= 0`)
/// (`lax.convert_element_type`). The result is not weakly typed.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 3>::from([-1.5, 300.0, f32::NAN]);
/// assert_eq!(lax::convert_element_type::<u8, _>(&x).to_vec(), [0, 255, 0]);
/// ```
pub fn convert_element_type<U: Element, A: AsArray>(x: A) -> WithElem<A, U> {
    let out: WithElem<A, U> = map(x.as_array(), |v| v.cast::<U>());
    out.set_weak(false)
}
