//! JAX's NumPy layer over primitives: implicit promotion, rank broadcasting,
//! and compositions (mean, softmax, logsumexp, matmul) written as the
//! primitives JAX itself emits, so printed jaxprs match `jax.make_jaxpr`.

use jax_dtypes::{result_type_explicit, sum_dtype, to_inexact, DType, Kind};
use proc_macro2::Span;

use crate::ir::builder::{literal, Builder, Result};
use crate::ir::cast_scalar;
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, Params, Prim};

/// A Rust literal or static number: weakly typed, like a Python scalar.
pub(crate) fn weak_literal(b: &Builder, v: Scalar) -> Atom {
    let (dtype, weak) = match v {
        Scalar::Bool(_) => (DType::Bool, false),
        Scalar::Int(_) => (jax_dtypes::default_dtype(Kind::Int, b.x64), true),
        Scalar::Float(_) => (jax_dtypes::default_dtype(Kind::Float, b.x64), true),
        Scalar::Complex(..) => (jax_dtypes::default_dtype(Kind::Complex, b.x64), true),
    };
    literal(cast_scalar(v, dtype), Aval::scalar(dtype, weak))
}

/// `x` as `dtype` (and weak flag): a literal is retyped, a variable converted.
pub(crate) fn convert(
    b: &mut Builder,
    x: Atom,
    dtype: DType,
    weak: bool,
    span: Span,
) -> Result<Atom> {
    let aval = b.aval(&x);
    if aval.dtype == dtype && aval.weak == weak {
        return Ok(x);
    }
    match x {
        Atom::Lit(l) => Ok(literal(
            cast_scalar(l.value, dtype),
            Aval::scalar(dtype, weak),
        )),
        x => b.bind1(
            &prims::CONVERT_ELEMENT_TYPE,
            Params::Convert {
                new_dtype: dtype,
                weak,
            },
            vec![x],
            span,
        ),
    }
}

/// JAX's `promote_dtypes`: every operand converted to the result type.
pub(crate) fn promote(b: &mut Builder, xs: Vec<Atom>, span: Span) -> Result<Vec<Atom>> {
    let avals: Vec<(DType, bool)> = xs
        .iter()
        .map(|x| {
            let a = b.aval(x);
            (a.dtype, a.weak)
        })
        .collect();
    let (dtype, weak) = result_type_explicit(&avals, b.x64);
    xs.into_iter()
        .map(|x| convert(b, x, dtype, weak, span))
        .collect()
}

/// Lifts lower-rank array operands to the highest rank with leading 1s, as
/// NumPy broadcasting does; scalars stay scalars.
fn broadcast_ranks(b: &mut Builder, xs: Vec<Atom>, span: Span) -> Result<Vec<Atom>> {
    let rank = xs.iter().map(|x| b.aval(x).rank()).max().unwrap_or(0);
    xs.into_iter()
        .map(|x| {
            let a = b.aval(&x);
            if a.rank() == 0 || a.rank() == rank {
                return Ok(x);
            }
            let pad = rank - a.rank();
            let mut shape = vec![Dim::Lit(1); pad];
            shape.extend(a.shape.iter().cloned());
            let dims = (pad..rank).collect();
            b.bind1(
                &prims::BROADCAST_IN_DIM,
                Params::BroadcastInDim {
                    shape,
                    dims,
                    np_ints: 0,
                },
                vec![x],
                span,
            )
        })
        .collect()
}

/// A binary `jnp` operation: promote, broadcast ranks, bind.
pub(crate) fn binary(b: &mut Builder, prim: Prim, x: Atom, y: Atom, span: Span) -> Result<Atom> {
    check_broadcast(b, &x, &y, span)?;
    let xs = promote(b, vec![x, y], span)?;
    let xs = broadcast_ranks(b, xs, span)?;
    b.bind1(prim, Params::None, xs, span)
}

/// NumPy's broadcasting error, with both types, before anything is emitted.
fn check_broadcast(b: &mut Builder, x: &Atom, y: &Atom, span: Span) -> Result<()> {
    let (ax, ay) = (b.aval(x), b.aval(y));
    crate::ir::shapes::broadcast(&ax, &ay, &mut b.constraints)
        .map(|_| ())
        .map_err(|msg| crate::ir::builder::expression_error(span, msg))
}

