//! `fori_loop`: a loop whose body is a jaxpr of its own, run `upper -
//! lower` times on a carry. Emitted as a real Rust loop (the body fused like
//! any function), not unrolled. Forward mode carries the tangents through
//! the loop; reverse mode is not implemented yet.

use std::rc::Rc;

use super::{Lowering, Params, PrimDef, Shared};
use crate::ad::{Ad, JvpRule, Res, Wrt};
use crate::ir::{Atom, Aval, Jaxpr};

/// A loop body: inputs `(i, carry leaves.., invariants..)`, outputs the new
/// carry leaves.
#[derive(Debug)]
pub struct Loop {
    pub body: Jaxpr,
    pub n_carry: usize,
}

/// The jvp of a nested body, its inputs regrouped as the loop or branch
/// passes them: `lead` inputs without tangents (the fori index), then each
/// group of `in_groups` followed by its tangents; the outputs likewise by
/// `out_groups`. (`ad::jvp` puts every tangent after every primal.)
fn body_jvp(
    ad: &Ad,
    body: &Jaxpr,
    lead: usize,
    in_groups: &[usize],
    out_groups: &[usize],
) -> Res<Jaxpr> {
    let mut wrt = vec![false; lead];
    wrt.extend(std::iter::repeat_n(true, in_groups.iter().sum()));
    let mut jb =
        crate::ad::jvp(body, &Wrt { inputs: wrt }, ad.b.x64, ad.span).map_err(|e| e.to_string())?;
    jb.invars = with_tangents_after_groups(&jb.invars, lead, in_groups);
    jb.outvars = with_tangents_after_groups(&jb.outvars, 0, out_groups);
    Ok(jb)
}

/// `[lead.., g1.., g2.., t(g1).., t(g2)..]` as `[lead.., g1.., t(g1)..,
/// g2.., t(g2)..]`.
fn with_tangents_after_groups<T: Clone>(v: &[T], lead: usize, groups: &[usize]) -> Vec<T> {
    let n: usize = groups.iter().sum();
    let mut out = v[..lead].to_vec();
    let mut at = lead;
    for &g in groups {
        out.extend_from_slice(&v[at..at + g]);
        out.extend_from_slice(&v[at + n..at + n + g]);
        at += g;
    }
    out
}

/// Pushes the operands `ins[range]`, then their tangents (zeros where there
/// are none).
fn push_with_tangents(
    ad: &mut Ad,
    new_ins: &mut Vec<Atom>,
    ins: &[Atom],
    t: &[Option<Atom>],
    range: std::ops::Range<usize>,
) -> Res<()> {
    new_ins.extend(ins[range.clone()].iter().cloned());
    for k in range {
        new_ins.push(ad.tangent_or_zeros(&t[k], &ins[k])?);
    }
    Ok(())
}

/// Forward mode: the loop over `(carry, tangent carry)`, its body the jvp
/// of the body (the index has no tangent; loop-invariant operands bring
/// theirs in as invariants).
fn fori_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Loop(l) = p else { unreachable!() };
    let n_carry = l.0.n_carry;
    let body = &l.0.body;
    let n_inv = body.invars.len() - 1 - n_carry;
    let span = ad.span;
    let n_out = body.outvars.len();
    let jb = body_jvp(ad, body, 1, &[n_carry, n_inv], &[n_out])?;
    let mut new_ins = vec![ins[0].clone(), ins[1].clone()];
    push_with_tangents(ad, &mut new_ins, ins, t, 2..2 + n_carry)?;
    push_with_tangents(ad, &mut new_ins, ins, t, 2 + n_carry..ins.len())?;
    let params = Params::Loop(Shared(Rc::new(Loop {
        body: jb,
        n_carry: 2 * n_carry,
    })));
    let outs =
        ad.b.bind(&FORI_LOOP, params, new_ins, span)
            .map_err(|e| e.to_string())?;
    Ok(outs[n_carry..].iter().cloned().map(Some).collect())
}

pub static FORI_LOOP: PrimDef = PrimDef {
    name: "fori_loop",
    abstract_eval: |ops, p, _| match p {
        Params::Loop(l) => {
            let n = l.0.n_carry;
            if ops.len() < 2 + n {
                return Err("fori_loop needs its bounds and carry".into());
            }
            Ok(ops[2..2 + n]
                .iter()
                .map(|a| Aval {
                    weak: false,
                    ..a.clone()
                })
                .collect())
        }
        _ => Err("fori_loop needs its body".into()),
    },
    print_params: |_, p| match p {
        Params::Loop(l) => vec![(
            "body_jaxpr",
            format!("{{ {} equations }}", l.0.body.eqns.len()),
        )],
        _ => Vec::new(),
    },
    // Emitted by `Emitter::fori_loop`.
    lowering: Lowering::Kernel,
    jvp: Some(fori_jvp as JvpRule),
    transpose: None,
};

