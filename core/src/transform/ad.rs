//! Automatic differentiation on jaxprs, as JAX does it (`ad.py`,
//! autodidax): forward mode runs each primitive's jvp rule beside it;
//! reverse mode is forward mode, then partial evaluation (equations that
//! touch a tangent are linear, the rest is the forward pass), then the
//! linear equations transposed in reverse order. Every transformation
//! returns a jaxpr, so derivatives go through simplify, fusion and emission
//! like any function. The rules live with their primitives (`prims/`).

use std::collections::{HashMap, HashSet};

use proc_macro2::Span;

use crate::ir::builder::{read, Builder};
pub use crate::ir::rules::{tangent_aval, Wrt};
use crate::ir::rules::{Ad, Ctx, Split, Transforms};
use crate::ir::{Atom, Aval, Jaxpr, Scalar, Var};

/// This transformation, as rules of primitives holding programs apply it.
static TRANSFORMS: Transforms = Transforms {
    jvp,
    linearize,
    transpose,
};

fn rule_error(span: Span, msg: String) -> crate::Error {
    crate::ir::builder::expression_error(span, msg)
}

/// The primal equations of `j` with their jvp rules, into `b`: returns the
/// primal outputs and their tangents. `inputs` are `j`'s inputs in `b`,
/// `tangents` theirs.
fn jvp_into(
    j: &Jaxpr,
    b: &mut Builder,
    inputs: &[Atom],
    tangents: &[Option<Atom>],
    linearize: bool,
) -> crate::Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    let mut env: HashMap<Var, Atom> = HashMap::new();
    let mut tan: HashMap<Var, Atom> = HashMap::new();
    b.copy_constants(j, &mut env);
    for ((v, a), t) in j.invars.iter().zip(inputs).zip(tangents) {
        env.insert(*v, a.clone());
        if let Some(t) = t {
            tan.insert(*v, t.clone());
        }
    }
    for e in &j.eqns {
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
        let tins: Vec<Option<Atom>> = e
            .ins
            .iter()
            .map(|a| match a {
                Atom::Var(v) => tan.get(v).cloned(),
                Atom::Lit(_) => None,
            })
            .collect();
        let primal_at = b.jaxpr.eqns.len();
        let outs = b.bind(e.prim, e.params.clone(), ins.clone(), e.span)?;
        for (v, a) in e.outs.iter().zip(&outs) {
            env.insert(*v, a.clone());
        }
        if tins.iter().all(Option::is_none) {
            continue;
        }
        let Some(rule) = e.prim.jvp else {
            return Err(rule_error(
                e.span,
                format!("differentiating `{}` is not supported yet", e.prim.name),
            ));
        };
        let mut ad = Ad::new(b, e.span, &TRANSFORMS);
        ad.linearize = linearize;
        let touts =
            rule(&mut ad, &ins, &tins, &e.params, &outs).map_err(|m| rule_error(e.span, m))?;
        if let Some(new) = ad.replaced_outs.take() {
            for (v, a) in e.outs.iter().zip(new) {
                env.insert(*v, a);
            }
            // The primal equation the rule replaced, when nothing reads it:
            // gone before emission (dead code), but the `jax_debug_nans`
            // replay runs the traced program as it is.
            let read = b.jaxpr.eqns[primal_at + 1..]
                .iter()
                .flat_map(|e| &e.ins)
                .any(|a| outs.contains(a));
            if !read {
                b.jaxpr.eqns.remove(primal_at);
            }
        }
        for (v, t) in e.outs.iter().zip(touts) {
            if let Some(t) = t {
                tan.insert(*v, t);
            }
        }
    }
    let outs: Vec<Atom> = j.outvars.iter().map(|a| read(&env, a)).collect();
    let touts = j
        .outvars
        .iter()
        .map(|a| match a {
            Atom::Var(v) => tan.get(v).cloned(),
            Atom::Lit(_) => None,
        })
        .collect();
    Ok((outs, touts))
}

/// Zeros where a tangent or cotangent is absent.
fn or_zeros(b: &mut Builder, t: Option<Atom>, aval: &Aval, span: Span) -> crate::Result<Atom> {
    match t {
        Some(t) => Ok(t),
        None => {
            let mut ad = Ctx::new(b, span);
            ad.zeros(&tangent_aval(aval))
                .map_err(|m| rule_error(span, m))
        }
    }
}