/// A unary operation on numbers.
pub(crate) fn unary(b: &mut Builder, prim: Prim, x: Atom, span: Span) -> Result<Atom> {
    b.bind1(prim, Params::None, vec![x], span)
}

/// A unary operation defined on floats: integers and bool convert first
/// (`jnp.sin(int32)` is `float32`).
pub(crate) fn unary_inexact(b: &mut Builder, prim: Prim, x: Atom, span: Span) -> Result<Atom> {
    let x = to_float(b, x, span)?;
    b.bind1(prim, Params::None, vec![x], span)
}

/// `x` converted to its inexact type (unchanged if already float).
pub(crate) fn to_float(b: &mut Builder, x: Atom, span: Span) -> Result<Atom> {
    let a = b.aval(&x);
    let target = if a.weak && !a.dtype.is_inexact() {
        jax_dtypes::default_dtype(Kind::Float, b.x64)
    } else {
        to_inexact(a.dtype)
    };
    convert(b, x, target, a.weak, span)
}

/// Normalizes `axis` (negative counts from the end) or reports it.
pub(crate) fn axis(b: &Builder, x: &Atom, axis: i128, span: Span) -> Result<usize> {
    let rank = b.aval(x).rank() as i128;
    if axis < -rank || axis >= rank {
        return Err(syn::Error::new(
            span,
            format!("axis {axis} is out of bounds for array of dimension {rank}"),
        ));
    }
    Ok(axis.rem_euclid(rank.max(1)) as usize)
}

/// Re-inserts reduced axes as size 1 (`keepdims=True`).
fn keep_dims(
    b: &mut Builder,
    r: Atom,
    in_shape: &[Dim],
    axes: &[usize],
    span: Span,
) -> Result<Atom> {
    let shape: Vec<Dim> = in_shape
        .iter()
        .enumerate()
        .map(|(i, d)| {
            if axes.contains(&i) {
                Dim::Lit(1)
            } else {
                d.clone()
            }
        })
        .collect();
    let dims = (0..in_shape.len()).filter(|i| !axes.contains(i)).collect();
    b.bind1(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape,
            dims,
            np_ints: 0,
        },
        vec![r],
        span,
    )
}

/// Which reduction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reduction {
    Sum,
    Prod,
    Max,
    Min,
    Any,
    All,
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
    let a = b.aval(&x);
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let (prim, x) = match kind {
        Reduction::Sum | Reduction::Prod => {
            let d = sum_dtype(a.dtype, b.x64);
            let x = convert(b, x, d, a.weak, span)?;
            let p: Prim = if kind == Reduction::Sum {
                &prims::REDUCE_SUM
            } else {
                &prims::REDUCE_PROD
            };
            (p, x)
        }
        Reduction::Max | Reduction::Min
            if axes.iter().any(|&k| a.shape.get(k) == Some(&Dim::Lit(0))) =>
        {
            // JAX's ValueError: max and min have no identity, and the shape
            // is static, so the error is found when the function compiles.
            let op = if kind == Reduction::Max { "max" } else { "min" };
            return Err(syn::Error::new(
                span,
                format!("zero-size array to reduction operation {op} which has no identity"),
            ));
        }
        Reduction::Max => (&prims::REDUCE_MAX as Prim, x),
        Reduction::Min => (&prims::REDUCE_MIN as Prim, x),
        Reduction::Any | Reduction::All => {
            let x = convert(b, x, DType::Bool, false, span)?;
            let p: Prim = if kind == Reduction::Any {
                &prims::REDUCE_OR
            } else {
                &prims::REDUCE_AND
            };
            (p, x)
        }
    };
    let r = b.bind1(prim, Params::Axes(axes.clone(), 0), vec![x], span)?;
    if keepdims {
        keep_dims(b, r, &a.shape, &axes, span)
    } else {
        Ok(r)
    }
}

