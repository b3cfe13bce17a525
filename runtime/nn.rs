//! `jax.nn`: activation functions, softmax and friends, `one_hot` and
//! `standardize`, computed with JAX's formulas step by step (each step
//! rounds in the element type, as XLA does), so eager results equal what
//! `#[jax::jit]` computes for `nn::NAME(..)`.
//!
//! Parameters JAX gives as keywords with defaults are positional here, as in
//! the eager `jnp` functions (`jnp::softmax(x, axis)`): `nn::gelu(x, true)`
//! is `jax.nn.gelu(x, approximate=True)`.
//!
//! ```
//! use jax::prelude::*;
//! use jax::nn;
//!
//! let x = Array::<f32, 3>::from([-1.0, 0.0, 2.0]);
//! assert_eq!(nn::relu(&x).to_vec(), [0.0, 0.0, 2.0]);
//! ```

pub mod initializers;

use jax_core::ir::{Atom, Scalar};
use jax_core::lax::Trace;
use jax_core::nn as core;

use crate::array::{ArrayType, AsArray};
use crate::eager::{self, unit::Input};
use crate::element::{Element, Float};
use crate::ops::{Numeric, Operand};
use crate::shape;

pub use crate::jnp::{log_softmax, softmax};

use crate::array::ElemOf as E;

/// A function of one array of `jax_core::nn` (or `jnp`, `special`), run
/// eagerly as JAX runs it (one program): its result as `Out`, checked.
#[track_caller]
pub(crate) fn eager_unary<A: AsArray, Out: ArrayType>(
    name: &'static str,
    statics: &str,
    x: &A,
    f: &(dyn Fn(&mut Trace, Atom) -> jax_core::Result<Atom> + Sync),
) -> Out {
    let x = Input::of(x);
    let r = eager::call(|_| {
        eager::unit::elementwise(name, statics, vec![x], &|t, ins| {
            Ok(vec![f(t, ins[0].clone())?])
        })
    });
    eager::typed(name, r)
}

/// A function of two operands (arrays or Rust scalars, broadcast) of
/// `jax_core::nn` (or `jnp`, `special`), run eagerly: its result as `Out`.
#[track_caller]
pub(crate) fn eager_binary<A: Operand, B: Operand, Out: ArrayType>(
    name: &'static str,
    x: &A,
    y: &B,
    f: &(dyn Fn(&mut Trace, Atom, Atom) -> jax_core::Result<Atom> + Sync),
) -> Out {
    let ins = vec![Input::view(x.view()), Input::view(y.view())];
    eager_elementwise(name, ins, &|t, ins| f(t, ins[0].clone(), ins[1].clone()))
}

/// An elementwise function of operands (arrays or Rust scalars, broadcast),
/// run eagerly as one unit: its result as `Out`.
#[track_caller]
pub(crate) fn eager_elementwise<Out: ArrayType>(
    name: &'static str,
    ins: Vec<Input>,
    f: &(dyn Fn(&mut Trace, &[Atom]) -> jax_core::Result<Atom> + Sync),
) -> Out {
    let r =
        eager::call(|_| eager::unit::elementwise(name, "", ins, &|t, ins| Ok(vec![f(t, &ins)?])));
    eager::typed(name, r)
}

/// A number a function takes (`alpha`, a slope) as a Rust literal in a
/// jitted body would be: a weakly typed scalar.
fn number(t: &mut Trace, v: f64) -> Atom {
    jax_core::jnp::weak_literal(t, Scalar::Float(v))
}

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident => $f:path;)*) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name<A: AsArray>(x: A) -> A::Array
        where
            E<A>: Float + Numeric,
        {
            eager_unary(stringify!($name), "", &x, &|t, x| $f(t, x))
        }
    )*};
}

