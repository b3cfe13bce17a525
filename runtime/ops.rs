//! Operators on arrays — `+ - * / %`, unary `-`, `! & | ^` — and the
//! comparison methods `.lt .le .gt .ge .eq_ .ne_`, with JAX's promotion.
//!
//! Every operator works on owned and borrowed arrays (`x + y`, `&x + &y`,
//! `x + &y`, `&x + y`) and with Rust scalars on either side (`x * 2.0`,
//! `2.0 * &x`). A Rust scalar is weakly typed, like a Python literal in JAX:
//! `x_f32 * 2.0` stays `f32`, `x_u8 + 300` stays `u8` (300 wraps to 44, as in
//! JAX), `x_i32 + 1.0` is `f32`.
//!
//! ```
//! use jax::prelude::*;
//!
//! let w: Array<f32, 2, 3> = Array::arange();
//! let b = Array::<f32, 3>::from([1.0, 2.0, 3.0]);
//! let y = &w * 2.0 + &b; // the bias broadcasts along the rows
//! assert_eq!(y.to_vec(), [1.0f32, 4.0, 7.0, 7.0, 10.0, 13.0]);
//! let i = Array::<i32, 2>::from([1, 2]);
//! let f: Array<DefaultFloat, 2> = i + 0.5; // a float literal promotes ints to the default float
//! assert_eq!(f.to_vec(), [1.5, 2.5]);
//! ```
//!
//! # Shapes
//!
//! The right operand must broadcast to the left operand's shape, and the
//! result has the left operand's shape (equal shapes, a bias `[64, 10] + [10]`,
//! `[4, 3] - [4, 1]`, anything with a scalar array). This is checked when the
//! crate compiles. For a result larger than the left operand use the `jnp`
//! function and annotate the result: `let z: Array<f32, 3, 4> = jnp::add(&a, &b);`.
//!
//! ```compile_fail
//! use jax::prelude::*;
//! let a = Array::<f32, 3, 1>::zeros();
//! let b = Array::<f32, 4>::zeros();
//! let _ = a + b; // [4] does not broadcast to [3, 1]: use jnp::add
//! ```
//!
//! # Semantics
//!
//! Integer `+ - *` wrap. `/` and `%` are `lax.div` and `lax.rem`: on integers
//! they truncate toward zero (the remainder has the dividend's sign), `x / 0`
//! is -1 (all ones for unsigned), `x % 0` is `x`, `MIN / -1` is `MIN`; they
//! never panic. **This differs from Python's `/` on JAX integer arrays**
//! (true division to float: use [`jnp::divide`](crate::jnp::divide)) and `%`
//! (floor modulo: [`jnp::remainder`](crate::jnp::remainder)); `//` is
//! [`jnp::floor_divide`](crate::jnp::floor_divide). Floats follow IEEE.
//!
//! On `bool`, `+` is logical or and `*` logical and, as in JAX; `-`, `/`, `%`
//! and unary `-` on bool do not compile (JAX: "sub does not accept dtype bool"):
//!
//! ```compile_fail
//! use jax::prelude::*;
//! let t = Array::<bool, 2>::from([true, false]);
//! let _ = &t - &t;
//! ```
//!
//! `!` is logical not on bool and bitwise not on integers; `& | ^` work on
//! bool and integers, not on floats:
//!
//! ```compile_fail
//! use jax::prelude::*;
//! let x = Array::<f32, 2>::ones();
//! let _ = &x & &x;
//! ```
//!
//! # Comparisons
//!
//! `PartialEq` on arrays compares whole arrays. Elementwise comparisons are
//! methods (named as `lax`, with `eq_`/`ne_` so they do not clash with
//! `PartialEq`) and the `jnp` functions `less`, `less_equal`, `greater`,
//! `greater_equal`, `equal`, `not_equal`:
//!
//! ```
//! use jax::prelude::*;
//! let x = Array::<f32, 3>::from([-1.0, 0.0, 2.0]);
//! assert_eq!(x.gt(0.0).to_vec(), [false, false, true]);
//! assert_eq!(x.eq_(&x).to_vec(), [true, true, true]);
//! ```

use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Sub};

use crate::array::{impl_array, Array};
use crate::element::{bf16, f16, Element, Promote, PromoteWeak};

mod binary;
mod field;
mod kernels;
mod parts;

pub use binary::{
    broadcasts_to, map, map_same, result_weak, zip3_with, zip_with, Operand, PromoteWith,
    ResultShape, View,
};
pub(crate) use binary::{with_dims, with_dims2};
pub use field::{AddMul, SubDiv};
pub use kernels::{
    float, float_apply, float_apply2, integer_pow, pow_float, pow_int_int, Arith, BitPattern,
    Bitwise, Numeric, Shift, ToNumeric, TotalOrder,
};
pub use parts::{Parts, ToComplex};

