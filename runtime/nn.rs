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

use crate::__rt::ops as o;
use crate::array::{ArrayType, AsArray};
use crate::eager;
use crate::element::{Element, Float};
use crate::ops::{map_same, Numeric};
use crate::shape;

pub use crate::jnp::{log_softmax, softmax};

use crate::array::ElemOf as E;

/// A Python float literal in the element type (JAX's weak scalars).
#[inline(always)]
pub(crate) fn lit<T: Element>(v: f64) -> T {
    v.cast::<T>()
}

/// `jnp.where(c, a, b)` of one element.
#[inline(always)]
fn pick<T>(c: bool, a: T, b: T) -> T {
    if c {
        a
    } else {
        b
    }
}

/// Scalar kernels, shared with `jax::scipy` and `jnp::logaddexp`.
pub(crate) mod scalar {
    use super::{lit, pick};
    use crate::__rt::ops as o;
    use crate::element::Float;
    use crate::ops::Numeric;

    /// `lax_other.logaddexp`: `max + log1p(exp(-|x - y|))`, or `x + y` where
    /// the difference is NaN (NaNs, or infinities of one sign).
    #[inline]
    pub(crate) fn logaddexp<T: Float + Numeric>(x: T, y: T) -> T {
        let amax = o::max(x, y);
        let delta = o::sub(x, y);
        if Float::is_nan(delta) {
            o::add(x, y)
        } else {
            o::add(amax, o::log1p(o::exp(o::neg(o::abs(delta)))))
        }
    }

    /// `lax_other.logaddexp2`: as [`logaddexp`] in base 2.
    #[inline]
    pub(crate) fn logaddexp2<T: Float + Numeric>(x: T, y: T) -> T {
        let amax = o::max(x, y);
        let delta = o::sub(x, y);
        if Float::is_nan(delta) {
            o::add(x, y)
        } else {
            let inv_ln2 = lit::<T>(1.0 / std::f64::consts::LN_2);
            o::add(
                amax,
                o::mul(inv_ln2, o::log1p(o::exp2(o::neg(o::abs(delta))))),
            )
        }
    }

    #[inline]
    pub(crate) fn softplus<T: Float + Numeric>(x: T) -> T {
        logaddexp(x, T::ZERO)
    }