unary! {
    /// `max(x, 0)`; its derivative at 0 is 0, as JAX's `custom_jvp`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::relu(Array::<f32, 3>::from([-2.0, 0.0, 1.5]));
    /// assert_eq!(y.to_vec(), [0.0, 0.0, 1.5]);
    /// ```
    relu => core::relu;
    /// `min(max(x, 0), 6)`; derivative 0 at 0 and 6, as JAX's `custom_jvp`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::relu6(Array::<f32, 3>::from([-2.0, 3.0, 7.0]));
    /// assert_eq!(y.to_vec(), [0.0, 3.0, 6.0]);
    /// ```
    relu6 => core::relu6;
    /// `1 / (1 + e^-x)` (`lax.logistic`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jax::nn::sigmoid(Array::<f32, 1>::from([0.0])).to_vec(), [0.5]);
    /// ```
    sigmoid => core::sigmoid;
    /// `log(1 + e^x)`, computed as `jnp.logaddexp(x, 0)` (stable for large `|x|`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::softplus(Array::<f32, 2>::from([0.0, 100.0]));
    /// assert_eq!(y.to_vec(), [2f32.ln(), 100.0]);
    /// ```
    softplus => core::softplus;
    /// `log(sigmoid(x))`, computed as `-softplus(-x)` (stable for large `|x|`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::log_sigmoid(Array::<f32, 2>::from([0.0, -100.0]));
    /// assert_eq!(y.to_vec(), [-(2f32.ln()), -100.0]);
    /// ```
    log_sigmoid => core::log_sigmoid;
    /// `x * sigmoid(x)` (also called swish).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jax::nn::silu(Array::<f32, 2>::from([0.0, 1.0])).to_vec(), [0.0, 1.0 / (1.0 + (-1f32).exp())]);
    /// ```
    silu => core::silu;
    /// `x * sigmoid(x)`: [`silu`].
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([-1.0, 2.0]);
    /// assert_eq!(jax::nn::swish(&x).to_vec(), jax::nn::silu(&x).to_vec());
    /// ```
    swish => core::silu;
    /// `scale * elu(x, alpha)` with the constants of Klambauer et al.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jax::nn::selu(Array::<f32, 1>::from([1.0])).to_vec(), [1.050701]);
    /// ```
    selu => core::selu;
    /// `x` clipped to `[-1, 1]`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::hard_tanh(Array::<f32, 3>::from([-3.0, 0.5, 2.0]));
    /// assert_eq!(y.to_vec(), [-1.0, 0.5, 1.0]);
    /// ```
    hard_tanh => core::hard_tanh;
}

/// The Gaussian error linear unit: with `approximate`, JAX's tanh form
/// `x/2 (1 + tanh(√(2/π) (x + 0.044715 x³)))`; otherwise the exact
/// `x/2 erfc(-x/√2)`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2>::from([0.0, 3.0]);
/// assert_eq!(jax::nn::gelu(&x, false).to_vec()[0], 0.0);
/// assert!((jax::nn::gelu(&x, true).to_vec()[1] - 2.9964).abs() < 1e-4);
/// ```
#[track_caller]
pub fn gelu<A: AsArray>(x: A, approximate: bool) -> A::Array
where
    E<A>: Float + Numeric,
{
    let statics = format!("approximate={approximate}");
    eager_unary("gelu", &statics, &x, &|t, x| core::gelu(t, x, approximate))
}

/// The exponential linear unit: `x` above 0, `alpha (e^x - 1)` below.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::nn::elu(Array::<f32, 2>::from([2.0, 0.0]), 1.0);
/// assert_eq!(y.to_vec(), [2.0, 0.0]);
/// ```
#[track_caller]
pub fn elu<A: AsArray>(x: A, alpha: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let statics = format!("alpha={}", alpha.to_bits());
    eager_unary("elu", &statics, &x, &|t, x| {
        let alpha = number(t, alpha);
        core::elu(t, x, alpha)
    })
}

