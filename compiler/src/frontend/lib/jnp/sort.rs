//! Sorting and cumulative operations by name (rows of `lib/lower.rs`): `sort`,
//! `argsort`, `lax::sort_key_val`, `cumsum`/`cumprod`/`cummax`/`cummin`,
//! written as JAX's `jnp`/`lax` functions write them in primitives.

use jax_dtypes::{default_dtype, DType, Kind};

use crate::frontend::lib::call::{call_err, Call, Module};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Dim};
use crate::prims::{self};
use jax_core::lax::Lax;

/// The axis argument `i` of a call, normalized for `x`.
fn axis_arg(t: &Tracer, c: &Call, x: &Atom, i: usize) -> Result<usize> {
    let (v, s) = &c.args[i];
    let ax = t.static_int(v, *s, "the axis")?;
    jnp::axis(&t.b, x, ax, *s)
}

/// `sort[dimension is_stable=True num_keys]` of `operands`.
fn bind_sort(
    t: &mut Tracer,
    operands: Vec<Atom>,
    dimension: usize,
    num_keys: usize,
    span: proc_macro2::Span,
) -> Result<Vec<Atom>> {
    t.at(span).sort(operands, dimension, true, num_keys)
}

fn array_of_rank_1_or_more(t: &Tracer, c: &Call, x: &Atom) -> Result<()> {
    if t.b.aval(x).rank() == 0 {
        return call_err(
            c.span,
            format!(
                "`{}` needs an array of rank 1 or more, not a scalar",
                c.name
            ),
        );
    }
    Ok(())
}

/// `jnp::sort(x, axis)`, `lax::sort(x, dimension)`: one operand, stable.
pub(crate) fn sort(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    let mut out = bind_sort(t, vec![x], axis, 1, c.span)?;
    Ok(Value::Traced(out.remove(0)))
}

/// `jnp::argsort(x, axis)`: an int iota sorted along with `x`
/// (`num_keys=1`, stable), as `jnp.argsort` does.
pub(crate) fn argsort(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    let like = t.b.aval(&x);
    let dtype = default_dtype(Kind::Int, t.b.x64);
    let index = t.at(c.span).iota(dtype, like.shape.clone(), axis)?;
    let mut out = bind_sort(t, vec![x, index], axis, 1, c.span)?;
    Ok(Value::Traced(out.remove(1)))
}

/// `lax::sort_key_val(keys, values, dimension)`: `values` sorted by `keys`.
pub(crate) fn sort_key_val(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let k = c.atom(t, 0)?;
    let v = c.atom(t, 1)?;
    array_of_rank_1_or_more(t, &c, &k)?;
    let axis = axis_arg(t, &c, &k, 2)?;
    let out = bind_sort(t, vec![k, v], axis, 1, c.span)?;
    Ok(Value::Tuple(out.into_iter().map(Value::Traced).collect()))
}

/// `jnp::cumsum(x, axis)` and its kin: bool counts in the default int
/// (`jnp.cumsum`/`cumprod` convert it first); the primitive keeps the
/// dtype.
pub(crate) fn cumulative(t: &mut Tracer, c: Call) -> Result<Value> {
    let (name, span) = (c.name, c.span);
    if c.args.len() != 2 {
        let how = if c.module == Module::Method {
            format!("x.{name}(axis)")
        } else {
            format!("{}{name}(x, axis)", c.module.prefix())
        };
        return call_err(
            span,
            format!("`{name}` takes the array and an axis: `{how}`"),
        );
    }
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    let aval = t.b.aval(&x);
    let x = if aval.dtype == DType::Bool && matches!(name, "cumsum" | "cumprod") {
        let int = default_dtype(Kind::Int, t.b.x64);
        jnp::convert(&mut t.b, x, int, false, span)?
    } else {
        x
    };
    let prim = match name {
        "cumsum" => &prims::CUMSUM,
        "cumprod" => &prims::CUMPROD,
        "cummax" => &prims::CUMMAX,
        _ => &prims::CUMMIN,
    };
    if aval.shape.get(axis) == Some(&Dim::Lit(0)) {
        return Ok(Value::Traced(x));
    }
    Ok(Value::Traced(t.at(span).cumulative(prim, x, axis, false)?))
}

