//! Eager functions whose jitted spelling was missing (rows of `lower.rs`):
//! `lax::`'s structural functions with their eager signatures (`&[axes]`,
//! `&[start]`, dimension numbers as tuples of slices) and
//! `jnp::argmax_axis`/`argmin_axis`, each one primitive as JAX binds it.

use jax_dtypes::DType;

use crate::frontend::jnp::{self, Reduction};
use crate::frontend::lower_call::{call_err, Call};
use crate::frontend::lower_math::arg_reduce;
use crate::frontend::tracer::Tracer;
use crate::frontend::types::TypeSpec;
use crate::frontend::value::Value;
use crate::ir::builder::Result;
use crate::prims::{self, Params};

/// Static non-negative integers: a Rust array or tuple of them (`&[1, 0]`).
fn usizes(t: &Tracer, c: &Call, i: usize, what: &str) -> Result<Vec<usize>> {
    let (v, s) = &c.args[i];
    t.static_ints(v, *s, what)?
        .into_iter()
        .map(|k| match usize::try_from(k) {
            Ok(k) => Ok(k),
            Err(_) => call_err(*s, format!("{what} must not be negative, got {k}")),
        })
        .collect()
}

/// `jnp::argmax_axis(x, axis, keepdims)` and `argmin_axis`: `argmax(x,
/// axis)`, the axis kept with size 1 when asked.
pub(crate) fn arg_reduce_axis(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let span = c.span;
    let keepdims = match &c.args[2].0 {
        Value::Static(crate::ir::Scalar::Bool(b)) => *b,
        _ => return call_err(c.args[2].1, "`keepdims` must be `true` or `false`"),
    };
    let x = c.atom(t, 0)?;
    let axis = t.static_int(&c.args[1].0, c.args[1].1, "the axis")?;
    let axis = jnp::axis(&t.b, &x, axis, c.args[1].1)?;
    let name = c.name.trim_end_matches("_axis");
    let args = c.args[..2].to_vec();
    let reduced = arg_reduce(
        t,
        Call {
            name,
            args,
            hint: None,
            ..c
        },
    )?;
    if !keepdims {
        return Ok(reduced);
    }
    let r = t.atom(reduced, span)?;
    Ok(Value::Traced(jnp::expand_dims(
        &mut t.b,
        r,
        axis as i128,
        span,
    )?))
}

/// `lax::reduce_sum(x, &[axes])` and its kin: no promotion (`lax`).
pub(crate) fn lax_reduce(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let axes = usizes(t, &c, 1, "the axes")?;
    let kind = match c.name {
        "reduce_sum" => Reduction::Sum,
        "reduce_prod" => Reduction::Prod,
        "reduce_max" => Reduction::Max,
        _ => Reduction::Min,
    };
    let dtype = t.b.aval(&x).dtype;
    let out = jnp::reduce(&mut t.b, kind, x, Some(axes), false, c.span)?;
    // `jnp` sums small integers in the default int; `lax` keeps the type.
    Ok(Value::Traced(jnp::convert(
        &mut t.b, out, dtype, false, c.span,
    )?))
}

/// Arguments where an eager `Option` is written: `None` is `Value::Unit`,
/// `Some(x)` is `x`.
pub(crate) fn option_args(
    t: &mut Tracer,
    args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
) -> Result<Vec<(Value, proc_macro2::Span)>> {
    use syn::spanned::Spanned;
    args.iter()
        .map(|a| {
            let v = match a {
                syn::Expr::Path(p) if p.path.is_ident("None") => Value::Unit,
                syn::Expr::Call(c)
                    if c.args.len() == 1
                        && matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Some")) =>
                {
                    t.expr(&c.args[0])?
                }
                a => t.expr(a)?,
            };
            Ok((v, a.span()))
        })
        .collect()
}

/// `lax::slice(x, &start, &limit, None | Some(&strides))`.
pub(crate) fn lax_slice(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(4)?;
    let x = c.atom(t, 0)?;
    let start = usizes(t, &c, 1, "the start indices")?;
    let limit = usizes(t, &c, 2, "the limit indices")?;
    let strides = match &c.args[3].0 {
        Value::Unit => None,
        _ => Some(usizes(t, &c, 3, "the strides")?),
    };
    Ok(Value::Traced(t.b.bind1(
        &prims::SLICE,
        Params::Slice {
            start,
            limit,
            strides,
        },
        vec![x],
        c.span,
    )?))
}

/// `lax::broadcast_in_dim::<Out>(x, &[dims])`: the shape from the result type.
pub(crate) fn lax_broadcast_in_dim(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let dims = usizes(t, &c, 1, "the broadcast dimensions")?;
    let shape = c.hinted_shape()?;
    Ok(Value::Traced(t.b.bind1(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape,
            dims,
            np_ints: 0,
        },
        vec![x],
        c.span,
    )?))
}

/// `lax::convert_element_type::<U>(x)`.
pub(crate) fn lax_convert(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let dtype: DType = match &c.hint {
        Some(TypeSpec::Scalar(d)) => *d,
        Some(TypeSpec::Array { aval, .. }) => aval.dtype,
        _ => {
            return call_err(
                c.span,
                "`lax::convert_element_type` takes the new element type as `lax::convert_element_type::<f64>(x)`",
            )
        }
    };
    Ok(Value::Traced(jnp::convert(
        &mut t.b, x, dtype, false, c.span,
    )?))
}

/// `lax::dot_general(a, b, ((&lhs_contract, &rhs_contract), (&lhs_batch,
/// &rhs_batch)))`: the operands' dtype (`lax` does not promote).
pub(crate) fn lax_dot_general(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let (v, s) = &c.args[2];
    let help = "the dimension numbers are `((&lhs_contract, &rhs_contract), (&lhs_batch, &rhs_batch))` with integers known when the function compiles";
    let Value::Tuple(parts) = v else {
        return call_err(*s, help);
    };
    let mut lists = Vec::new();
    for p in parts {
        let Value::Tuple(pair) = p else {
            return call_err(*s, help);
        };
        for l in pair {
            let ints = t.static_ints(l, *s, "a dimension number")?;
            lists.push(ints.into_iter().map(|k| k as usize).collect::<Vec<_>>());
        }
    }
    let [lc, rc, lb, rb]: [Vec<usize>; 4] = match lists.try_into() {
        Ok(l) => l,
        Err(_) => return call_err(*s, help),
    };
    let preferred = t.b.aval(&x).dtype;
    Ok(Value::Traced(t.b.bind1(
        &prims::DOT_GENERAL,
        Params::DotGeneral {
            lhs_contract: lc,
            rhs_contract: rc,
            lhs_batch: lb,
            rhs_batch: rb,
            preferred,
        },
        vec![x, y],
        c.span,
    )?))
}

/// `batch_matmul(a, b)`: `[B, M, K] x [B, K, N]`, a batched `matmul`.
pub(crate) fn batch_matmul(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let (ra, rb) = (t.b.aval(&x).rank(), t.b.aval(&y).rank());
    if ra != 3 || rb != 3 {
        return call_err(
            c.span,
            format!(
                "batch_matmul needs [B, M, K] x [B, K, N], got {} and {}",
                t.b.aval(&x),
                t.b.aval(&y)
            ),
        );
    }
    Ok(Value::Traced(jnp::matmul(&mut t.b, x, y, c.span)?))
}