    #[inline]
    pub(crate) fn elu<T: Float + Numeric>(x: T, alpha: T) -> T {
        let pos = x > T::ZERO;
        pick(pos, x, o::mul(alpha, o::expm1(pick(pos, T::ZERO, x))))
    }
}

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident => $f:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name<A: AsArray>(x: A) -> A::Array
        where
            E<A>: Float + Numeric,
        {
            map_same(x.as_array(), $f)
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
    relu => |x| o::max(x, E::<A>::ZERO);
    /// `min(max(x, 0), 6)`; derivative 0 at 0 and 6, as JAX's `custom_jvp`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::relu6(Array::<f32, 3>::from([-2.0, 3.0, 7.0]));
    /// assert_eq!(y.to_vec(), [0.0, 3.0, 6.0]);
    /// ```
    relu6 => |x| o::min(o::max(x, E::<A>::ZERO), lit(6.0));
    /// `1 / (1 + e^-x)` (`lax.logistic`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jax::nn::sigmoid(Array::<f32, 1>::from([0.0])).to_vec(), [0.5]);
    /// ```
    sigmoid => o::logistic;
    /// `log(1 + e^x)`, computed as `jnp.logaddexp(x, 0)` (stable for large `|x|`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::softplus(Array::<f32, 2>::from([0.0, 100.0]));
    /// assert_eq!(y.to_vec(), [2f32.ln(), 100.0]);
    /// ```
    softplus => scalar::softplus;
    /// `log(sigmoid(x))`, computed as `-softplus(-x)` (stable for large `|x|`).
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::log_sigmoid(Array::<f32, 2>::from([0.0, -100.0]));
    /// assert_eq!(y.to_vec(), [-(2f32.ln()), -100.0]);
    /// ```
    log_sigmoid => |x| o::neg(scalar::softplus(o::neg(x)));
    /// `x * sigmoid(x)` (also called swish).
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jax::nn::silu(Array::<f32, 2>::from([0.0, 1.0])).to_vec(), [0.0, 1.0 / (1.0 + (-1f32).exp())]);
    /// ```
    silu => |x| o::mul(x, o::logistic(x));
    /// `x * sigmoid(x)`: [`silu`].
    ///
    /// ```
    /// use jax::prelude::*;
    /// let x = Array::<f32, 2>::from([-1.0, 2.0]);
    /// assert_eq!(jax::nn::swish(&x).to_vec(), jax::nn::silu(&x).to_vec());
    /// ```
    swish => |x| o::mul(x, o::logistic(x));
    /// `scale * elu(x, alpha)` with the constants of Klambauer et al.
    ///
    /// ```
    /// use jax::prelude::*;
    /// assert_eq!(jax::nn::selu(Array::<f32, 1>::from([1.0])).to_vec(), [1.050701]);
    /// ```
    selu => |x| {
        let alpha = lit(1.673_263_242_354_377_2);
        o::mul(lit(1.050_700_987_355_480_5), scalar::elu(x, alpha))
    };
    /// `x` clipped to `[-1, 1]`.
    ///
    /// ```
    /// use jax::prelude::*;
    /// let y = jax::nn::hard_tanh(Array::<f32, 3>::from([-3.0, 0.5, 2.0]));
    /// assert_eq!(y.to_vec(), [-1.0, 0.5, 1.0]);
    /// ```
    hard_tanh => |x| pick(x > lit(1.0), lit(1.0), pick(x < lit(-1.0), lit(-1.0), x));
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
pub fn gelu<A: AsArray>(x: A, approximate: bool) -> A::Array
where
    E<A>: Float + Numeric,
{
    if approximate {
        let c = lit((2.0 / std::f64::consts::PI).sqrt());
        map_same(x.as_array(), |x| {
            let inner = o::add(x, o::mul(lit(0.044715), o::integer_pow(x, 3)));
            let cdf = o::mul(lit(0.5), o::add(lit(1.0), o::tanh(o::mul(c, inner))));
            o::mul(x, cdf)
        })
    } else {
        let sqrt_half = lit(0.5f64.sqrt());
        map_same(x.as_array(), |x| {
            o::mul(o::mul(lit(0.5), x), o::erfc(o::mul(o::neg(x), sqrt_half)))
        })
    }
}

/// The exponential linear unit: `x` above 0, `alpha (e^x - 1)` below.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::nn::elu(Array::<f32, 2>::from([2.0, 0.0]), 1.0);
/// assert_eq!(y.to_vec(), [2.0, 0.0]);
/// ```
pub fn elu<A: AsArray>(x: A, alpha: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let alpha = lit(alpha);
    map_same(x.as_array(), |x| scalar::elu(x, alpha))
}

/// `x` where `x >= 0`, else `negative_slope * x` (JAX's default slope is 0.01).
///
/// ```
/// use jax::prelude::*;
/// let y = jax::nn::leaky_relu(Array::<f32, 2>::from([2.0, -1.0]), 0.5);
/// assert_eq!(y.to_vec(), [2.0, -0.5]);
/// ```
pub fn leaky_relu<A: AsArray>(x: A, negative_slope: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let s = lit(negative_slope);
    map_same(x.as_array(), |x| pick(x >= E::<A>::ZERO, x, o::mul(s, x)))
}

/// The continuously differentiable ELU: `max(x, 0) + alpha expm1(min(x, 0) / alpha)`.
///
/// ```
/// use jax::prelude::*;
/// let y = jax::nn::celu(Array::<f32, 2>::from([2.0, 0.0]), 1.0);
/// assert_eq!(y.to_vec(), [2.0, 0.0]);
/// ```
pub fn celu<A: AsArray>(x: A, alpha: f64) -> A::Array
where
    E<A>: Float + Numeric,
{
    let alpha = lit(alpha);
    map_same(x.as_array(), |x| {
        let zero = E::<A>::ZERO;
        o::add(
            o::max(x, zero),
            o::mul(alpha, o::expm1(o::div(o::min(x, zero), alpha))),
        )
    })
}