/// A rule helper's error at the call.
fn at<T>(span: proc_macro2::Span, r: std::result::Result<T, String>) -> Result<T> {
    r.or_else(|e| call_err(span, e))
}

fn static_len(t: &Tracer, x: &Atom, axis: usize, c: &Call) -> Result<usize> {
    match &t.b.aval(x).shape[axis] {
        Dim::Lit(n) => Ok(*n),
        Dim::Sym(_) => call_err(
            c.span,
            format!(
                "`{}` along a symbolic dimension is not supported yet",
                c.name
            ),
        ),
    }
}

fn literal_dims(t: &Tracer, x: &Atom, c: &Call) -> Result<Vec<usize>> {
    t.b.aval(x)
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(_) => call_err(
                c.span,
                format!(
                    "`{}` of an array with symbolic dimensions is not supported yet",
                    c.name
                ),
            ),
        })
        .collect()
}

/// `x[start:limit]` along `axis` (`lax.slice`, no strides).
fn slice_axis(
    t: &mut Tracer,
    x: Atom,
    dims: &[usize],
    axis: usize,
    start: usize,
    limit: usize,
    span: proc_macro2::Span,
) -> Result<Atom> {
    let mut lo = vec![0; dims.len()];
    let mut hi = dims.to_vec();
    lo[axis] = start;
    hi[axis] = limit;
    t.at(span).slice(x, lo, hi, None)
}

/// `lax::top_k(x, k)`: the `k` largest along the last axis and their int32
/// indices.
pub(crate) fn top_k(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let (kv, ks) = &c.args[1];
    let k = t.static_int(kv, *ks, "k")?;
    if k < 0 {
        return call_err(
            *ks,
            format!("k argument to top_k must be nonnegative, got {k}"),
        );
    }
    let axis = t.b.aval(&x).rank() - 1;
    let outs = t.at(c.span).top_k(x, k as usize, axis)?;
    Ok(Value::Tuple(outs.into_iter().map(Value::Traced).collect()))
}

/// `jnp::diff(x, n, axis)`: `n` times `x[1:] - x[:-1]` along `axis`
/// (`!=` for bool), as `jnp.diff`.
pub(crate) fn diff(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let mut x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let (nv, ns) = &c.args[1];
    let n = t.static_int(nv, *ns, "n")?;
    if n < 0 {
        return call_err(*ns, format!("order must be non-negative but got {n}"));
    }
    let axis = axis_arg(t, &c, &x, 2)?;
    let op = if t.b.aval(&x).dtype == DType::Bool {
        &prims::NE
    } else {
        &prims::SUB
    };
    for _ in 0..n {
        let dims = literal_dims(t, &x, &c)?;
        let len = dims[axis];
        if len == 0 {
            break;
        }
        let hi = slice_axis(t, x.clone(), &dims, axis, 1, len, c.span)?;
        let lo = slice_axis(t, x, &dims, axis, 0, len - 1, c.span)?;
        x = t.at(c.span).binary(op, hi, lo)?;
    }
    Ok(Value::Traced(x))
}