/// The branches of a `cond`: each takes `(operands.., its own invariants..)`.
#[derive(Debug)]
pub struct Cond {
    /// `[false branch, true branch]`, as `select_n` orders its cases.
    pub branches: [Jaxpr; 2],
    pub n_operands: usize,
    /// How many invariants the false branch reads (the true branch's follow).
    pub n_free_false: usize,
}

/// Forward mode: each branch's jvp, chosen by the same predicate.
fn cond_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Cond(c) = p else { unreachable!() };
    let c = &c.0;
    let n = c.n_operands;
    let span = ad.span;
    let frees = [
        (1 + n, 1 + n + c.n_free_false),
        (1 + n + c.n_free_false, ins.len()),
    ];
    let mut branches = Vec::new();
    for (b, body) in c.branches.iter().enumerate() {
        let n_free = frees[b].1 - frees[b].0;
        let n_out = body.outvars.len();
        branches.push(body_jvp(ad, body, 0, &[n, n_free], &[n_out])?);
    }
    let mut new_ins = vec![ins[0].clone()];
    push_with_tangents(ad, &mut new_ins, ins, t, 1..1 + n)?;
    for (from, to) in frees {
        push_with_tangents(ad, &mut new_ins, ins, t, from..to)?;
    }
    let [b0, b1]: [Jaxpr; 2] = branches.try_into().expect("two branches");
    let params = Params::Cond(Shared(Rc::new(Cond {
        branches: [b0, b1],
        n_operands: 2 * n,
        n_free_false: 2 * c.n_free_false,
    })));
    let all =
        ad.b.bind(&COND, params, new_ins, span)
            .map_err(|e| e.to_string())?;
    Ok(all[outs.len()..].iter().cloned().map(Some).collect())
}

pub static COND: PrimDef = PrimDef {
    name: "cond",
    abstract_eval: |_, p, _| match p {
        Params::Cond(c) => {
            let b = &c.0.branches[1];
            Ok(b.outvars.iter().map(|a| b.atom_aval(a).clone()).collect())
        }
        _ => Err("cond needs its branches".into()),
    },
    print_params: |_, p| match p {
        Params::Cond(c) => vec![(
            "branches",
            format!(
                "({{ {} equations }}, {{ {} equations }})",
                c.0.branches[0].eqns.len(),
                c.0.branches[1].eqns.len()
            ),
        )],
        _ => Vec::new(),
    },
    // Emitted by `Emitter::cond`.
    lowering: Lowering::Kernel,
    jvp: Some(cond_jvp as JvpRule),
    transpose: None,
};

/// A `while_loop`: `cond` takes `(carry.., its invariants..)` and returns a
/// bool; `body` takes `(carry.., its invariants..)` and returns the carry.
#[derive(Debug)]
pub struct While {
    pub cond: Jaxpr,
    pub body: Jaxpr,
    pub n_carry: usize,
    /// How many invariants `cond` reads (`body`'s follow).
    pub n_free_cond: usize,
}

/// Forward mode: the loop over `(carry, tangent carry)`; the condition reads
/// the primal carry only.
fn while_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::While(w) = p else { unreachable!() };
    let w = &w.0;
    let n = w.n_carry;
    let span = ad.span;
    let n_free_body = ins.len() - n - w.n_free_cond;
    let jb = body_jvp(ad, &w.body, 0, &[n, n_free_body], &[n])?;
    // The condition takes the tangent carry too, and ignores it.
    let mut cond = w.cond.clone();
    let tangent_vars: Vec<crate::ir::Var> = w.cond.invars[..n]
        .iter()
        .map(|v| cond.new_var(crate::ad::tangent_aval(w.cond.aval(*v))))
        .collect();
    let invars = cond.invars.clone();
    cond.invars = invars[..n]
        .iter()
        .copied()
        .chain(tangent_vars)
        .chain(invars[n..].iter().copied())
        .collect();
    let mut new_ins = Vec::new();
    push_with_tangents(ad, &mut new_ins, ins, t, 0..n)?;
    new_ins.extend(ins[n..n + w.n_free_cond].iter().cloned());
    push_with_tangents(ad, &mut new_ins, ins, t, n + w.n_free_cond..ins.len())?;
    let params = Params::While(Shared(Rc::new(While {
        cond,
        body: jb,
        n_carry: 2 * n,
        n_free_cond: w.n_free_cond,
    })));
    let outs =
        ad.b.bind(&WHILE, params, new_ins, span)
            .map_err(|e| e.to_string())?;
    Ok(outs[n..].iter().cloned().map(Some).collect())
}