/// `jnp.mean`: the sum divided by the element count, in the inexact type.
pub(crate) fn mean(
    b: &mut Builder,
    x: Atom,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    span: Span,
) -> Result<Atom> {
    let a = b.aval(&x);
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let mut count = 1usize;
    // Sizes only rustc knows (`Array<f32, B, 4>`): the count is their
    // product, a `static_value` as `B as f32` is.
    let mut symbols = Vec::new();
    for &ax in &axes {
        match a.shape[ax] {
            Dim::Lit(n) => count *= n,
            Dim::Sym(ref s) => symbols.push(format!("({s})")),
        }
    }
    let x = to_float(b, x, span)?;
    let s = reduce(b, Reduction::Sum, x, Some(axes), keepdims, span)?;
    let dtype = b.aval(&s).dtype;
    let n = if symbols.is_empty() {
        literal(Scalar::Float(count as f64), Aval::scalar(dtype, true))
    } else {
        if !matches!(dtype, DType::F32 | DType::F64) {
            return Err(syn::Error::new(
                span,
                format!(
                    "mean of {} over the symbolic size {} is not supported: convert to f32 first (`.astype::<f32>()`)",
                    dtype.name(),
                    symbols.join(" * ")
                ),
            ));
        }
        let params = Params::Symbol {
            expr: format!("(({count} * {}) as f64)", symbols.join(" * ")),
            dtype,
        };
        b.bind1(&prims::STATIC_VALUE, params, vec![], span)?
    };
    b.bind1(&prims::DIV, Params::None, vec![s, n], span)
}

/// `jnp.matmul`/`dot` for 1-D and 2-D operands (and batched 3-D matmul).
pub(crate) fn matmul(b: &mut Builder, x: Atom, y: Atom, span: Span) -> Result<Atom> {
    let xs = promote(b, vec![x, y], span)?;
    let (x, y) = (xs[0].clone(), xs[1].clone());
    let (ra, rb) = (b.aval(&x).rank(), b.aval(&y).rank());
    let preferred = b.aval(&x).dtype;
    let (lc, rc, lb, rbatch) = match (ra, rb) {
        (1, 1) => (vec![0], vec![0], vec![], vec![]),
        (2, 1) => (vec![1], vec![0], vec![], vec![]),
        (1, 2) => (vec![0], vec![0], vec![], vec![]),
        (2, 2) => (vec![1], vec![0], vec![], vec![]),
        (3, 3) => (vec![2], vec![1], vec![0], vec![0]),
        _ => {
            return Err(syn::Error::new(
                span,
                format!(
                    "matmul of {} and {} is not supported: use 1-D, 2-D or batched 3-D operands",
                    b.aval(&x),
                    b.aval(&y)
                ),
            ))
        }
    };
    b.bind1(
        &prims::DOT_GENERAL,
        Params::DotGeneral {
            lhs_contract: lc,
            rhs_contract: rc,
            lhs_batch: lb,
            rhs_batch: rbatch,
            preferred,
        },
        vec![x, y],
        span,
    )
}

/// `jnp.where(c, x, y)`: `select_n(c, y, x)` after promotion and broadcasting.
pub(crate) fn where_(b: &mut Builder, c: Atom, x: Atom, y: Atom, span: Span) -> Result<Atom> {
    let c = convert(b, c, DType::Bool, false, span)?;
    let xy = promote(b, vec![x, y], span)?;
    let (x, y) = (xy[0].clone(), xy[1].clone());
    let all = broadcast_ranks(b, vec![c, y, x], span)?;
    // Scalars broadcast to the full shape, as jnp.where materializes them.
    let mut shape_src = None;
    for a in &all {
        let av = b.aval(a);
        if av.rank() > 0 {
            shape_src = Some(av);
            break;
        }
    }
    let all = match shape_src {
        Some(full) => all
            .into_iter()
            .map(|a| {
                let av = b.aval(&a);
                if av.rank() == 0 {
                    b.bind1(
                        &prims::BROADCAST_IN_DIM,
                        Params::BroadcastInDim {
                            shape: full.shape.clone(),
                            dims: vec![],
                            np_ints: 0,
                        },
                        vec![a],
                        span,
                    )
                } else {
                    Ok(a)
                }
            })
            .collect::<Result<Vec<_>>>()?,
        None => all,
    };
    b.bind1(&prims::SELECT_N, Params::None, all, span)
}