/// Forward mode: a jaxpr taking the primals, then a tangent per input in
/// `wrt`, and returning the outputs, then their tangents.
pub fn jvp(j: &Jaxpr, wrt: &Wrt, x64: bool, span: Span) -> crate::Result<Jaxpr> {
    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = b.inputs_like(j);
    let tangents: Vec<Option<Atom>> = j
        .invars
        .iter()
        .zip(&wrt.inputs)
        .map(|(v, &w)| w.then(|| b.input(tangent_aval(j.aval(*v)))))
        .collect();
    // Integer inputs take a tangent (the signature asks for one) but have no
    // derivative.
    let used: Vec<Option<Atom>> = tangents
        .iter()
        .map(|t| t.clone().filter(|t| b.aval(t).dtype.is_inexact()))
        .collect();
    let (outs, touts) = jvp_into(j, &mut b, &inputs, &used, false)?;
    if let Some((e, msg)) = b
        .jaxpr
        .eqns
        .iter()
        .find_map(|e| Some((e, e.prim.transpose_only?)))
    {
        return Err(rule_error(e.span, msg.into()));
    }
    let mut outvars = outs.clone();
    for (o, t) in outs.iter().zip(touts) {
        let aval = b.aval(o);
        outvars.push(or_zeros(&mut b, t, &aval, span)?);
    }
    b.jaxpr.outvars = outvars;
    Ok(b.jaxpr)
}

/// How reverse mode seeds the output cotangents.
pub enum Seed {
    /// One cotangent input per output, after the primals (`vjp`).
    Inputs,
    /// The single (scalar) output's cotangent is 1 (`grad`).
    One,
}

/// Reverse mode: a jaxpr taking the primals (then the output cotangents, for
/// [`Seed::Inputs`]) and returning the outputs, then the cotangent of every
/// input in `wrt`. The forward equations come first, then the transposed
/// linear ones.
pub fn vjp(j: &Jaxpr, wrt: &Wrt, seed: Seed, x64: bool, span: Span) -> crate::Result<Jaxpr> {
    let has_tangent: Vec<bool> = j
        .invars
        .iter()
        .zip(&wrt.inputs)
        .map(|(v, &w)| w && j.aval(*v).dtype.is_inexact())
        .collect();
    let split = linearize(j, &has_tangent, x64, span)?;
    let n_out = j.outvars.len();
    let mut linear_in = vec![false; split.n_res];
    linear_in.extend(has_tangent.iter().filter(|&&t| t).map(|_| true));
    let ct_given: Vec<bool> = match seed {
        Seed::Inputs => vec![true; n_out],
        Seed::One => (0..n_out).map(|k| k == 0).collect(),
    };
    let back = transpose(&split.linear, &linear_in, &ct_given, x64, span)?;

    let mut b = Builder::new(x64);
    let inputs: Vec<Atom> = b.inputs_like(j);
    let known = b.inline(&split.known, &inputs)?;
    let (primal_outs, residuals) = known.split_at(n_out);
    let mut args = residuals.to_vec();
    match seed {
        Seed::Inputs => {
            for o in primal_outs {
                let aval = tangent_aval(&b.aval(o));
                args.push(b.input(aval));
            }
        }
        Seed::One => {
            let aval = tangent_aval(&b.aval(&primal_outs[0]));
            let one = Ctx::new(&mut b, span)
                .full(1.0, &aval)
                .map_err(|m| rule_error(span, m))?;
            args.push(one);
        }
    }
    let mut in_cts = b.inline(&back, &args)?.into_iter();
    let mut outvars = primal_outs.to_vec();
    for (i, v) in j.invars.iter().enumerate() {
        if !wrt.inputs[i] {
            continue;
        }
        let c = if has_tangent[i] { in_cts.next() } else { None };
        outvars.push(or_zeros(&mut b, c, j.aval(*v), span)?);
    }
    b.jaxpr.outvars = outvars;
    Ok(b.jaxpr)
}

