//! `jnp.linalg.norm`: vector norms (`ord` 2, 1, ∞, −∞, 0, p) over one
//! axis, matrix norms (Frobenius, nuclear, 1, −1, 2, −2, ∞, −∞) over two,
//! and the 2-norm of all elements, as `jax.numpy.linalg.norm`: the one
//! text (`jax_core::linalg::norm`, which jitted bodies trace) run eagerly;
//! the spectral norms (2, −2, nuclear) through the SVD kernel.

use crate::array::{ArrayType, AsArray};
use crate::eager;

use super::eigh::ElemOf;
use super::{LinalgElement, LinalgFloat};

/// `jnp.linalg.norm(x)`: the 2-norm of all of `x`'s elements (the
/// Frobenius norm of a matrix), `sqrt(sum(|x|²))`, real for complex `x`.
///
/// ```
/// use jax::prelude::*;
/// let x = Array::<f32, 2, 2>::from([[3.0, 0.0], [0.0, 4.0]]);
/// assert_eq!(jnp::linalg::norm(&x).item(), 5.0);
/// let z = Array::<Complex<f64>, 2>::from([Complex::new(3.0, 4.0), Complex::new(0.0, 0.0)]);
/// assert_eq!(jnp::linalg::norm(&z).item(), 5.0);
/// ```
pub fn norm<A>(x: A) -> crate::Array<<ElemOf<A> as LinalgElement>::Real>
where
    A: AsArray,
    ElemOf<A>: LinalgElement,
{
    let r = eager::call(|l| jax_core::linalg::norm(l, eager::arg(x), Default::default()));
    eager::typed("norm", r)
}

/// `jnp.linalg.norm`'s `ord`. (Named `NormOrd`, not `Ord`, so that
/// importing it does not shadow the standard `Ord` trait.)
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum NormOrd {
    /// `ord=None`: the 2-norm of a vector, the Frobenius norm of a matrix
    /// (and, with `NormAxis::All`, the 2-norm of all elements of any rank).
    #[default]
    Default,
    /// `'fro'`: the Frobenius norm (matrices only).
    Fro,
    /// `'nuc'`: the nuclear norm, the sum of the singular values
    /// (matrices only).
    Nuc,
    /// `inf`: the largest `|x|` of a vector; the largest absolute row sum
    /// of a matrix.
    Inf,
    /// `-inf`: the smallest `|x|`; the smallest absolute row sum.
    NegInf,
    /// A number `p`: `(Σ|x|ᵖ)^(1/p)` of a vector (`0` counts the nonzero
    /// elements); for a matrix only `1`, `-1` (extreme absolute column
    /// sums), `2`, `-2` (extreme singular values) are norms.
    P(f64),
}

/// `jnp.linalg.norm`'s `axis`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NormAxis {
    /// `axis=None`: every axis (a vector norm of a 1-D input, a matrix
    /// norm of a 2-D one; other ranks take only `NormOrd::Default`).
    #[default]
    All,
    /// One axis (negative counts from the end): a vector norm along it.
    Vector(isize),
    /// Two axes, rows then columns: a matrix norm over them.
    Matrix(isize, isize),
}

/// `jnp.linalg.norm`'s keyword arguments, for [`norm_with`]: `ord`,
/// `axis` and `keepdims`. Rust has no keyword arguments, so the `_with`
/// form takes this struct; `NormOptions::default()` is JAX's defaults. In
/// `#[jax::jit]` write it as a literal (`NormOptions { ord: NormOrd::Nuc,
/// ..Default::default() }`): the options are read when the function compiles.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NormOptions {
    /// Which norm.
    pub ord: NormOrd,
    /// Over which axes.
    pub axis: NormAxis,
    /// Whether the reduced axes stay, with size 1.
    pub keepdims: bool,
}

impl From<NormOptions> for jax_core::linalg::NormOptions {
    fn from(o: NormOptions) -> Self {
        use jax_core::linalg::{NormAxis as A, NormOrd as O};
        jax_core::linalg::NormOptions {
            ord: match o.ord {
                NormOrd::Default => O::Default,
                NormOrd::Fro => O::Fro,
                NormOrd::Nuc => O::Nuc,
                NormOrd::Inf => O::P(f64::INFINITY),
                NormOrd::NegInf => O::P(f64::NEG_INFINITY),
                NormOrd::P(p) => O::P(p),
            },
            axis: match o.axis {
                NormAxis::All => A::All,
                NormAxis::Vector(a) => A::Vector(a as i128),
                NormAxis::Matrix(r, c) => A::Matrix(r as i128, c as i128),
            },
            keepdims: o.keepdims,
        }
    }
}

/// `jnp.linalg.norm(x, ord=.., axis=.., keepdims=..)`: a vector norm over
/// one axis, a matrix norm over two, as [`NormOptions`] says. The result
/// (the kept axes, or every axis with size 1 for the reduced ones under
/// `keepdims`) is the caller's annotated type, checked when the call runs.
///
/// ```
/// use jax::prelude::*;
/// use jax::jnp::linalg::{NormAxis, NormOptions, NormOrd};
/// let x = Array::<f64, 2, 2>::from([[1.0, -2.0], [3.0, 4.0]]);
/// // The largest absolute column sum.
/// let one: Array<f64> = jnp::linalg::norm_with(&x, NormOptions { ord: NormOrd::P(1.0), ..Default::default() });
/// assert_eq!(one.item(), 6.0);
/// // The 1-norm of each row.
/// let rows: Array<f64, 2> = jnp::linalg::norm_with(
///     &x,
///     NormOptions { ord: NormOrd::P(1.0), axis: NormAxis::Vector(1), keepdims: false },
/// );
/// assert_eq!(rows.to_vec(), vec![3.0, 7.0]);
/// ```
///
/// # Panics
/// With JAX's message for an order that is not a norm of the chosen kind
/// (`'nuc'` of a vector, `3` of a matrix) or bad axes: options are
/// programming choices, like an index (in `#[jax::jit]` they are compile
/// errors).
#[track_caller]
pub fn norm_with<Out, A>(x: A, opts: NormOptions) -> Out
where
    A: AsArray,
    ElemOf<A>: LinalgFloat,
    Out: ArrayType<Elem = ElemOf<A>>,
{
    let r = eager::call(|l| jax_core::linalg::norm(l, eager::arg(x), opts.into()));
    eager::typed("norm", r)
}