/// `x ** y`: `integer_pow` for a static integer exponent, else `pow`.
pub(crate) fn power(b: &mut Builder, x: Atom, y: Atom, span: Span) -> Result<Atom> {
    if let Atom::Lit(l) = &y {
        if let Scalar::Int(n) = l.value {
            return b.bind1(
                &prims::INTEGER_POW,
                Params::IntegerPow(n as i64),
                vec![x],
                span,
            );
        }
    }
    binary(b, &prims::POW, x, y, span)
}

/// `jnp.clip(x, lo, hi)`: `min(hi, max(lo, x))`, as JAX writes it.
pub(crate) fn clip(b: &mut Builder, x: Atom, lo: Atom, hi: Atom, span: Span) -> Result<Atom> {
    let m = binary(b, &prims::MAX, lo, x, span)?;
    binary(b, &prims::MIN, hi, m, span)
}

/// Permutes axes.
pub(crate) fn transpose(b: &mut Builder, x: Atom, perm: Vec<usize>, span: Span) -> Result<Atom> {
    b.bind1(&prims::TRANSPOSE, Params::Transpose { perm }, vec![x], span)
}

/// A new shape with the same elements in row-major order.
pub(crate) fn reshape(b: &mut Builder, x: Atom, new_sizes: Vec<Dim>, span: Span) -> Result<Atom> {
    if b.aval(&x).shape == new_sizes {
        return Ok(x);
    }
    b.bind1(
        &prims::RESHAPE,
        Params::Reshape { new_sizes },
        vec![x],
        span,
    )
}

/// `jnp.broadcast_to`: NumPy broadcasting to `shape`.
pub(crate) fn broadcast_to(b: &mut Builder, x: Atom, shape: Vec<Dim>, span: Span) -> Result<Atom> {
    let a = b.aval(&x);
    if a.shape == shape {
        return Ok(x);
    }
    if a.rank() > shape.len() {
        return Err(syn::Error::new(
            span,
            format!(
                "cannot broadcast {a} to a shape of lower rank {}",
                crate::ir::shapes::fmt(&shape)
            ),
        ));
    }
    let dims = (shape.len() - a.rank()..shape.len()).collect();
    b.bind1(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape,
            dims,
            np_ints: 0,
        },
        vec![x],
        span,
    )
}

/// `jnp.expand_dims(x, axis)`: a size-1 axis inserted at `axis`.
pub(crate) fn expand_dims(b: &mut Builder, x: Atom, axis: i128, span: Span) -> Result<Atom> {
    let a = b.aval(&x);
    let rank = a.rank() as i128 + 1;
    if axis < -rank || axis >= rank {
        return Err(syn::Error::new(
            span,
            format!("axis {axis} is out of bounds for array of dimension {rank}"),
        ));
    }
    let axis = axis.rem_euclid(rank) as usize;
    let mut shape = a.shape.clone();
    shape.insert(axis, Dim::Lit(1));
    let dims = (0..shape.len()).filter(|&k| k != axis).collect();
    b.bind1(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape,
            dims,
            np_ints: 0,
        },
        vec![x],
        span,
    )
}

