//! Simplification of a traced jaxpr before emission: algebraic identities,
//! constant folding, common subexpressions and dead code. The printed jaxpr
//! (`f::jaxpr()`) is the traced one, as `jax.make_jaxpr` shows what was
//! traced; only the emitted code sees these rewrites.

use std::collections::{HashMap, HashSet};

use crate::ir::{Atom, Eqn, Jaxpr, Var};
use crate::prims::Params;

/// All rewrites, until nothing changes.
pub fn simplify(j: &mut Jaxpr) {
    *j = crate::prims::inline_calls(j);
    rewrites(j);
    hoist_loop_invariants(j);
    crate::transform::scan_sums::contract_scan_sums(j);
    loop {
        let before = j.eqns.len();
        forward_identities(j);
        cse(j);
        dce(j);
        if j.eqns.len() == before {
            break;
        }
    }
}

/// Replaces equations that compute one of their operands (`x * 1`, `x + 0`,
/// `stop_gradient x`, a conversion to the same dtype, `transpose` of
/// `transpose` back to the identity) by that operand.
fn forward_identities(j: &mut Jaxpr) {
    let mut subst: HashMap<Var, Atom> = HashMap::new();
    let mut producers: HashMap<Var, usize> = HashMap::new();
    for k in 0..j.eqns.len() {
        for a in &mut j.eqns[k].ins {
            if let Atom::Var(v) = a {
                if let Some(r) = subst.get(v) {
                    *a = r.clone();
                }
            }
        }
        let e = &j.eqns[k];
        let out = e.outs[0];
        let out_aval = j.aval(out).clone();
        let producer = |v: Var| producers.get(&v).map(|&p| &j.eqns[p]);
        let forward = e.prim.forward.and_then(|rule| rule(j, e, &producer));
        match forward {
            // The weak flag is part of the type: keep equations that change it.
            Some(a) if j.atom_aval(&a).weak == out_aval.weak => {
                subst.insert(out, a);
            }
            _ => {
                producers.insert(out, k);
            }
        }
    }
    for a in &mut j.outvars {
        if let Atom::Var(v) = a {
            if let Some(r) = subst.get(v) {
                *a = r.clone();
            }
        }
    }
    let removed: HashSet<Var> = subst.keys().copied().collect();
    j.eqns.retain(|e| !removed.contains(&e.outs[0]));
}

/// Each primitive's algebraic rewrite ([`crate::prims::PrimDef::rewrite`]),
/// one primitive at a time in [`crate::prims::all`]'s order.
fn rewrites(j: &mut Jaxpr) {
    for &p in crate::prims::all() {
        let Some(rule) = p.rewrite else { continue };
        if !j.eqns.iter().any(|e| e.prim == p) {
            continue;
        }
        // Where each variable was computed, for rules that look at an
        // operand's producer.
        let mut producer: HashMap<Var, usize> = HashMap::new();
        let mut out: Vec<Eqn> = Vec::with_capacity(j.eqns.len());
        for e in std::mem::take(&mut j.eqns) {
            let new = if e.prim == p {
                let lookup = |v: Var| producer.get(&v).map(|&k| &out[k]);
                rule(j, &e, &lookup)
            } else {
                None
            };
            for e in new.unwrap_or_else(|| vec![e]) {
                for v in &e.outs {
                    producer.insert(*v, out.len());
                }
                out.push(e);
            }
        }
        j.eqns = out;
    }
}

/// The same primitive with the same parameters on the same operands is computed once.
fn cse(j: &mut Jaxpr) {
    let mut seen: HashMap<String, Var> = HashMap::new();
    let mut subst: HashMap<Var, Var> = HashMap::new();
    let mut keep = Vec::with_capacity(j.eqns.len());
    for mut e in std::mem::take(&mut j.eqns) {
        for a in &mut e.ins {
            if let Atom::Var(v) = a {
                if let Some(r) = subst.get(v) {
                    *v = *r;
                }
            }
        }
        let key = format!("{} {:?} {:?}", e.prim.name, e.params, e.ins);
        if e.outs.len() == 1 && e.prim.lowering != crate::prims::Lowering::Effect {
            if let Some(&prev) = seen.get(&key) {
                if j.avals[prev.0 as usize] == j.avals[e.outs[0].0 as usize] {
                    subst.insert(e.outs[0], prev);
                    continue;
                }
            }
            seen.insert(key, e.outs[0]);
        }
        keep.push(e);
    }
    j.eqns = keep;
    for a in &mut j.outvars {
        if let Atom::Var(v) = a {
            if let Some(r) = subst.get(v) {
                *v = *r;
            }
        }
    }
}