/// Linearizes `j` at its inputs: forward mode with a tangent input for each
/// input in `has_tangent`, then partial evaluation (an equation reading a
/// tangent is linear, the rest is the forward pass). Residuals are the
/// forward values the linear equations read.
pub fn linearize(j: &Jaxpr, has_tangent: &[bool], x64: bool, span: Span) -> crate::Result<Split> {
    let mut lin = Builder::new(x64);
    let inputs: Vec<Atom> = j
        .invars
        .iter()
        .map(|v| lin.input(j.aval(*v).clone()))
        .collect();
    let tangent_ins: Vec<Atom> = j
        .invars
        .iter()
        .zip(has_tangent)
        .filter(|(_, &t)| t)
        .map(|(v, _)| lin.input(tangent_aval(j.aval(*v))))
        .collect();
    let mut given = tangent_ins.iter();
    let tangents: Vec<Option<Atom>> = j
        .invars
        .iter()
        .zip(has_tangent)
        .map(|(v, &t)| {
            let a = if t { given.next().cloned() } else { None };
            // Integer inputs take a tangent but have no derivative.
            a.filter(|_| j.aval(*v).dtype.is_inexact())
        })
        .collect();
    let (outs, touts) = jvp_into(j, &mut lin, &inputs, &tangents, true)?;
    let lj = lin.jaxpr;
    let var = |a: &Atom| match a {
        Atom::Var(v) => *v,
        Atom::Lit(_) => unreachable!("inputs are variables"),
    };
    let mut linear: HashSet<Var> = tangent_ins.iter().map(var).collect();
    let is_linear = mark_linear(&lj, &mut linear);
    let consts: HashMap<Var, &Vec<Scalar>> = lj.constvars.iter().map(|(v, x)| (*v, x)).collect();

    // The forward pass.
    let mut kb = Builder::new(x64);
    let mut env: HashMap<Var, Atom> = HashMap::new();
    for a in &inputs {
        env.insert(var(a), kb.input(lj.atom_aval(a).clone()));
    }
    for (v, values) in &lj.constvars {
        env.insert(*v, kb.constant(lj.aval(*v).clone(), values.clone()));
    }
    for (k, e) in lj.eqns.iter().enumerate() {
        if is_linear[k] {
            continue;
        }
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
        let new = kb.bind(e.prim, e.params.clone(), ins, e.span)?;
        for (v, a) in e.outs.iter().zip(new) {
            env.insert(*v, a);
        }
    }

    // The residuals: forward variables the linear side reads.
    let mut residuals: Vec<Var> = Vec::new();
    let mut is_residual: HashSet<Var> = HashSet::new();
    let linear_reads = lj
        .eqns
        .iter()
        .zip(&is_linear)
        .filter(|(_, &l)| l)
        .flat_map(|(e, _)| e.ins.iter())
        .chain(touts.iter().flatten());
    for a in linear_reads {
        if let Atom::Var(v) = a {
            if !linear.contains(v) && !consts.contains_key(v) && is_residual.insert(*v) {
                residuals.push(*v);
            }
        }
    }

    // The linear side, on the residuals and the tangents.
    let mut lb = Builder::new(x64);
    let mut lenv: HashMap<Var, Atom> = HashMap::new();
    for v in &residuals {
        lenv.insert(*v, lb.input(lj.aval(*v).clone()));
    }
    for a in &tangent_ins {
        lenv.insert(var(a), lb.input(lj.atom_aval(a).clone()));
    }
    for (v, values) in &lj.constvars {
        lenv.insert(*v, lb.constant(lj.aval(*v).clone(), values.clone()));
    }
    for (k, e) in lj.eqns.iter().enumerate() {
        if !is_linear[k] {
            continue;
        }
        let ins: Vec<Atom> = e.ins.iter().map(|a| read(&lenv, a)).collect();
        let new = lb.bind(e.prim, e.params.clone(), ins, e.span)?;
        for (v, a) in e.outs.iter().zip(new) {
            lenv.insert(*v, a);
        }
    }
    let mut louts = Vec::new();
    for (o, t) in outs.iter().zip(touts) {
        let t = t.map(|t| read(&lenv, &t));
        louts.push(or_zeros(&mut lb, t, lj.atom_aval(o), span)?);
    }
    lb.jaxpr.outvars = louts;

    // A primal output computed on the linear side comes from an equation
    // whose tangent half could not be split off.
    for o in &outs {
        if let Atom::Var(v) = o {
            if let Some(e) = lj
                .eqns
                .iter()
                .find(|e| e.outs.contains(v) && linear.contains(v))
            {
                return Err(rule_error(e.span, not_transposable(e)));
            }
        }
    }
    kb.jaxpr.outvars = outs
        .iter()
        .map(|a| read(&env, a))
        .chain(residuals.iter().map(|v| env[v].clone()))
        .collect();
    Ok(Split {
        known: kb.jaxpr,
        linear: lb.jaxpr,
        n_res: residuals.len(),
    })
}

/// Partial evaluation's split: an equation reading a linear value is
/// linear, and so are its results (added to `linear`).
fn mark_linear(j: &Jaxpr, linear: &mut HashSet<Var>) -> Vec<bool> {
    j.eqns
        .iter()
        .map(|e| {
            let l = e
                .ins
                .iter()
                .any(|a| matches!(a, Atom::Var(v) if linear.contains(v)));
            if l {
                linear.extend(e.outs.iter().copied());
            }
            l
        })
        .collect()
}