/// `jnp.max(x, axis, keepdims=True, initial=-inf)` with its gradient stopped,
/// as `jax.nn.softmax` and `logsumexp` subtract it.
fn max_with_initial(
    b: &mut Builder,
    x: Atom,
    axes: Vec<usize>,
    keepdims: bool,
    span: Span,
) -> Result<Atom> {
    let a = b.aval(&x);
    let m = b.bind1(
        &prims::REDUCE_MAX,
        Params::Axes(axes.clone(), 0),
        vec![x],
        span,
    )?;
    let neg_inf = literal(
        Scalar::Float(f64::NEG_INFINITY),
        Aval::scalar(a.dtype, true),
    );
    let m = b.bind1(&prims::MAX, Params::None, vec![neg_inf, m], span)?;
    if keepdims {
        keep_dims(b, m, &a.shape, &axes, span)
    } else {
        Ok(m)
    }
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
    let x = to_float(b, x, span)?;
    let m = max_with_initial(b, x.clone(), vec![axis], true, span)?;
    let m = b.bind1(&prims::STOP_GRADIENT, Params::None, vec![m], span)?;
    let shifted = binary(b, &prims::SUB, x, m, span)?;
    let e = b.bind1(&prims::EXP, Params::None, vec![shifted.clone()], span)?;
    let s = reduce(b, Reduction::Sum, e.clone(), Some(vec![axis]), true, span)?;
    if log {
        let l = b.bind1(&prims::LOG, Params::None, vec![s], span)?;
        binary(b, &prims::SUB, shifted, l, span)
    } else {
        binary(b, &prims::DIV, e, s, span)
    }
}

/// `jax.nn.logsumexp(x, axis, keepdims)`, with the primitives JAX emits.
pub(crate) fn logsumexp(
    b: &mut Builder,
    x: Atom,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    span: Span,
) -> Result<Atom> {
    let x = to_float(b, x, span)?;
    let a = b.aval(&x);
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let m = max_with_initial(b, x.clone(), axes.clone(), keepdims, span)?;
    let ma = b.aval(&m);
    let finite = b.bind1(&prims::IS_FINITE, Params::None, vec![m.clone()], span)?;
    let zero = literal(Scalar::Float(0.0), Aval::scalar(a.dtype, true));
    let zero = if ma.rank() > 0 {
        b.bind1(
            &prims::BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape: ma.shape.clone(),
                dims: vec![],
                np_ints: 0,
            },
            vec![zero],
            span,
        )?
    } else {
        zero
    };
    let m = b.bind1(&prims::SELECT_N, Params::None, vec![finite, zero, m], span)?;
    let m = b.bind1(&prims::STOP_GRADIENT, Params::None, vec![m], span)?;
    let m_dims = if keepdims {
        m.clone()
    } else {
        keep_dims(b, m.clone(), &a.shape, &axes, span)?
    };
    let shifted = binary(b, &prims::SUB, x, m_dims, span)?;
    let e = b.bind1(&prims::EXP, Params::None, vec![shifted], span)?;
    let s = reduce(b, Reduction::Sum, e, Some(axes), keepdims, span)?;
    // JAX computes the sign too (for return_sign); it is dead here.
    b.bind1(&prims::SIGN, Params::None, vec![s.clone()], span)?;
    let s = b.bind1(&prims::ABS, Params::None, vec![s], span)?;
    let l = b.bind1(&prims::LOG, Params::None, vec![s], span)?;
    b.bind1(&prims::ADD, Params::None, vec![l, m], span)
}

/// `jnp.concatenate` (or `jnp.stack`, which first adds the axis to each part).
pub(crate) fn concatenate(
    b: &mut Builder,
    parts: Vec<Atom>,
    axis: i128,
    stack: bool,
    span: Span,
) -> Result<Atom> {
    if parts.is_empty() {
        return Err(syn::Error::new(
            span,
            "need at least one array to concatenate",
        ));
    }
    let parts = promote(b, parts, span)?;
    let parts = if stack {
        parts
            .into_iter()
            .map(|p| expand_dims(b, p, axis, span))
            .collect::<Result<Vec<_>>>()?
    } else {
        parts
    };
    let dim = self::axis(b, &parts[0], axis, span)?;
    b.bind1(
        &prims::CONCATENATE,
        Params::Concatenate { dim },
        parts,
        span,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_wrap_like_jax() {
        assert_eq!(cast_scalar(Scalar::Int(256), DType::U8), Scalar::Int(0));
        assert_eq!(cast_scalar(Scalar::Int(128), DType::I8), Scalar::Int(-128));
        assert_eq!(cast_scalar(Scalar::Int(2), DType::F32), Scalar::Float(2.0));
        assert_eq!(cast_scalar(Scalar::Float(2.7), DType::I32), Scalar::Int(2));
    }
}
