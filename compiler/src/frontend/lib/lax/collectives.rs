//! Collectives by axis name inside `jax::vmap(f, .., axis_name)`:
//! `lax::psum(x, "i")`, `pmean`, `pmax`, `pmin`, `all_gather`,
//! `psum_scatter`, `ppermute(x, "i", &[(0, 1), ..])` and
//! `axis_index("i")`, as JAX's `lax`. A name no enclosing `vmap` binds is
//! JAX's error, at the name.

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{flatten, rebuild, Value};
use crate::ir::builder::{err, Result};
use crate::ir::rules::Ctx;
use crate::ir::Dim;
use crate::prims::{self, CollectiveParams, Params, Prim};

/// The axis names of argument `v` (`"i"` or `("i", "j")`), each bound by
/// an enclosing `vmap`, with the product of their sizes.
fn axis_names(t: &Tracer, v: &Value, span: Span, op: &str) -> Result<(Vec<String>, usize)> {
    let names: Vec<String> = match v {
        Value::Str(s) => vec![s.clone()],
        Value::Tuple(items) | Value::List(items) if !items.is_empty() => items
            .iter()
            .map(|i| match i {
                Value::Str(s) => Ok(s.clone()),
                _ => err(
                    span,
                    "axis names are string literals: `\"i\"` or `(\"i\", \"j\")`",
                ),
            })
            .collect::<Result<_>>()?,
        _ => {
            return err(
                span,
                "the axis name is a string literal: `\"i\"` or `(\"i\", \"j\")`",
            )
        }
    };
    let mut size = 1;
    for n in &names {
        let Some((_, d)) = t.axis_env.iter().rev().find(|(a, _)| a == n) else {
            let bound: Vec<&str> = t.axis_env.iter().map(|(a, _)| a.as_str()).collect();
            return err(
                span,
                format!(
                    "Found an unbound axis name: {n}. To fix this, call lax::{op} inside `jax::vmap(f, in_axes, out_axes, \"{n}\")` or `jax::pmap(f, \"{n}\")` (names bound here: {bound:?})"
                ),
            );
        };
        match d {
            Dim::Lit(k) => size *= k,
            Dim::Sym(s) => {
                return err(
                    span,
                    format!("lax::{op} across the axis `{n}` of symbolic size `{s}` is not supported yet: map an axis whose size is a number"),
                )
            }
        }
    }
    Ok((names, size))
}

fn params(axes: Vec<String>, axis_size: usize) -> Params {
    Params::Collective(CollectiveParams {
        axes,
        axis_size,
        perm: Vec::new(),
    })
}

/// `f` applied to each leaf of `x` (an array, or a struct or tuple of
/// them, as JAX's collectives take pytrees).
fn per_leaf(
    t: &mut Tracer,
    x: &Value,
    span: Span,
    mut f: impl FnMut(&mut Tracer, crate::ir::Atom) -> Result<crate::ir::Atom>,
) -> Result<Value> {
    let mut leaves = Vec::new();
    flatten(x, &mut leaves);
    let mut outs = Vec::new();
    for leaf in leaves {
        let a = t.atom(leaf, span)?;
        outs.push(Value::Traced(f(t, a)?));
    }
    Ok(rebuild(x, &mut outs.into_iter()))
}

/// `lax::psum(x, name)`, `pmax`, `pmin`, `all_gather`, `psum_scatter`; on
/// a pytree, one collective per leaf.
fn unary(t: &mut Tracer, c: Call, prim: Prim) -> Result<Value> {
    c.want(2)?;
    let (axes, size) = axis_names(t, &c.args[1].0, c.args[1].1, c.name)?;
    if axes.len() > 1 && matches!(prim.name, "all_gather" | "reduce_scatter") {
        return call_err(
            c.args[1].1,
            format!(
                "lax::{} over several axes is not supported yet: one axis name",
                c.name
            ),
        );
    }
    let span = c.span;
    per_leaf(t, &c.args[0].0, c.args[0].1, |t, x| {
        t.b.bind1(prim, params(axes.clone(), size), vec![x], span)
    })
}