/// The lanes of `x` along `axis`: `(outer, n, inner)` and the axis.
fn lanes<A: AsArray>(op: &str, axis: isize) -> (usize, usize, usize, usize) {
    let shape = <A::Array as ArrayType>::SHAPE;
    let ax = shape::normalize_axis(op, axis, shape.len());
    let outer = shape[..ax].iter().product();
    let inner = shape[ax + 1..].iter().product();
    (outer, shape[ax], inner, ax)
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
    let (outer, n, inner, ax) = lanes::<A>("glu", axis);
    assert!(n % 2 == 0, "glu: axis size must be divisible by 2, got {n}");
    let half = n / 2;
    let mut out_shape = <A::Array as ArrayType>::SHAPE.to_vec();
    out_shape[ax] = half;
    shape::check_result::<Out>("glu", <E<A> as Element>::DTYPE, &out_shape);
    let data = x.as_array().data();
    let mut out = Vec::with_capacity(outer * half * inner);
    for a in 0..outer {
        for k in 0..half {
            for i in 0..inner {
                let x1 = data[(a * n + k) * inner + i];
                let x2 = data[(a * n + k + half) * inner + i];
                out.push(o::mul(x1, o::logistic(x2)));
            }
        }
    }
    Out::from_data(out)
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
    let mut out_shape = <A::Array as ArrayType>::SHAPE.to_vec();
    out_shape.push(num_classes);
    shape::check_result::<Out>("one_hot", <Out::Elem as Element>::DTYPE, &out_shape);
    let mut out = Vec::with_capacity(out_shape.iter().product());
    for &l in labels.as_array().data() {
        // The comparison is in the labels' type, as JAX's `x == iota`.
        for c in 0..num_classes {
            let hit = l == (c as f64).cast::<E<A>>();
            out.push(hit.cast::<Out::Elem>());
        }
    }
    Out::from_data(out)
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
    let x = eager::unit::Input::of(&x);
    let r = eager::call(|_| {
        let statics = format!("eps={:?}", epsilon.to_bits());
        eager::unit::along_axis("standardize", &statics, x, ax, &|t, x, axis| {
            let eps = jax_core::jnp::weak_literal(t, jax_core::ir::Scalar::Float(epsilon));
            jax_core::jnp::standardize(t, x, axis, eps)
        })
    });
    eager::typed("standardize", r)
}

/// The window, strides and padding of a pooling layer over `(batch,
/// spatial.., features)` inputs (or `(spatial.., features)`), as flax's
/// A pooling layer's window over `shape` (see [`jax_dtypes::conv::pool_window`]).
#[track_caller]
fn pool_spec(
    shape: &[usize],
    window_shape: &[usize],
    strides: Option<&[usize]>,
    padding: crate::lax::Padding,
) -> Result<crate::lax::WindowSpec, String> {
    let (window, strides, padding) =
        jax_dtypes::conv::pool_window(shape, window_shape, strides, padding)?;
    crate::lax::WindowSpec::new(shape, &window, Some(&strides), &padding, None, None)
}

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
    let spec = pool_spec(
        <A::Array as ArrayType>::SHAPE,
        window_shape,
        strides,
        padding.into(),
    );
    crate::lax::reduce_window_eager(
        "max_pool",
        x,
        <E<A> as crate::__rt::identity::Extremes>::LOWEST,
        spec,
        <E<A> as crate::ops::Arith>::max,
    )
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
    let spec = pool_spec(
        <A::Array as ArrayType>::SHAPE,
        window_shape,
        strides,
        padding.into(),
    );
    let count: usize = window_shape.iter().product();
    let sums: Out = crate::lax::reduce_window_eager(
        "avg_pool",
        x,
        <E<A> as Element>::ZERO,
        spec,
        <E<A> as crate::ops::Arith>::add,
    );
    let n = <E<A> as Element>::from_f64(count as f64);
    Out::from_data(
        sums.data()
            .iter()
            .map(|&s| <E<A> as Numeric>::div(s, n))
            .collect(),
    )
}