// `array op array`: the right operand broadcasts to the left one's shape.
macro_rules! op_array_array {
    ([$($a:tt)*] [$($b:tt)*] $Trait:ident $method:ident $Kernel:ident $kfn:ident $jnp:literal) => {
        impl<
                T: Element + Promote<U>, U: Element,
                const D0: usize, const D1: usize, const D2: usize,
                const D3: usize, const D4: usize, const D5: usize,
                const E0: usize, const E1: usize, const E2: usize,
                const E3: usize, const E4: usize, const E5: usize,
            > $Trait<$($b)*> for $($a)*
        where
            <T as Promote<U>>::Out: $Kernel,
        {
            type Output = Array<<T as Promote<U>>::Out, D0, D1, D2, D3, D4, D5>;
            #[inline]
            #[track_caller]
            fn $method(self, rhs: $($b)*) -> Self::Output {
                const {
                    assert!(
                        broadcasts_to(
                            Array::<U, E0, E1, E2, E3, E4, E5>::SHAPE,
                            Array::<T, D0, D1, D2, D3, D4, D5>::SHAPE
                        ),
                        concat!(
                            "the right operand of an array operator must broadcast to the left \
                             operand's shape (the result has the left shape); for a larger result use `jnp::",
                            $jnp,
                            "(a, b)` and annotate the result type, e.g. `let z: Array<f32, 3, 4> = jnp::",
                            $jnp,
                            "(&a, &b);`"
                        )
                    )
                };
                zip_with(
                    stringify!($method),
                    View::of::<Array<T, D0, D1, D2, D3, D4, D5>>(&self),
                    View::of::<Array<U, E0, E1, E2, E3, E4, E5>>(&rhs),
                    <<T as Promote<U>>::Out as $Kernel>::$kfn,
                )
            }
        }
    };
}

// `array op scalar` and `scalar op array`; the scalar is weakly typed.
macro_rules! op_array_scalar {
    ([$($a:tt)*] $Trait:ident $method:ident $Kernel:ident $kfn:ident $jnp:literal) => {
        impl_array! {
            impl<T: Element + PromoteWeak<S>, S: Element> $Trait<S> for $($a)*
            where
                <T as PromoteWeak<S>>::Out: $Kernel,
            {
                type Output = Array<<T as PromoteWeak<S>>::Out, D0, D1, D2, D3, D4, D5>;
                #[inline]
                fn $method(self, rhs: S) -> Self::Output {
                    zip_with(
                        stringify!($method),
                        View::of::<Array<T, D0, D1, D2, D3, D4, D5>>(&self),
                        rhs.view(),
                        <<T as PromoteWeak<S>>::Out as $Kernel>::$kfn,
                    )
                }
            }
        }
        op_array_scalar!(@left [[$($a)*] $Trait $method $Kernel $kfn]
            bool, u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64);
    };
    (@left $args:tt $($s:ty),*) => {$(
        op_array_scalar!(@one $s, $args);
    )*};
    (@one $s:ty, [[$($a:tt)*] $Trait:ident $method:ident $Kernel:ident $kfn:ident]) => {
        impl_array! {
            impl<T: Element + PromoteWeak<$s>> $Trait<$($a)*> for $s
            where
                <T as PromoteWeak<$s>>::Out: $Kernel,
            {
                type Output = Array<<T as PromoteWeak<$s>>::Out, D0, D1, D2, D3, D4, D5>;
                #[inline]
                fn $method(self, rhs: $($a)*) -> Self::Output {
                    zip_with(
                        stringify!($method),
                        self.view(),
                        View::of::<Array<T, D0, D1, D2, D3, D4, D5>>(&rhs),
                        <<T as PromoteWeak<$s>>::Out as $Kernel>::$kfn,
                    )
                }
            }
        }
    };
}

macro_rules! binary_operator {
    ($Trait:ident $method:ident $Kernel:ident $kfn:ident $jnp:literal) => {
        with_dims2!(op_array_array!($Trait $method $Kernel $kfn $jnp));
        with_dims!(op_array_scalar!($Trait $method $Kernel $kfn $jnp));
    };
}

binary_operator!(Add add AddMul add "add");
binary_operator!(Sub sub SubDiv sub "subtract");
binary_operator!(Mul mul AddMul mul "multiply");
binary_operator!(Div div SubDiv div "divide");
binary_operator!(Rem rem Numeric rem "remainder");
binary_operator!(BitAnd bitand Bitwise and "bitwise_and");
binary_operator!(BitOr bitor Bitwise or "bitwise_or");
binary_operator!(BitXor bitxor Bitwise xor "bitwise_xor");