/// `jnp::searchsorted(a, v, side)` by JAX's `method='compare_all'`: for
/// each `v`, how many elements of `a` are before it (`side = "left"`: `a <
/// v`; `"right"`: `a <= v`) in sort's total order (NaN last), summed as
/// int32. JAX's default method ('scan') is a binary search through `gather`,
/// a primitive not here; both give the same indices for a sorted `a`.
pub(crate) fn searchsorted(t: &mut Tracer, c: Call) -> Result<Value> {
    let span = c.span;
    let right = match c.args.len() {
        3 => match &c.args[2].0 {
            Value::Str(s) if s == "left" => false,
            Value::Str(s) if s == "right" => true,
            _ => {
                return call_err(
                    c.args[2].1,
                    "side must be \"left\" or \"right\"",
                )
            }
        },
        _ => {
            return call_err(
                span,
                "`searchsorted` takes the sorted array, the values and the side: `jnp::searchsorted(a, v, \"left\")` (or \"right\")",
            )
        }
    };
    let a = c.atom(t, 0)?;
    let v = c.atom(t, 1)?;
    let (aa, av) = (t.b.aval(&a), t.b.aval(&v));
    if aa.rank() != 1 {
        return call_err(
            span,
            format!(
                "a should be 1-dimensional, got an array of rank {}",
                aa.rank()
            ),
        );
    }
    let [a, v] =
        <[Atom; 2]>::try_from(jnp::promote(&mut t.b, vec![a, v], span)?).expect("two operands");
    let mut wide = vec![aa.shape[0].clone()];
    wide.extend(av.shape.iter().cloned());
    let mut cx = crate::ir::rules::Ctx::new(&mut t.b, span);
    let a_wide = at(span, crate::prims::broadcast_dims(&mut cx, a, &wide, &[0]))?;
    let v_dims: Vec<usize> = (1..wide.len()).collect();
    let v_wide = at(
        span,
        crate::prims::broadcast_dims(&mut cx, v, &wide, &v_dims),
    )?;
    // `x < y` in the total order: NaN is after every number.
    let before =
        |cx: &mut crate::ir::rules::Ctx, x: &Atom, y: &Atom| -> std::result::Result<Atom, String> {
            let lt = cx.bin(&prims::LT, x.clone(), y.clone())?;
            if !cx.aval(x).dtype.is_float() {
                return Ok(lt);
            }
            let x_num = cx.bin(&prims::EQ, x.clone(), x.clone())?;
            let y_nan = cx.bin(&prims::NE, y.clone(), y.clone())?;
            let nan_after = cx.bin(&prims::AND, x_num, y_nan)?;
            cx.bin(&prims::OR, lt, nan_after)
        };
    let counted = if right {
        let after = at(span, before(&mut cx, &v_wide, &a_wide))?;
        at(span, cx.un(&prims::NOT, after))?
    } else {
        at(span, before(&mut cx, &a_wide, &v_wide))?
    };
    let ones = at(span, cx.convert(counted, DType::I32))?;
    let n = at(span, cx.reduce(&prims::REDUCE_SUM, ones, vec![0]))?;
    Ok(Value::Traced(n))
}

/// How `quantile` interpolates between the two nearest ranks.
#[derive(Clone, Copy, PartialEq)]
enum Interpolation {
    Linear,
    /// `jnp.median`'s: the mean of the two.
    Midpoint,
}