pub(crate) fn psum(t: &mut Tracer, c: Call) -> Result<Value> {
    unary(t, c, &prims::PSUM)
}

pub(crate) fn pmax(t: &mut Tracer, c: Call) -> Result<Value> {
    unary(t, c, &prims::PMAX)
}

pub(crate) fn pmin(t: &mut Tracer, c: Call) -> Result<Value> {
    unary(t, c, &prims::PMIN)
}

pub(crate) fn all_gather(t: &mut Tracer, c: Call) -> Result<Value> {
    unary(t, c, &prims::ALL_GATHER)
}

pub(crate) fn psum_scatter(t: &mut Tracer, c: Call) -> Result<Value> {
    unary(t, c, &prims::REDUCE_SCATTER)
}

/// `lax::pmean(x, name)`: `psum(x) / n` with `n` the lanes across the
/// named axes, as JAX computes it (an integer operand is averaged as a
/// float).
pub(crate) fn pmean(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (axes, size) = axis_names(t, &c.args[1].0, c.args[1].1, "pmean")?;
    let span = c.span;
    per_leaf(t, &c.args[0].0, c.args[0].1, |t, mut x| {
        if !t.b.aval(&x).dtype.is_inexact() {
            let float = if t.b.x64 { DType::F64 } else { DType::F32 };
            let mut cx = Ctx::new(&mut t.b, span);
            x = cx.convert(x, float).map_err(|m| syn::Error::new(span, m))?;
        }
        let sum =
            t.b.bind1(&prims::PSUM, params(axes.clone(), size), vec![x], span)?;
        let mut cx = Ctx::new(&mut t.b, span);
        let n = cx.lit(size as f64, &sum);
        cx.div(sum, n).map_err(|m| syn::Error::new(span, m))
    })
}

/// `lax::axis_index(name)`: this lane's index along the named axis (int32).
pub(crate) fn axis_index(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let (axes, size) = axis_names(t, &c.args[0].0, c.args[0].1, "axis_index")?;
    if axes.len() != 1 {
        return call_err(c.args[0].1, "lax::axis_index takes one axis name");
    }
    let out =
        t.b.bind1(&prims::AXIS_INDEX, params(axes, size), Vec::new(), c.span)?;
    Ok(Value::Traced(out))
}

/// `lax::ppermute(x, name, perm)` with `perm` a list of `(source,
/// destination)` pairs known when the function compiles.
pub(crate) fn ppermute(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let x = c.atom(t, 0)?;
    let (axes, size) = axis_names(t, &c.args[1].0, c.args[1].1, "ppermute")?;
    let (pv, ps) = (&c.args[2].0, c.args[2].1);
    let help = "ppermute's `perm` is a list of (source, destination) pairs known when the function compiles: `&[(0, 1), (1, 0)]`";
    let pairs = match pv {
        Value::Tuple(items) | Value::List(items) => items,
        _ => return err(ps, help),
    };
    let mut perm = Vec::with_capacity(pairs.len());
    for p in pairs {
        let ints = t.static_ints(p, ps, "a ppermute pair")?;
        let [a, b] = ints[..] else {
            return err(ps, help);
        };
        let (Ok(a), Ok(b)) = (usize::try_from(a), usize::try_from(b)) else {
            return err(ps, help);
        };
        perm.push((a, b));
    }
    let (srcs, dsts): (Vec<usize>, Vec<usize>) = perm.iter().copied().unzip();
    let distinct = |v: &[usize]| {
        let mut s = v.to_vec();
        s.sort_unstable();
        s.dedup();
        s.len() == v.len()
    };
    if !distinct(&srcs) || !distinct(&dsts) || perm.iter().any(|&(a, b)| a >= size || b >= size) {
        return err(
            ps,
            format!("ppermute sources and destinations must be unique and within the axis size {size}, got {perm:?}"),
        );
    }
    let params = Params::Collective(CollectiveParams {
        axes,
        axis_size: size,
        perm,
    });
    Ok(Value::Traced(t.b.bind1(
        &prims::PPERMUTE,
        params,
        vec![x],
        c.span,
    )?))
}
