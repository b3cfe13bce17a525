//! Automatic batching (`vmap`) on jaxprs, as JAX does it (`batching.py`,
//! autodidax): every value is an atom with the axis its lanes run along, or
//! none when all lanes share it; each equation with a batched operand runs
//! its primitive's batching rule, which moves or adds the batch axis and
//! binds primitives on whole batches; an equation on shared values runs as
//! it is. The result is a jaxpr, so `vmap` composes with differentiation,
//! control flow and itself, and goes through simplification, fusion and
//! emission like any function. The rules live with their primitives
//! (`prims/`).

use std::collections::HashMap;

use proc_macro2::Span;

use crate::ir::builder::{expression_error, Builder};
use crate::ir::rules::{BDim, Batch, Ctx};
use crate::ir::{Atom, Aval, Dim, Jaxpr, Var};

/// An input's abstract value with `size` lanes along its axis `d`.
pub fn batched_aval(a: &Aval, d: BDim, size: &Dim) -> Aval {
    let mut a = a.clone();
    if let Some(d) = d {
        a.shape.insert(d, size.clone());
    }
    a
}

/// The equations of `j` batched into `b`: its outputs and their batch axes,
/// from its inputs (atoms of `b`) and theirs.
fn vmap_into(
    j: &Jaxpr,
    b: &mut Builder,
    inputs: &[Atom],
    in_dims: &[BDim],
    size: &Dim,
    axis_name: Option<&str>,
) -> crate::Result<Vec<(Atom, BDim)>> {
    let mut env: HashMap<Var, (Atom, BDim)> = HashMap::new();
    let mut consts = HashMap::new();
    b.copy_constants(j, &mut consts);
    for (v, a) in consts {
        env.insert(v, (a, None));
    }
    for ((v, a), d) in j.invars.iter().zip(inputs).zip(in_dims) {
        env.insert(*v, (a.clone(), *d));
    }
    let get = |env: &HashMap<Var, (Atom, BDim)>, a: &Atom| match a {
        Atom::Var(v) => env[v].clone(),
        lit => (lit.clone(), None),
    };
    for e in &j.eqns {
        let (ins, dims): (Vec<Atom>, Vec<BDim>) = e.ins.iter().map(|a| get(&env, a)).unzip();
        // A collective across this axis runs its rule even on shared
        // values (`psum` of one is that value times the lane count).
        let across = axis_name.is_some_and(|n| crate::prims::names_axis(&e.params, n));
        let outs: Vec<(Atom, BDim)> = if dims.iter().all(Option::is_none) && !across {
            b.bind(e.prim, e.params.clone(), ins, e.span)?
                .into_iter()
                .map(|o| (o, None))
                .collect()
        } else {
            let Some(rule) = e.prim.batch else {
                return Err(expression_error(
                    e.span,
                    format!("Batching rule for '{}' not implemented", e.prim.name),
                ));
            };
            let mut bx = Batch {
                cx: Ctx::new(b, e.span),
                prim: e.prim,
                size: size.clone(),
                axis_name: axis_name.map(str::to_string),
                vmap: vmap_program,
            };
            rule(&mut bx, &ins, &dims, &e.params).map_err(|m| expression_error(e.span, m))?
        };
        for (v, o) in e.outs.iter().zip(outs) {
            env.insert(*v, o);
        }
    }
    Ok(j.outvars.iter().map(|a| get(&env, a)).collect())
}

/// `x` with its batch axis at `to` (a shared `x` repeated along a new
/// axis there); `to` of `None` asks for a shared value, an error when `x`
/// is batched (`batching.matchaxis`).
fn match_axis(cx: &mut Ctx, x: Atom, from: BDim, to: BDim, size: &Dim) -> Result<Atom, String> {
    match (from, to) {
        (Some(f), Some(t)) => cx.moveaxis(x, f, t),
        (None, Some(t)) => cx.broadcast_axis(x, size.clone(), t),
        (None, None) => Ok(x),
        (Some(f), None) => Err(format!(
            "at vmap out_axes, got axis spec None but output was batched on axis {f}"
        )),
    }
}

/// `vmap` of `j`: a jaxpr taking each input with `size` lanes along its
/// axis in `in_dims` (or shared, for `None`) and returning each output with
/// its lanes along its axis in `out_dims`.
pub fn vmap(
    j: &Jaxpr,
    in_dims: &[BDim],
    out_dims: &[BDim],
    size: &Dim,
    axis_name: Option<&str>,
    x64: bool,
    span: Span,
) -> crate::Result<Jaxpr> {
    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = j
        .invars
        .iter()
        .zip(in_dims)
        .map(|(v, d)| b.input(batched_aval(j.aval(*v), *d, size)))
        .collect();
    let outs = vmap_into(j, &mut b, &inputs, in_dims, size, axis_name)?;
    let mut outvars = Vec::new();
    for ((x, from), to) in outs.into_iter().zip(out_dims) {
        let mut cx = Ctx::new(&mut b, span);
        outvars
            .push(match_axis(&mut cx, x, from, *to, size).map_err(|m| expression_error(span, m))?);
    }
    b.jaxpr.outvars = outvars;
    Ok(b.jaxpr)
}

/// `vmap` of a program a primitive holds (a branch, a loop body): the
/// batched program and its outputs' batch axes; `out_dims`, when given,
/// forces them (shared outputs repeated, batched ones moved).
pub fn vmap_program(
    j: &Jaxpr,
    in_dims: &[BDim],
    size: &Dim,
    axis_name: Option<&str>,
    out_dims: Option<&[BDim]>,
    x64: bool,
    span: Span,
) -> crate::Result<(Jaxpr, Vec<BDim>)> {
    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = j
        .invars
        .iter()
        .zip(in_dims)
        .map(|(v, d)| b.input(batched_aval(j.aval(*v), *d, size)))
        .collect();
    let outs = vmap_into(j, &mut b, &inputs, in_dims, size, axis_name)?;
    let (outvars, dims) = match out_dims {
        None => outs.into_iter().unzip(),
        Some(want) => {
            let mut outvars = Vec::new();
            for ((x, from), to) in outs.into_iter().zip(want) {
                let mut cx = Ctx::new(&mut b, span);
                outvars.push(
                    match_axis(&mut cx, x, from, *to, size)
                        .map_err(|m| expression_error(span, m))?,
                );
            }
            (outvars, want.to_vec())
        }
    };
    b.jaxpr.outvars = outvars;
    Ok((b.jaxpr, dims))
}
