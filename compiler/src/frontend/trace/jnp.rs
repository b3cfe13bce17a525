//! JAX's NumPy layer as the tracer calls it: `jax_core::jnp` (promotion,
//! broadcasting, reductions, `softmax`, `logsumexp`, ..., written once over
//! `jax_core::lax::Lax`) traced at the user's expression.

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::ir::builder::{Builder, Result};
use crate::ir::{Atom, Dim, Scalar};
use crate::prims::Prim;
use jax_core::jnp as core;
pub(crate) use jax_core::jnp::Reduction;
use jax_core::lax::{Lax, Trace};

/// A Rust literal or static number: weakly typed, like a Python scalar.
pub(crate) fn weak_literal(b: &Builder, v: Scalar) -> Atom {
    let (value, aval) = core::weak_scalar(v, b.x64);
    crate::ir::builder::literal(value, aval)
}

/// `x` as `dtype` (and weak flag): a literal is retyped, a variable converted.
pub(crate) fn convert(
    b: &mut Builder,
    x: Atom,
    dtype: DType,
    weak: bool,
    span: Span,
) -> Result<Atom> {
    core::convert(&mut Trace::new(b, span), x, dtype, weak)
}

/// JAX's `promote_dtypes`: every operand converted to the result type.
pub(crate) fn promote(b: &mut Builder, xs: Vec<Atom>, span: Span) -> Result<Vec<Atom>> {
    core::promote(&mut Trace::new(b, span), xs)
}

/// A binary `jnp` operation: promote, broadcast ranks, bind.
pub(crate) fn binary(b: &mut Builder, prim: Prim, x: Atom, y: Atom, span: Span) -> Result<Atom> {
    core::binary(&mut Trace::new(b, span), prim, x, y)
}

/// A unary operation on numbers.
pub(crate) fn unary(b: &mut Builder, prim: Prim, x: Atom, span: Span) -> Result<Atom> {
    Trace::new(b, span).unary(prim, x)
}

/// A unary operation defined on floats: integers and bool convert first
/// (`jnp.sin(int32)` is `float32`).
pub(crate) fn unary_inexact(b: &mut Builder, prim: Prim, x: Atom, span: Span) -> Result<Atom> {
    core::unary_inexact(&mut Trace::new(b, span), prim, x)
}

/// `x` converted to its inexact type (unchanged if already float).
pub(crate) fn to_float(b: &mut Builder, x: Atom, span: Span) -> Result<Atom> {
    core::to_float(&mut Trace::new(b, span), x)
}

/// Normalizes `axis` (negative counts from the end) or reports it.
pub(crate) fn axis(b: &Builder, x: &Atom, axis: i128, span: Span) -> Result<usize> {
    core::normalize_axis(axis, b.aval(x).rank()).map_err(|msg| syn::Error::new(span, msg))
}

/// `jnp.sum`/`prod`/`max`/`min`/`any`/`all` over `axes` (all when `None`).
pub(crate) fn reduce(
    b: &mut Builder,
    kind: Reduction,
    x: Atom,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    span: Span,
) -> Result<Atom> {
    core::reduce(&mut Trace::new(b, span), kind, x, axes, keepdims)
}

/// `jnp.mean`: the sum divided by the element count, in the inexact type.
pub(crate) fn mean(
    b: &mut Builder,
    x: Atom,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    span: Span,
) -> Result<Atom> {
    core::mean(&mut Trace::new(b, span), x, axes, keepdims)
}

/// `jnp.matmul`/`dot` for 1-D and 2-D operands (and batched 3-D matmul).
pub(crate) fn matmul(b: &mut Builder, x: Atom, y: Atom, span: Span) -> Result<Atom> {
    core::matmul(&mut Trace::new(b, span), x, y)
}

/// `jnp.where(c, x, y)`: `select_n(c, y, x)` after promotion and broadcasting.
pub(crate) fn where_(b: &mut Builder, c: Atom, x: Atom, y: Atom, span: Span) -> Result<Atom> {
    core::where_(&mut Trace::new(b, span), c, x, y)
}

/// `x ** y`: `integer_pow` for a static integer exponent, else `pow`.
pub(crate) fn power(b: &mut Builder, x: Atom, y: Atom, span: Span) -> Result<Atom> {
    core::power(&mut Trace::new(b, span), x, y)
}

/// `jnp.clip(x, lo, hi)`: `min(hi, max(lo, x))`, as JAX writes it.
pub(crate) fn clip(b: &mut Builder, x: Atom, lo: Atom, hi: Atom, span: Span) -> Result<Atom> {
    core::clip(&mut Trace::new(b, span), x, lo, hi)
}

/// Permutes axes.
pub(crate) fn transpose(b: &mut Builder, x: Atom, perm: Vec<usize>, span: Span) -> Result<Atom> {
    Trace::new(b, span).transpose(x, perm)
}

/// A new shape with the same elements in row-major order.
pub(crate) fn reshape(b: &mut Builder, x: Atom, new_sizes: Vec<Dim>, span: Span) -> Result<Atom> {
    core::reshape(&mut Trace::new(b, span), x, new_sizes)
}

/// `jnp.broadcast_to`: NumPy broadcasting to `shape`.
pub(crate) fn broadcast_to(b: &mut Builder, x: Atom, shape: Vec<Dim>, span: Span) -> Result<Atom> {
    core::broadcast_to(&mut Trace::new(b, span), x, shape)
}

/// `jnp.expand_dims(x, axis)`: a size-1 axis inserted at `axis`.
pub(crate) fn expand_dims(b: &mut Builder, x: Atom, axis: i128, span: Span) -> Result<Atom> {
    core::expand_dims(&mut Trace::new(b, span), x, axis)
}

/// `jax.nn.softmax(x, axis)` and `jax.nn.log_softmax(x, axis)`, with the
/// primitives JAX emits.
pub(crate) fn softmax(
    b: &mut Builder,
    x: Atom,
    axis: usize,
    log: bool,
    span: Span,
) -> Result<Atom> {
    core::softmax(&mut Trace::new(b, span), x, axis, log)
}

/// `jax.nn.logsumexp(x, axis, keepdims)`, with the primitives JAX emits.
pub(crate) fn logsumexp(
    b: &mut Builder,
    x: Atom,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    span: Span,
) -> Result<Atom> {
    core::logsumexp(&mut Trace::new(b, span), x, axes, keepdims)
}

/// `jnp.concatenate` (or `jnp.stack`, which first adds the axis to each part).
pub(crate) fn concatenate(
    b: &mut Builder,
    parts: Vec<Atom>,
    axis: i128,
    stack: bool,
    span: Span,
) -> Result<Atom> {
    core::concatenate(&mut Trace::new(b, span), parts, axis, stack)
}

/// `a` with a leading axis of 1 (`broadcast_in_dim`).
pub(crate) fn leading_axis(b: &mut Builder, a: Atom, span: Span) -> Result<Atom> {
    let inner = b.aval(&a).shape;
    let mut shape = vec![Dim::Lit(1)];
    shape.extend(inner.iter().cloned());
    Trace::new(b, span).broadcast_in_dim(a, shape, (1..=inner.len()).collect())
}

/// Arrays of one shape stacked along a new first axis, as `jnp.array` and
/// `jnp.stack` bind it: each broadcast to a leading axis of 1, then one
/// `concatenate`.
pub(crate) fn stack(b: &mut Builder, items: Vec<Atom>, span: Span) -> Result<Atom> {
    let parts = items
        .into_iter()
        .map(|a| leading_axis(b, a, span))
        .collect::<Result<Vec<_>>>()?;
    Trace::new(b, span).concatenate(parts, 0)
}