/// `x` where `x >= 0`, else `negative_slope * x` (JAX's default slope is 0.01).
///
/// ```
/// use jax::prelude::*;
/// let y = jax::nn::leaky_relu(Array::<f32, 2>::from([2.0, -1.0]), 0.5);
/// assert_eq!(y.to_vec(), [2.0, -0.5]);
/// ```
#[track_caller]
pub fn leaky_relu<A: AsArray>(x: A, negative_slope: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let statics = format!("slope={}", negative_slope.to_bits());
    eager_unary("leaky_relu", &statics, &x, &|t, x| {
        let slope = number(t, negative_slope);
        core::leaky_relu(t, x, slope)
    })
}

/// The continuously differentiable ELU: `max(x, 0) + alpha expm1(min(x, 0) / alpha)`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::nn::celu(Array::<f32, 2>::from([2.0, 0.0]), 1.0);
/// assert_eq!(y.to_vec(), [2.0, 0.0]);
/// ```
#[track_caller]
pub fn celu<A: AsArray>(x: A, alpha: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let statics = format!("alpha={}", alpha.to_bits());
    eager_unary("celu", &statics, &x, &|t, x| {
        let alpha = number(t, alpha);
        core::celu(t, x, alpha)
    })
}

/// The gated linear unit: `x` split in two halves along `axis`, the first
/// times the sigmoid of the second. The caller names the result type (the
/// axis halved), which is checked.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 1, 4>::from([[1.0, 2.0, 0.0, 0.0]]);
/// let y: Array<f32, 1, 2> = jax::nn::glu(&x, -1);
/// assert_eq!(y.to_vec(), [0.5, 1.0]);
/// ```
#[track_caller]
pub fn glu<A: AsArray, Out: ArrayType<Elem = E<A>>>(x: A, axis: isize) -> Out
where
    E<A>: Float + Numeric,
{
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let ax = shape::normalize_axis("glu", axis, rank);
    let x = Input::of(&x);
    let r = eager::call(|_| {
        let f = |t: &mut Trace, ins: Vec<Atom>| Ok(vec![core::glu(t, ins[0].clone(), ax)?]);
        let statics = format!("axis={ax}");
        Ok(eager::unit::run("glu", &statics, &[x], eager::unit::Blocks::Whole, &f)?.remove(0))
    });
    eager::typed("glu", r)
}

/// `jax.nn.logsumexp(x, axis, keepdims)` is `jax.scipy.special.logsumexp`,
/// as in JAX.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 2>::from([[0.0, 0.0], [1.0, 1.0]]);
/// let y: Array<f32, 2> = jax::nn::logsumexp(&x, 1, false);
/// assert_eq!(y.to_vec(), [2f32.ln(), 1.0 + 2f32.ln()]);
/// ```
pub use crate::scipy::special::logsumexp;

/// One-hot encoding: `labels` gains a last axis of `num_classes`, 1 where
/// the axis index equals the label and 0 elsewhere (all zeros for a label
/// out of range). The element type is the result's (`f32` in JAX by
/// default), named by the caller with the shape, which is checked.
///
/// ```
/// use jax::prelude::*;
/// let y: Array<f32, 2, 3> = jax::nn::one_hot(Array::<i32, 2>::from([2, 0]), 3);
/// assert_eq!(y.to_vec(), [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
/// ```
#[track_caller]
pub fn one_hot<A: AsArray, Out: ArrayType>(labels: A, num_classes: usize) -> Out {
    let dtype = <Out::Elem as Element>::DTYPE;
    let x = Input::of(&labels);
    let r = eager::call(|_| {
        let f = |t: &mut Trace, ins: Vec<Atom>| {
            Ok(vec![core::one_hot(t, ins[0].clone(), num_classes, dtype)?])
        };
        let statics = format!("n={num_classes} dtype={dtype:?}");
        Ok(eager::unit::run("one_hot", &statics, &[x], eager::unit::Blocks::Whole, &f)?.remove(0))
    });
    eager::typed("one_hot", r)
}