macro_rules! unary_operator {
    ([$($a:tt)*] $Trait:ident $method:ident $Kernel:ident $kfn:ident) => {
        impl_array! {
            impl<T: $Kernel> $Trait for $($a)* {
                type Output = Array<T, D0, D1, D2, D3, D4, D5>;
                #[inline]
                fn $method(self) -> Self::Output {
                    map_same::<Array<T, D0, D1, D2, D3, D4, D5>>(&self, T::$kfn)
                }
            }
        }
    };
}
with_dims!(unary_operator!(Neg neg SubDiv neg));
with_dims!(unary_operator!(Not not Bitwise not));

macro_rules! comparison {
    ($($(#[$doc:meta])* $name:ident $op:tt $Bound:ident { $(#[$example:meta])* })*) => {
        impl_array! {
            impl<T: Element> Array<T, ..> {
                $(
                    $(#[$doc])*
                    ///
                    /// `other` is an array that broadcasts to this one's shape
                    /// (checked at compile time) or a Rust scalar; both sides are
                    /// promoted first (`x_i32.lt(0.5)` compares as f32).
                    ///
                    $(#[$example])*
                    #[track_caller]
                    pub fn $name<B: Operand>(&self, other: B) -> Array<bool, D0, D1, D2, D3, D4, D5>
                    where
                        Self: PromoteWith<B>,
                        <Self as PromoteWith<B>>::Out: $Bound,
                    {
                        const {
                            assert!(
                                broadcasts_to(B::SHAPE, Self::SHAPE),
                                "the operand of a comparison method must broadcast to the array's shape; \
                                 for a larger result use the jnp function (jnp::less, jnp::equal, ...) \
                                 and annotate the result type"
                            )
                        };
                        zip_with(
                            stringify!($name),
                            View::of(self),
                            other.view(),
                            |a: <Self as PromoteWith<B>>::Out, b| a $op b,
                        )
                    }
                )*
            }
        }
    };
}

comparison! {
    /// Elementwise `self < other` (`lax.lt`); false where either is NaN.
    lt < PartialOrd {
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<f32, 3>::from([1.0, 2.0, f32::NAN]);
        /// assert_eq!(x.lt(2.0).to_vec(), [true, false, false]);
        /// ```
    }
    /// Elementwise `self <= other` (`lax.le`).
    le <= PartialOrd {
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<i32, 3>::from([1, 2, 3]);
        /// assert_eq!(x.le(2).to_vec(), [true, true, false]);
        /// ```
    }
    /// Elementwise `self > other` (`lax.gt`).
    gt > PartialOrd {
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<i32, 2, 2>::from([[1, 2], [3, 4]]);
        /// let y = Array::<i32, 2>::from([2, 2]); // broadcast along the rows
        /// assert_eq!(x.gt(&y).to_vec(), [false, false, true, true]);
        /// ```
    }
    /// Elementwise `self >= other` (`lax.ge`).
    ge >= PartialOrd {
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<i32, 3>::from([1, 2, 3]);
        /// assert_eq!(x.ge(1.5).to_vec(), [false, true, true]); // compared as floats
        /// ```
    }
    /// Elementwise `self == other` (`lax.eq`); named `eq_` because `==`
    /// (`PartialEq`) compares whole arrays.
    eq_ == PartialEq {
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<i32, 3>::from([1, 2, 3]);
        /// assert_eq!(x.eq_(2).to_vec(), [false, true, false]);
        /// ```
    }
    /// Elementwise `self != other` (`lax.ne`); true where either is NaN.
    ne_ != PartialEq {
        /// ```
        /// use jax::prelude::*;
        /// let x = Array::<f32, 3>::from([1.0, 2.0, f32::NAN]);
        /// assert_eq!(x.ne_(2.0).to_vec(), [true, false, true]);
        /// ```
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_promotion() {
        let x = Array::<u8, 2>::from([1, 2]);
        let y = x + 300;
        assert_eq!(y.to_vec(), [45u8, 46]);
        let z: Array<f32, 2> = 2.0 * Array::<f32, 2>::from([1.0, 2.0]);
        assert_eq!(z.to_vec(), [2.0, 4.0]);
        // A weak float literal gives the default float type (f64 with x64).
        let w = Array::<i32, 2>::from([1, 2]) + 1.0;
        let want = if cfg!(feature = "x64") {
            crate::DType::F64
        } else {
            crate::DType::F32
        };
        assert_eq!(w.dtype(), want);
        assert!(w.weak_type());
    }

    #[test]
    fn bias_add() {
        let x = Array::<f32, 2, 2>::from([[1.0, 2.0], [3.0, 4.0]]);
        let b = Array::<f32, 2>::from([10.0, 20.0]);
        assert_eq!((&x + &b).to_vec(), [11.0, 22.0, 13.0, 24.0]);
        let c = Array::<f32, 2, 1>::from([[1.0], [2.0]]);
        assert_eq!((x - c).to_vec(), [0.0, 1.0, 1.0, 2.0]);
    }
}