/// Why a linear equation can't be transposed.
fn not_transposable(e: &crate::ir::Eqn) -> String {
    match e.prim.no_transpose {
        Some(why) => why.to_string(),
        None => format!(
            "reverse-mode differentiation of `{}` is not supported yet (forward mode, `jvp`, is)",
            e.prim.name
        ),
    }
}

/// The transpose of a program linear in the inputs marked `linear_in`: a
/// jaxpr taking the other inputs (in order), then a cotangent for each
/// output in `ct_given`, and returning the cotangent of each linear input
/// (zeros where none reaches it). Equations that read no linear value run
/// forward first; the linear ones are transposed last first.
pub fn transpose(
    lin: &Jaxpr,
    linear_in: &[bool],
    ct_given: &[bool],
    x64: bool,
    span: Span,
) -> crate::Result<Jaxpr> {
    let mut b = Builder::new(x64);
    let mut env: HashMap<Var, Atom> = HashMap::new();
    b.copy_constants(lin, &mut env);
    let mut linear: HashSet<Var> = HashSet::new();
    for (v, &l) in lin.invars.iter().zip(linear_in) {
        if l {
            linear.insert(*v);
        } else {
            env.insert(*v, b.input(lin.aval(*v).clone()));
        }
    }
    let is_linear = mark_linear(lin, &mut linear);
    for (k, e) in lin.eqns.iter().enumerate() {
        if !is_linear[k] {
            let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
            let new = b.bind(e.prim, e.params.clone(), ins, e.span)?;
            for (v, a) in e.outs.iter().zip(new) {
                env.insert(*v, a);
            }
        }
    }
    let mut ct: HashMap<Var, Atom> = HashMap::new();
    for (o, &given) in lin.outvars.iter().zip(ct_given) {
        if !given {
            continue;
        }
        let c = b.input(tangent_aval(lin.atom_aval(o)));
        if let Atom::Var(v) = o {
            if linear.contains(v) {
                accumulate(&mut b, &mut ct, *v, c, span)?;
            }
        }
    }
    for (k, e) in lin.eqns.iter().enumerate().rev() {
        if !is_linear[k] {
            continue;
        }
        let cts: Vec<Option<Atom>> = e.outs.iter().map(|v| ct.remove(v)).collect();
        if cts.iter().all(Option::is_none) {
            continue;
        }
        let Some(rule) = e.prim.transpose else {
            return Err(rule_error(e.span, not_transposable(e)));
        };
        let ins: Vec<Option<Atom>> = e
            .ins
            .iter()
            .map(|a| match a {
                Atom::Var(v) if linear.contains(v) => None,
                a => Some(read(&env, a)),
            })
            .collect();
        let avals: Vec<Aval> = e.ins.iter().map(|a| lin.atom_aval(a).clone()).collect();
        let mut ad = Ad::new(&mut b, e.span, &TRANSFORMS);
        let in_cts =
            rule(&mut ad, &cts, &ins, &avals, &e.params).map_err(|m| rule_error(e.span, m))?;
        for (a, c) in e.ins.iter().zip(in_cts) {
            if let (Atom::Var(v), Some(c)) = (a, c) {
                if linear.contains(v) {
                    accumulate(&mut b, &mut ct, *v, c, e.span)?;
                }
            }
        }
    }
    let mut outvars = Vec::new();
    for (v, &l) in lin.invars.iter().zip(linear_in) {
        if l {
            let c = ct.remove(v);
            outvars.push(or_zeros(&mut b, c, lin.aval(*v), span)?);
        }
    }
    b.jaxpr.outvars = outvars;
    Ok(b.jaxpr)
}

/// Adds a cotangent contribution for `v`.
fn accumulate(
    b: &mut Builder,
    ct: &mut HashMap<Var, Atom>,
    v: Var,
    c: Atom,
    span: Span,
) -> crate::Result<()> {
    let c = match ct.remove(&v) {
        None => c,
        Some(prev) => Ctx::new(b, span)
            .add(prev, c)
            .map_err(|m| rule_error(span, m))?,
    };
    ct.insert(v, c);
    Ok(())
}

/// The gradient program: same inputs, the gradient with respect to input
/// `arg` of the (scalar) first output.
pub fn grad(j: &Jaxpr, arg: usize, x64: bool, span: Span) -> crate::Result<Jaxpr> {
    let mut wrt = vec![false; j.invars.len()];
    wrt[arg] = true;
    let mut g = vjp(j, &Wrt { inputs: wrt }, Seed::One, x64, span)?;
    let n_out = j.outvars.len();
    g.outvars.drain(..n_out);
    Ok(g)
}