pub static WHILE: PrimDef = PrimDef {
    name: "while",
    abstract_eval: |ops, p, _| match p {
        Params::While(w) => Ok(ops[..w.0.n_carry]
            .iter()
            .map(|a| Aval {
                weak: false,
                ..a.clone()
            })
            .collect()),
        _ => Err("while needs its condition and body".into()),
    },
    print_params: |_, p| match p {
        Params::While(w) => vec![
            (
                "cond_jaxpr",
                format!("{{ {} equations }}", w.0.cond.eqns.len()),
            ),
            (
                "body_jaxpr",
                format!("{{ {} equations }}", w.0.body.eqns.len()),
            ),
        ],
        _ => Vec::new(),
    },
    // Emitted by `Emitter::while_loop`.
    lowering: Lowering::Kernel,
    jvp: Some(while_jvp as JvpRule),
    transpose: None,
};

/// A `scan`: the body takes `(carry.., x rows.., invariants..)` and
/// returns `(carry.., y rows..)`; the ys are stacked along a new leading
/// axis of `length`.
#[derive(Debug)]
pub struct Scan {
    pub body: Jaxpr,
    pub n_carry: usize,
    pub n_xs: usize,
    pub length: usize,
    pub reverse: bool,
}

/// The outputs of a scan: the carry, then each y stacked.
fn scan_avals(s: &Scan) -> Vec<Aval> {
    let b = &s.body;
    b.outvars
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let aval = b.atom_aval(a);
            if k < s.n_carry {
                Aval {
                    weak: false,
                    ..aval.clone()
                }
            } else {
                let mut shape = vec![crate::ir::Dim::Lit(s.length)];
                shape.extend(aval.shape.iter().cloned());
                Aval {
                    dtype: aval.dtype,
                    shape,
                    weak: false,
                }
            }
        })
        .collect()
}

/// Forward mode: a scan over `(carry, tangent carry)` and `(x, tangent x)`,
/// its body the jvp of the body.
fn scan_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Scan(s) = p else { unreachable!() };
    let s = &s.0;
    let (nc, nx) = (s.n_carry, s.n_xs);
    let nf = ins.len() - nc - nx;
    let n_ys = s.body.outvars.len() - nc;
    let span = ad.span;
    let jb = body_jvp(ad, &s.body, 0, &[nc, nx, nf], &[nc, n_ys])?;
    let mut new_ins = Vec::new();
    for (from, len) in [(0, nc), (nc, nx), (nc + nx, nf)] {
        push_with_tangents(ad, &mut new_ins, ins, t, from..from + len)?;
    }
    let params = Params::Scan(Shared(Rc::new(Scan {
        body: jb,
        n_carry: 2 * nc,
        n_xs: 2 * nx,
        length: s.length,
        reverse: s.reverse,
    })));
    let outs =
        ad.b.bind(&SCAN, params, new_ins, span)
            .map_err(|e| e.to_string())?;
    let carry_t = outs[nc..2 * nc].to_vec();
    let ys_t = outs[2 * nc + n_ys..].to_vec();
    Ok(carry_t.into_iter().chain(ys_t).map(Some).collect())
}

pub static SCAN: PrimDef = PrimDef {
    name: "scan",
    abstract_eval: |_, p, _| match p {
        Params::Scan(s) => Ok(scan_avals(&s.0)),
        _ => Err("scan needs its body".into()),
    },
    print_params: |_, p| match p {
        Params::Scan(s) => vec![
            ("jaxpr", format!("{{ {} equations }}", s.0.body.eqns.len())),
            ("length", s.0.length.to_string()),
            ("reverse", if s.0.reverse { "True" } else { "False" }.into()),
        ],
        _ => Vec::new(),
    },
    // Emitted by `Emitter::scan`.
    lowering: Lowering::Kernel,
    jvp: Some(scan_jvp as JvpRule),
    transpose: None,
};