/// `(x - mean) * rsqrt(var + epsilon)` along `axis`, with JAX's "fast"
/// variance `mean(x²) - mean(x)²` clipped at 0.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::nn::standardize(Array::<f32, 2>::from([1.0, 3.0]), -1, 0.0);
/// assert_eq!(y.to_vec(), [-1.0, 1.0]);
/// ```
#[track_caller]
pub fn standardize<A: AsArray>(x: A, axis: isize, epsilon: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let rank = <A::Array as ArrayType>::SHAPE.len();
    let ax = shape::normalize_axis("standardize", axis, rank);
    let x = Input::of(&x);
    let r = eager::call(|_| {
        let statics = format!("eps={:?}", epsilon.to_bits());
        eager::unit::along_axis("standardize", &statics, x, ax, &|t, x, axis| {
            let eps = jax_core::jnp::weak_literal(t, jax_core::ir::Scalar::Float(epsilon));
            jax_core::jnp::standardize(t, x, vec![axis], eps)
        })
    });
    eager::typed("standardize", r)
}

/// The window, strides and padding of a pooling layer over `(batch,
/// spatial.., features)` inputs (or `(spatial.., features)`), as flax's
/// Max pooling (flax's `nn.max_pool`): the maximum of each window of
/// `window_shape` over the spatial axes of `(batch, spatial.., features)`
/// inputs, windows moved by `strides` (`None`: 1), padded with `-inf` as
/// `padding` says (`"VALID"`, `"SAME"`, or `(low, high)` pairs per spatial
/// axis). The result's shape is checked against `Out`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 1, 2, 4, 1>::from([[[[1.0], [5.0], [2.0], [0.0]], [[3.0], [4.0], [8.0], [6.0]]]]);
/// let y: Array<f32, 1, 1, 2, 1> = jax::nn::max_pool(&x, &[2, 2], Some(&[2, 2]), "VALID");
/// assert_eq!(y.to_vec(), [5.0, 8.0]);
/// ```
#[track_caller]
pub fn max_pool<A: AsArray, Out: ArrayType<Elem = E<A>>>(
    x: A,
    window_shape: &[usize],
    strides: Option<&[usize]>,
    padding: impl Into<crate::lax::Padding>,
) -> Out
where
    E<A>: crate::__rt::identity::Extremes + crate::ops::Arith,
{
    let padding = padding.into();
    let r = crate::eager::call(|l| {
        jax_core::nn::pool(
            l,
            crate::eager::arg(x),
            window_shape,
            strides,
            padding,
            true,
        )
    });
    crate::eager::typed("max_pool", r)
}

/// Average pooling (flax's `nn.avg_pool`, `count_include_pad=True`): each
/// window's sum over the spatial axes divided by the window's size, padding
/// counted as zeros. Arguments as [`max_pool`].
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 1, 2, 4, 1>::from([[[[1.0], [5.0], [2.0], [0.0]], [[3.0], [4.0], [8.0], [6.0]]]]);
/// let y: Array<f32, 1, 1, 2, 1> = jax::nn::avg_pool(&x, &[2, 2], Some(&[2, 2]), "VALID");
/// assert_eq!(y.to_vec(), [3.25, 4.0]);
/// ```
#[track_caller]
pub fn avg_pool<A: AsArray, Out: ArrayType<Elem = E<A>>>(
    x: A,
    window_shape: &[usize],
    strides: Option<&[usize]>,
    padding: impl Into<crate::lax::Padding>,
) -> Out
where
    E<A>: Float + Numeric,
{
    let padding = padding.into();
    let r = crate::eager::call(|l| {
        jax_core::nn::pool(
            l,
            crate::eager::arg(x),
            window_shape,
            strides,
            padding,
            false,
        )
    });
    crate::eager::typed("avg_pool", r)
}