/// Loop-invariant code motion: the equations of a `scan` or `while` body
/// that read only the loop's invariants and constants run once, before the
/// loop, and their results become invariants. Index maps (broadcasts,
/// reshapes) move only when a moved equation reads them: on their own they
/// cost nothing in the body, where they fuse, and would be stored outside.
fn hoist_loop_invariants(j: &mut Jaxpr) {
    for e in std::mem::take(&mut j.eqns) {
        let first = match &e.params {
            Params::Scan(s) => s.0.n_carry + s.0.n_xs,
            Params::While(w) => w.0.n_carry,
            _ => {
                j.eqns.push(e);
                continue;
            }
        };
        let body = match &e.params {
            Params::Scan(s) => &s.0.body,
            Params::While(w) => &w.0.body,
            _ => unreachable!(),
        };
        // The eqn's operands feeding the body's invariants.
        let outer_of: Vec<Atom> = match &e.params {
            Params::Scan(_) => e.ins[first..].to_vec(),
            Params::While(w) => e.ins[first + w.0.n_free_cond..].to_vec(),
            _ => unreachable!(),
        };
        let Some((new_body, new_ins)) = hoist_from(j, body, first, &outer_of) else {
            j.eqns.push(e);
            continue;
        };
        let mut e = e;
        e.ins.extend(new_ins);
        e.params = match &e.params {
            Params::Scan(s) => {
                Params::Scan(crate::prims::Shared(std::rc::Rc::new(crate::prims::Scan {
                    body: new_body,
                    n_carry: s.0.n_carry,
                    n_xs: s.0.n_xs,
                    length: s.0.length,
                    reverse: s.0.reverse,
                })))
            }
            Params::While(w) => Params::While(crate::prims::Shared(std::rc::Rc::new(
                crate::prims::While {
                    cond: w.0.cond.clone(),
                    body: new_body,
                    n_carry: w.0.n_carry,
                    n_free_cond: w.0.n_free_cond,
                },
            ))),
            _ => unreachable!(),
        };
        j.eqns.push(e);
    }
}

/// Moves the invariant equations of `body` (inputs from `first` on are
/// invariants, fed by `outer_of`) into `j`, which is being rebuilt: returns
/// the body without them, taking their results as new invariants, and the
/// atoms of `j` to pass for those; `None` when nothing moves.
fn hoist_from(
    j: &mut Jaxpr,
    body: &Jaxpr,
    first: usize,
    outer_of: &[Atom],
) -> Option<(Jaxpr, Vec<Atom>)> {
    let mut invariant: HashSet<Var> = body.invars[first..].iter().copied().collect();
    invariant.extend(body.constvars.iter().map(|(v, _)| *v));
    let reads_invariants = |e: &Eqn, inv: &HashSet<Var>| {
        e.ins.iter().all(|a| match a {
            Atom::Var(v) => inv.contains(v),
            Atom::Lit(_) => true,
        })
    };
    let mut candidate = vec![false; body.eqns.len()];
    for (k, e) in body.eqns.iter().enumerate() {
        if reads_invariants(e, &invariant) && e.prim.lowering != crate::prims::Lowering::Effect {
            candidate[k] = true;
            invariant.extend(e.outs.iter().copied());
        }
    }
    // Move the candidates that compute something, and the index maps they read.
    let mut moved = vec![false; body.eqns.len()];
    let mut needed: HashSet<Var> = HashSet::new();
    for (k, e) in body.eqns.iter().enumerate().rev() {
        let computes = e.prim.lowering != crate::prims::Lowering::IndexMap;
        if candidate[k] && (computes || e.outs.iter().any(|o| needed.contains(o))) {
            moved[k] = true;
            for a in &e.ins {
                if let Atom::Var(v) = a {
                    needed.insert(*v);
                }
            }
        }
    }
    if !moved.contains(&true) {
        return None;
    }
    // The moved equations, renamed into `j`.
    let mut env: HashMap<Var, Atom> = HashMap::new();
    for (v, a) in body.invars[first..].iter().zip(outer_of) {
        env.insert(*v, a.clone());
    }
    for (v, values) in &body.constvars {
        if needed.contains(v) {
            let c = j.new_var(body.aval(*v).clone());
            j.constvars.push((c, values.clone()));
            env.insert(*v, Atom::Var(c));
        }
    }
    let mut kept = Vec::new();
    for (k, e) in body.eqns.iter().enumerate() {
        if !moved[k] {
            kept.push(e.clone());
            continue;
        }
        let ins = e
            .ins
            .iter()
            .map(|a| match a {
                Atom::Var(v) => env[v].clone(),
                lit => lit.clone(),
            })
            .collect();
        let outs: Vec<Var> = e
            .outs
            .iter()
            .map(|o| {
                let n = j.new_var(body.aval(*o).clone());
                env.insert(*o, Atom::Var(n));
                n
            })
            .collect();
        j.eqns.push(Eqn {
            prim: e.prim,
            params: e.params.clone(),
            ins,
            outs,
            span: e.span,
        });
    }
    // Moved results the body still reads become invariants.
    let mut read: HashSet<Var> = HashSet::new();
    for a in kept.iter().flat_map(|e| &e.ins).chain(&body.outvars) {
        if let Atom::Var(v) = a {
            read.insert(*v);
        }
    }
    let mut new_body = body.clone();
    new_body.eqns = kept;
    let mut new_ins = Vec::new();
    for (k, e) in body.eqns.iter().enumerate() {
        if moved[k] {
            for o in &e.outs {
                if read.contains(o) {
                    new_body.invars.push(*o);
                    new_ins.push(env[o].clone());
                }
            }
        }
    }
    Some((new_body, new_ins))
}

/// Equations whose results are never used are dropped.
pub fn dce(j: &mut Jaxpr) {
    let mut live: HashSet<Var> = j
        .outvars
        .iter()
        .filter_map(|a| if let Atom::Var(v) = a { Some(*v) } else { None })
        .collect();
    let mut keep: Vec<Eqn> = Vec::with_capacity(j.eqns.len());
    for e in std::mem::take(&mut j.eqns).into_iter().rev() {
        let effect = e.prim.lowering == crate::prims::Lowering::Effect;
        if effect || e.outs.iter().any(|o| live.contains(o)) {
            for a in &e.ins {
                if let Atom::Var(v) = a {
                    live.insert(*v);
                }
            }
            keep.push(e);
        }
    }
    keep.reverse();
    j.eqns = keep;
}