/// `jnp::median`, `quantile`, `percentile` (and `_axis` forms): JAX sorts
/// (every lane with a NaN made all NaN first) and interpolates the two
/// ranks around `q * (n - 1)`. `q` is known when the function compiles, so
/// the two ranks are static slices (JAX gathers them at indices it computes
/// at run time); the weights are computed in the array's float type as
/// JAX computes them.
pub(crate) fn quantile(t: &mut Tracer, c: Call) -> Result<Value> {
    let span = c.span;
    let name = c.name;
    let base = name.trim_end_matches("_axis");
    let takes_q = base != "median";
    let first_opt = if takes_q { 2 } else { 1 };
    let n_args = c.args.len();
    let by_axis = name.ends_with("_axis");
    let ok = if by_axis {
        n_args == first_opt + 2
    } else {
        n_args == first_opt || n_args == first_opt + 2
    };
    if !ok {
        let q = if takes_q { ", q" } else { "" };
        return call_err(
            span,
            format!(
                "`{name}` takes the array{q}{}",
                if by_axis {
                    ", an axis and keepdims"
                } else {
                    ", and optionally an axis and keepdims"
                }
            ),
        );
    }
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, span)?;
    let dtype = t.b.aval(&x).dtype;
    let x = jnp::convert(&mut t.b, x, dtype, false, span)?;
    let q = if takes_q {
        let (qv, qs) = &c.args[1];
        let q = match qv {
            Value::Static(crate::ir::Scalar::Float(f)) => *f,
            Value::Static(crate::ir::Scalar::Int(i)) => *i as f64,
            _ => {
                return call_err(
                    *qs,
                    "q must be a number known when the function compiles (a literal or const)",
                )
            }
        };
        let q = round_to(q, dtype);
        if base == "percentile" {
            round_to(q / 100.0, dtype)
        } else {
            q
        }
    } else {
        0.5
    };
    if !(0.0..=1.0).contains(&q) {
        return call_err(
            span,
            format!("{base}: q must be in [0, 1] (in [0, 100] for percentile), got {q}"),
        );
    }
    let (x, axis, keepdims) = if n_args == first_opt {
        let dims = literal_dims(t, &x, &c)?;
        let n: usize = dims.iter().product();
        (jnp::reshape(&mut t.b, x, vec![Dim::Lit(n)], span)?, 0, None)
    } else {
        let axis = axis_arg(t, &c, &x, first_opt)?;
        let (kv, ks) = &c.args[first_opt + 1];
        let keep = match kv {
            Value::Static(crate::ir::Scalar::Bool(b)) => *b,
            _ => return call_err(*ks, "keepdims must be a bool literal"),
        };
        (x, axis, Some(keep))
    };
    let dims = literal_dims(t, &x, &c)?;
    let n = static_len(t, &x, axis, &c)?;
    if n == 0 {
        return call_err(span, format!("{base} of an empty axis is not supported"));
    }
    let method = if base == "median" {
        Interpolation::Midpoint
    } else {
        Interpolation::Linear
    };
    // A lane with a NaN is all NaN (JAX's `where(any(isnan), nan, x)`).
    let mut cx = crate::ir::rules::Ctx::new(&mut t.b, span);
    let nan_mask = at(span, cx.bin(&prims::NE, x.clone(), x.clone()))?;
    let any = at(span, cx.reduce(&prims::REDUCE_OR, nan_mask, vec![axis]))?;
    let kept: Vec<usize> = (0..dims.len()).filter(|&d| d != axis).collect();
    let shape: Vec<Dim> = dims.iter().map(|&d| Dim::Lit(d)).collect();
    let any = at(
        span,
        crate::prims::broadcast_dims(&mut cx, any, &shape, &kept),
    )?;
    let nans = at(
        span,
        cx.full(
            f64::NAN,
            &crate::ir::Aval {
                dtype,
                shape: shape.clone(),
                weak: false,
            },
        ),
    )?;
    let x = at(span, cx.select(any, x, nans))?;
    let sorted = bind_sort(t, vec![x], axis, 1, span)?.remove(0);
    // The ranks and weights, in the float type.
    let m = round_to(q * round_to((n - 1) as f64, dtype), dtype);
    let (lo, hi) = (m.floor(), m.ceil());
    let hi_w = round_to(m - lo, dtype);
    let lo_w = round_to(1.0 - hi_w, dtype);
    let clampi = |r: f64| r.clamp(0.0, (n - 1) as f64) as usize;
    let (lo, hi) = (clampi(lo), clampi(hi));
    let pick = |t: &mut Tracer, r: usize| -> Result<Atom> {
        let s = slice_axis(t, sorted.clone(), &dims, axis, r, r + 1, span)?;
        t.at(span).squeeze(s, vec![axis])
    };
    let (lo_v, hi_v) = (pick(t, lo)?, pick(t, hi)?);
    let lit = |v: f64| {
        crate::ir::builder::literal(
            crate::ir::cast_scalar(crate::ir::Scalar::Float(v), dtype),
            crate::ir::Aval::scalar(dtype, false),
        )
    };
    let out = match method {
        Interpolation::Linear => {
            let a = t.at(span).binary(&prims::MUL, lo_v, lit(lo_w))?;
            let b = t.at(span).binary(&prims::MUL, hi_v, lit(hi_w))?;
            t.at(span).binary(&prims::ADD, a, b)?
        }
        Interpolation::Midpoint => {
            let s = t.at(span).binary(&prims::ADD, lo_v, hi_v)?;
            t.at(span).binary(&prims::MUL, s, lit(0.5))?
        }
    };
    let out = match keepdims {
        Some(true) => {
            let mut kshape = shape.clone();
            kshape[axis] = Dim::Lit(1);
            jnp::reshape(&mut t.b, out, kshape, span)?
        }
        _ => out,
    };
    Ok(Value::Traced(out))
}

/// `v` rounded to `dtype` (the arithmetic JAX does on scalars of the
/// array's type).
fn round_to(v: f64, dtype: DType) -> f64 {
    match crate::ir::cast_scalar(crate::ir::Scalar::Float(v), dtype) {
        crate::ir::Scalar::Float(f) => f,
        _ => v,
    }
}
