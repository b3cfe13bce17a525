//! `jax.scipy.special`: `erf`, `erfc`, `erfinv`, `expit`, `logit`, `xlogy`,
//! `xlog1py`, `gammaln`, `digamma` and `logsumexp`, as JAX computes them.
//!
//! ```
//! use jax::prelude::*;
//! use jax::scipy::special;
//!
//! let x = Array::<f32, 2>::from([0.0, 1.0]);
//! let y: Array<f32, 2> = special::xlogy(&x, &x);
//! assert_eq!(y.to_vec(), [0.0, 0.0]);
//! ```

use crate::__rt::ops as o;
use crate::array::{ArrayType, AsArray};
use crate::element::{Float, ToInexact};
use crate::jnp::{Inexact, Promoted};
use crate::ops::{map_same, Numeric, Operand, PromoteWith, ResultShape};

use crate::array::ElemOf as E;

/// `log(sum(exp(x)))` along `axis` (`jax.scipy.special.logsumexp`), computed stably.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 1, 2>::from([[0.0, 0.0]]);
/// let y: Array<f32, 1> = jax::scipy::special::logsumexp(&x, 1, false);
/// assert_eq!(y.to_vec(), [2f32.ln()]);
/// ```
#[track_caller]
pub fn logsumexp<A: AsArray, Out>(x: A, axis: isize, keepdims: bool) -> Out
where
    E<A>: ToInexact,
    Out: ArrayType<Elem = <E<A> as ToInexact>::Out>,
{
    crate::jnp::logsumexp_axis(x, axis, keepdims)
}

/// The error function (`jnp::erf`).
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jax::scipy::special::erf(Array::<f32, 1>::from([0.0])).to_vec(), [0.0]);
/// ```
pub fn erf<A: AsArray>(x: A) -> Inexact<A>
where
    E<A>: ToInexact,
{
    crate::jnp::erf(x)
}

/// The complementary error function `1 - erf(x)` (`jnp::erfc`).
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jax::scipy::special::erfc(Array::<f32, 1>::from([0.0])).to_vec(), [1.0]);
/// ```
pub fn erfc<A: AsArray>(x: A) -> Inexact<A>
where
    E<A>: ToInexact,
{
    crate::jnp::erfc(x)
}

/// The inverse error function (`lax.erf_inv`).
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jax::scipy::special::erfinv(Array::<f32, 2>::from([0.0, 1.0])).to_vec(), [0.0, f32::INFINITY]);
/// ```
pub fn erfinv<A: AsArray>(x: A) -> Inexact<A>
where
    E<A>: ToInexact,
{
    crate::jnp::erf_inv(x)
}

/// The logistic sigmoid `1 / (1 + e^-x)`.
///
/// ```
/// use jax::prelude::*;
/// assert_eq!(jax::scipy::special::expit(Array::<f32, 1>::from([0.0])).to_vec(), [0.5]);
/// ```
pub fn expit<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float,
{
    map_same(x.as_array(), o::logistic)
}

/// `log(x / (1 - x))`, the inverse of [`expit`]; differentiated with JAX's
/// rule `1 / (x (1 - x))`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::special::logit(Array::<f32, 3>::from([0.5, 0.0, 1.0]));
/// assert_eq!(y.to_vec(), [0.0, f32::NEG_INFINITY, f32::INFINITY]);
/// ```
#[track_caller]
pub fn logit<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float + Numeric,
{
    crate::nn::eager_unary("logit", "", &x, &|t, x| jax_core::nn::logit(t, x))
}

/// `log|Γ(x)|`, with XLA's Lanczos approximation.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::special::gammaln(Array::<f32, 2>::from([1.0, 3.0]));
/// assert!(y.to_vec()[0].abs() < 1e-6 && (y.to_vec()[1] - 2f32.ln()).abs() < 1e-6);
/// ```
pub fn gammaln<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float,
{
    map_same(x.as_array(), super::gamma::lgamma)
}

/// The digamma function `Γ'(x)/Γ(x)` (NaN at 0 and the negative integers).
///
/// ```
/// use jax::prelude::*;
/// let y = jax::scipy::special::digamma(Array::<f32, 2>::from([1.0, 0.0]));
/// assert!((y.to_vec()[0] + 0.5772157).abs() < 1e-6 && y.to_vec()[1].is_nan());
/// ```
pub fn digamma<A: AsArray>(x: A) -> A::Array
where
    E<A>: Float,
{
    map_same(x.as_array(), super::gamma::digamma)
}

macro_rules! xlog_fn {
    ($(#[$doc:meta])* $name:ident => $log1p:expr) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<A, B, Out>(x: A, y: B) -> Out
        where
            A: PromoteWith<B> + ResultShape<B, Out>,
            B: Operand,
            Promoted<A, B>: ToInexact,
            Out: ArrayType<Elem = <Promoted<A, B> as ToInexact>::Out>,
            Out::Elem: Float + Numeric,
        {
            crate::nn::eager_binary(stringify!($name), &x, &y, &|t, x, y| {
                jax_core::nn::xlogy(t, x, y, $log1p)
            })
        }
    };
}

xlog_fn! {
    /// `x * log(y)`, 0 where `x == 0` (unless `y` is NaN), so `xlogy(0, 0) = 0`;
    /// differentiated with JAX's rule.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::scipy::special::xlogy(Array::<f32, 2>::from([0.0, 2.0]), 1.0);
    /// assert_eq!(y.to_vec(), [0.0f32, 0.0]);
    /// ```
    xlogy => false
}

xlog_fn! {
    /// `x * log1p(y)`, 0 where `x == 0` (unless `y` is NaN), so `xlog1py(0, -1) = 0`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::scipy::special::xlog1py(Array::<f32, 2>::from([0.0, 2.0]), -1.0);
    /// assert_eq!(y.to_vec(), [0.0f32, f32::NEG_INFINITY]);
    /// ```
    xlog1py => true
}
