//! Loops: `while` and `scan`, each body a jaxpr of its own, emitted as a
//! real Rust loop (the body fused like any function), not unrolled. A
//! `fori_loop` is a `scan` carrying its index when its bounds are static
//! (so reverse mode can store each step's residuals) and a `while` when
//! they are traced, as JAX lowers it. Forward mode carries the tangents
//! through the loop; reverse mode runs a scan's transposed body backwards.
//! The helpers here serve `cond` too.

use std::rc::Rc;

use super::{Ad, BDim, Batch, Ctx, JvpRule, Res, TransposeRule};
use super::{Lowering, Params, PrimDef, Printed, Scan, Shared, While, NESTED};
use crate::ir::builder::Builder;
use crate::ir::rules::{BatchRule, Split, Wrt};
use crate::ir::{Atom, Aval, Jaxpr};

/// The jvp of a nested body, its inputs regrouped as the loop or branch
/// passes them: `lead` inputs without tangents (the fori index), then each
/// group of `in_groups` followed by its tangents; the outputs likewise by
/// `out_groups`. (`ad::jvp` puts every tangent after every primal.)
pub(super) fn body_jvp(
    ad: &Ad,
    body: &Jaxpr,
    lead: usize,
    in_groups: &[usize],
    out_groups: &[usize],
) -> Res<Jaxpr> {
    let mut wrt = vec![false; lead];
    wrt.extend(std::iter::repeat_n(true, in_groups.iter().sum()));
    let mut jb = (ad.transforms.jvp)(body, &Wrt { inputs: wrt }, ad.b.x64, ad.span)
        .map_err(|e| e.to_string())?;
    jb.invars = with_tangents_after_groups(&jb.invars, lead, in_groups);
    jb.outvars = with_tangents_after_groups(&jb.outvars, 0, out_groups);
    Ok(jb)
}

/// `[lead.., g1.., g2.., t(g1).., t(g2)..]` as `[lead.., g1.., t(g1)..,
/// g2.., t(g2)..]`.
pub(super) fn with_tangents_after_groups<T: Clone>(
    v: &[T],
    lead: usize,
    groups: &[usize],
) -> Vec<T> {
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
pub(super) fn push_with_tangents(
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
        .map(|v| cond.new_var(crate::ir::rules::tangent_aval(w.cond.aval(*v))))
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

/// The carries batched at a fixed point of `body` (JAX's loop batching
/// rules): a carry the body makes batched from batched carries and
/// invariants must be batched on entry too. `rest` are the batch axes of
/// the body's inputs after the carries; a batched carry goes in on axis 0.
fn carry_fixed_point(
    bx: &Batch,
    body: &mut Batched,
    init: Vec<bool>,
    rest: &[BDim],
) -> Res<(Vec<bool>, Vec<BDim>)> {
    let n = init.len();
    let mut carry = init;
    for _ in 0..=n {
        let mut in_dims: Vec<BDim> = carry.iter().map(|&b| b.then_some(0)).collect();
        in_dims.extend_from_slice(rest);
        let (_, out) = body.natural(bx, &in_dims)?;
        let next: Vec<bool> = carry
            .iter()
            .zip(&out)
            .map(|(c, o)| *c || o.is_some())
            .collect();
        if next == carry {
            return Ok((carry, out[n..].to_vec()));
        }
        carry = next;
    }
    unreachable!("each round batches another carry")
}

/// `vmap` of a `while` (JAX's `_while_loop_batching_rule`): the carries
/// batched to a fixed point. When the predicate is then shared, every
/// batched carry keeps its lanes on the axis after the predicate's own
/// (an outer `vmap` of a loop whose predicate is already per lane); when it
/// is per lane, every carry is batched on axis 0, and the loop runs while
/// any lane's predicate holds, each lane keeping its carry once its own
/// fails (`while_any_lane`, at emission).
fn while_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::While(w) = p else { unreachable!() };
    let w = &w.0;
    let (n, ncf) = (w.n_carry, w.n_free_cond);
    let (cconst_dims, bconst_dims) = (&dims[n..n + ncf], &dims[n + ncf..]);
    let init_bat: Vec<bool> = dims[..n].iter().map(Option::is_some).collect();
    let (mut wbody, mut wcond) = (Batched::new(&w.body), Batched::new(&w.cond));
    let (carry_bat, _) = carry_fixed_point(bx, &mut wbody, init_bat, bconst_dims)?;
    let mut cond_dims: Vec<BDim> = carry_bat.iter().map(|&b| b.then_some(0)).collect();
    cond_dims.extend_from_slice(cconst_dims);
    let (_, pred) = wcond.natural(bx, &cond_dims)?;
    let (carry_dims, pred_dim): (Vec<BDim>, BDim) = if pred[0].is_some() {
        (vec![Some(0); n], Some(0))
    } else {
        let rank = w.cond.atom_aval(&w.cond.outvars[0]).rank();
        (carry_bat.iter().map(|&b| b.then_some(rank)).collect(), None)
    };
    let with = |rest: &[BDim]| [&carry_dims[..], rest].concat();
    let body = wbody.forced(bx, &with(bconst_dims), &carry_dims)?;
    let cond = wcond.forced(bx, &with(cconst_dims), &[pred_dim])?;
    let mut new_ins = Vec::new();
    for ((x, from), to) in ins.iter().zip(dims).zip(&carry_dims) {
        new_ins.push(match (from, to) {
            (None, Some(t)) => {
                let size = bx.size.clone();
                bx.broadcast_axis(x.clone(), size, *t)?
            }
            (Some(f), Some(t)) => bx.moveaxis(x.clone(), *f, *t)?,
            _ => x.clone(),
        });
    }
    new_ins.extend_from_slice(&ins[n..]);
    let params = Params::While(Shared(Rc::new(While {
        cond,
        body,
        n_carry: n,
        n_free_cond: ncf,
    })));
    let outs = bx.bind_all(&WHILE, params, new_ins)?;
    Ok(outs.into_iter().zip(carry_dims).collect())
}

/// A `while` whose predicate has lanes (a batched predicate, as JAX's
/// batching rule leaves it and JAX's lowering runs it): rewritten for
/// emission as a `while` on `reduce_or` of the predicate, whose body keeps
/// the old carry in the lanes whose predicate fails (`select_n`); the body
/// reads the condition's invariants after its own.
pub fn while_on_any_lane(e: &crate::ir::Eqn) -> Option<crate::ir::Eqn> {
    let Params::While(w) = &e.params else {
        return None;
    };
    let w = &w.0;
    let pred_aval = w.cond.atom_aval(&w.cond.outvars[0]).clone();
    if pred_aval.rank() == 0 {
        return None;
    }
    let (n, ncf) = (w.n_carry, w.n_free_cond);
    // The new programs bind nothing whose type depends on the default width.
    let x64 = false;
    let avals = |p: &Jaxpr| -> Vec<Aval> { p.invars.iter().map(|v| p.aval(*v).clone()).collect() };
    let all_axes: Vec<usize> = (0..pred_aval.rank()).collect();
    let cond = program(x64, e.span, &avals(&w.cond), |cx, x| {
        let pred = inline(cx, &w.cond, x)?;
        Ok(vec![cx.bind(
            &super::REDUCE_OR,
            Params::Axes(all_axes.clone(), 0),
            pred,
        )?])
    })
    .ok()?;
    let cond_avals = avals(&w.cond);
    let body_avals = avals(&w.body);
    let mut in_avals = body_avals[..n].to_vec();
    in_avals.extend_from_slice(&cond_avals[n..]);
    in_avals.extend_from_slice(&body_avals[n..]);
    let body = program(x64, e.span, &in_avals, |cx, x| {
        let (carry, rest) = x.split_at(n);
        let (cfree, bfree) = rest.split_at(ncf);
        let pred = inline(cx, &w.cond, &[carry, cfree].concat())?.remove(0);
        let new = inline(cx, &w.body, &[carry, bfree].concat())?;
        let mut out = Vec::new();
        for (old, new) in carry.iter().zip(new) {
            let shape = cx.aval(old).shape;
            let which = if shape.len() == pred_aval.rank() {
                pred.clone()
            } else {
                cx.bind(
                    &super::BROADCAST_IN_DIM,
                    Params::BroadcastInDim {
                        shape,
                        dims: all_axes.clone(),
                        np_ints: 0,
                    },
                    vec![pred.clone()],
                )?
            };
            out.push(cx.select(which, old.clone(), new)?);
        }
        Ok(out)
    })
    .ok()?;
    let mut ins = e.ins.clone();
    ins.splice(n + ncf..n + ncf, e.ins[n..n + ncf].iter().cloned());
    let params = Params::While(Shared(Rc::new(While {
        cond,
        body,
        n_carry: n,
        n_free_cond: ncf,
    })));
    Some(crate::ir::Eqn {
        prim: e.prim,
        params,
        ins,
        outs: e.outs.clone(),
        span: e.span,
    })
}

/// [`while_on_any_lane`] as `simplify`'s rewrite (emission also applies it
/// to the programs it emits unsimplified: the NaN replay).
fn while_any_lane<'a>(
    _: &mut Jaxpr,
    e: &crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Vec<crate::ir::Eqn>> {
    while_on_any_lane(e).map(|e| vec![e])
}

pub static WHILE: PrimDef = PrimDef {
    name: "while",
    abstract_eval: |_, p, _| match p {
        Params::While(w) => Ok(out_avals(&w.0.body)),
        _ => Err("while needs its condition and body".into()),
    },
    print_params: |avals, p| match p {
        Params::While(w) => vec![
            ("body_jaxpr", NESTED.to_string()),
            (
                "body_nconsts",
                (avals.len() - w.0.n_carry - w.0.n_free_cond).to_string(),
            ),
            ("cond_jaxpr", NESTED.to_string()),
            ("cond_nconsts", w.0.n_free_cond.to_string()),
        ],
        _ => Vec::new(),
    },
    parse_params: |r, ins, _| {
        let (nc, nb) = (r.usize("cond_nconsts")?, r.usize("body_nconsts")?);
        let n = ins
            .len()
            .checked_sub(nc + nb)
            .ok_or("`while` has fewer operands than its constants")?;
        let mut body = r.jaxpr("body_jaxpr")?;
        let mut cond = r.jaxpr("cond_jaxpr")?;
        // JAX's order (invariants, then the carry) to ours.
        let k = nb.min(body.invars.len());
        body.invars.rotate_left(k);
        let k = nc.min(cond.invars.len());
        cond.invars.rotate_left(k);
        r.operands = Some((nc + nb..nc + nb + n).chain(0..nc + nb).collect());
        Ok(Params::While(Shared(Rc::new(While {
            cond,
            body,
            n_carry: n,
            n_free_cond: nc,
        }))))
    },
    // Emitted by `Emitter::while_loop`.
    lowering: Lowering::Kernel,
    jvp: Some(while_jvp as JvpRule),
    batch: Some(while_batch as BatchRule),
    rewrite: Some(while_any_lane),
    nested: Some(while_printed),
    transpose: None,
    // A `fori_loop` with traced bounds is a `while`, as in JAX.
    no_transpose: Some("Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop."),
    ..PrimDef::BASE
};

/// The outputs of a scan: the carry, then each y stacked.
fn scan_avals(s: &Scan) -> Vec<Aval> {
    let b = &s.body;
    b.outvars
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let aval = b.atom_aval(a);
            if k < s.n_carry {
                aval.clone()
            } else {
                // Stacked as they come: a weak y (a weak carry) stays weak.
                let mut shape = vec![crate::ir::Dim::Lit(s.length)];
                shape.extend(aval.shape.iter().cloned());
                Aval {
                    dtype: aval.dtype,
                    shape,
                    weak: aval.weak,
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
    if ad.linearize {
        return super::scan_ad::scan_linearize(ad, ins, t, s);
    }
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
    print_params: |avals, p| match p {
        Params::Scan(s) => vec![
            ("jaxpr", NESTED.to_string()),
            ("length", s.0.length.to_string()),
            ("num_carry", s.0.n_carry.to_string()),
            (
                "num_consts",
                (avals.len() - s.0.n_carry - s.0.n_xs).to_string(),
            ),
            ("reverse", if s.0.reverse { "True" } else { "False" }.into()),
            ("unroll", "1".into()),
        ],
        _ => Vec::new(),
    },
    parse_params: |r, ins, _| {
        let (nf, nc) = (r.usize("num_consts")?, r.usize("num_carry")?);
        let n_xs = ins
            .len()
            .checked_sub(nf + nc)
            .ok_or("`scan` has fewer operands than num_consts + num_carry")?;
        let mut body = r.jaxpr("jaxpr")?;
        // JAX's order (invariants, carry, xs) to ours (carry, xs, invariants).
        let k = nf.min(body.invars.len());
        body.invars.rotate_left(k);
        r.operands = Some((nf..ins.len()).chain(0..nf).collect());
        Ok(Params::Scan(Shared(Rc::new(Scan {
            body,
            n_carry: nc,
            n_xs,
            length: r.usize("length")?,
            reverse: {
                // How many steps each iteration runs: speed only.
                r.ignore("unroll");
                r.ignore("_split_transpose");
                r.bool("reverse")?
            },
        }))))
    },
    // Emitted by `Emitter::scan`.
    lowering: Lowering::Kernel,
    jvp: Some(scan_jvp as JvpRule),
    transpose: Some(super::scan_ad::scan_transpose as TransposeRule),
    batch: Some(scan_batch as BatchRule),
    nested: Some(scan_printed),
    ..PrimDef::BASE
};

/// `vmap` of a `scan` (JAX's `_scan_batching_rule`): the carries batched to
/// a fixed point, on axis 0; the xs batched on axis 1 (so each row has its
/// lanes on axis 0); the ys batched on axis 1 when the body batches them.
fn scan_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::Scan(s) = p else { unreachable!() };
    let s = &s.0;
    let (nc, nx) = (s.n_carry, s.n_xs);
    let at0 = |d: &BDim| d.map(|_| 0);
    let rest: Vec<BDim> = dims[nc..].iter().map(at0).collect();
    let init_bat: Vec<bool> = dims[..nc].iter().map(Option::is_some).collect();
    let mut sbody = Batched::new(&s.body);
    let (carry_bat, ys_dims) = carry_fixed_point(bx, &mut sbody, init_bat, &rest)?;
    let mut in_dims: Vec<BDim> = carry_bat.iter().map(|&b| b.then_some(0)).collect();
    in_dims.extend_from_slice(&rest);
    let ys_dims: Vec<BDim> = ys_dims.iter().map(at0).collect();
    let out_dims = [&in_dims[..nc], &ys_dims[..]].concat();
    let body = sbody.forced(bx, &in_dims, &out_dims)?;
    // JAX's order: the invariants, then the carries, then the xs.
    let mut consts = Vec::new();
    for (x, d) in ins[nc + nx..].iter().zip(&dims[nc + nx..]) {
        consts.push(match d {
            Some(d) => bx.moveaxis(x.clone(), *d, 0)?,
            None => x.clone(),
        });
    }
    let mut new_ins = Vec::new();
    for ((x, d), &now) in ins[..nc].iter().zip(dims).zip(&carry_bat) {
        new_ins.push(match (d, now) {
            (None, true) => {
                let size = bx.size.clone();
                bx.broadcast_axis(x.clone(), size, 0)?
            }
            (Some(d), _) => bx.moveaxis(x.clone(), *d, 0)?,
            (None, false) => x.clone(),
        });
    }
    for (x, d) in ins[nc..nc + nx].iter().zip(&dims[nc..nc + nx]) {
        new_ins.push(match d {
            Some(d) => bx.moveaxis(x.clone(), *d, 1)?,
            None => x.clone(),
        });
    }
    new_ins.extend(consts);
    let params = Params::Scan(Shared(Rc::new(Scan {
        body,
        n_carry: nc,
        n_xs: nx,
        length: s.length,
        reverse: s.reverse,
    })));
    let outs = bx.bind_all(&SCAN, params, new_ins)?;
    let dims = in_dims[..nc]
        .iter()
        .copied()
        .chain(ys_dims.iter().map(|d| d.map(|_| 1)));
    Ok(outs.into_iter().zip(dims).collect())
}

/// A `while` as JAX prints it: the invariants before the carry, the
/// condition's then the body's.
fn while_printed<'a>(p: &'a Params, ins: &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>) {
    let Params::While(w) = p else {
        return (Vec::new(), ins.to_vec());
    };
    let w = &w.0;
    let n = w.n_carry;
    let nc = w.n_free_cond;
    let first = |j: &'a Jaxpr| -> (&'a Jaxpr, Vec<crate::ir::Var>) {
        let mut v = j.invars[n..].to_vec();
        v.extend_from_slice(&j.invars[..n]);
        (j, v)
    };
    let printed = vec![
        Printed {
            name: "body_jaxpr",
            programs: vec![first(&w.body)],
            tuple: false,
            alias: false,
        },
        Printed {
            name: "cond_jaxpr",
            programs: vec![first(&w.cond)],
            tuple: false,
            alias: false,
        },
    ];
    let operands = [&ins[n..n + nc], &ins[n + nc..], &ins[..n]].concat();
    (printed, operands)
}

/// A `scan` as JAX prints it: the invariants, then the carry, then the xs.
fn scan_printed<'a>(p: &'a Params, ins: &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>) {
    let Params::Scan(s) = p else {
        return (Vec::new(), ins.to_vec());
    };
    let s = &s.0;
    let k = s.n_carry + s.n_xs;
    let b = &s.body;
    let invars = [&b.invars[k..], &b.invars[..k]].concat();
    let printed = vec![Printed {
        name: "jaxpr",
        programs: vec![(b, invars)],
        tuple: false,
        alias: false,
    }];
    (printed, [&ins[k..], &ins[..k]].concat())
}

/// A jaxpr on inputs of these types, its outputs built by `f`.
pub(super) fn program(
    x64: bool,
    span: proc_macro2::Span,
    avals: &[Aval],
    f: impl FnOnce(&mut Ctx, &[Atom]) -> Res<Vec<Atom>>,
) -> Res<Jaxpr> {
    let mut b = Builder::new(x64);
    let ins: Vec<Atom> = avals.iter().map(|a| b.input(a.clone())).collect();
    let outs = f(&mut Ctx::new(&mut b, span), &ins)?;
    b.jaxpr.outvars = outs;
    Ok(b.jaxpr)
}

/// `vmap` of a program the primitive holds, with inputs batched along
/// `in_dims` (`vmap_program`); `out_dims` forces its outputs'.
pub(super) fn batched_program(
    bx: &Batch,
    j: &Jaxpr,
    in_dims: &[BDim],
    out_dims: Option<&[BDim]>,
) -> Res<(Jaxpr, Vec<BDim>)> {
    (bx.vmap)(
        j,
        in_dims,
        &bx.size,
        bx.axis_name.as_deref(),
        out_dims,
        bx.b.x64,
        bx.span,
    )
    .map_err(|e| e.to_string())
}

/// [`batched_program`] of one program, remembered by its inputs' batch
/// axes. A rule asks for a program's batching more than once (a fixed
/// point of a loop's carries, then the program with its outputs forced),
/// and each batching of a program batches the programs nested in it again:
/// asked anew each time, programs nested `d` deep would be batched 2^d
/// times. Forcing the outputs' axes moves the remembered program's
/// outputs instead of batching it again.
pub(super) struct Batched<'j> {
    j: &'j Jaxpr,
    seen: Vec<(Vec<BDim>, Jaxpr, Vec<BDim>)>,
}

impl<'j> Batched<'j> {
    pub(super) fn new(j: &'j Jaxpr) -> Self {
        Batched {
            j,
            seen: Vec::new(),
        }
    }

    /// `batched_program(bx, j, in_dims, None)`.
    pub(super) fn natural(&mut self, bx: &Batch, in_dims: &[BDim]) -> Res<(Jaxpr, Vec<BDim>)> {
        if let Some((_, j, d)) = self.seen.iter().find(|(i, ..)| i == in_dims) {
            return Ok((j.clone(), d.clone()));
        }
        let (j, d) = batched_program(bx, self.j, in_dims, None)?;
        self.seen.push((in_dims.to_vec(), j.clone(), d.clone()));
        Ok((j, d))
    }

    /// `batched_program(bx, j, in_dims, Some(out_dims))`.
    pub(super) fn forced(&mut self, bx: &Batch, in_dims: &[BDim], out_dims: &[BDim]) -> Res<Jaxpr> {
        let (j, dims) = self.natural(bx, in_dims)?;
        if dims == out_dims {
            return Ok(j);
        }
        let in_avals: Vec<Aval> = j.invars.iter().map(|v| j.aval(*v).clone()).collect();
        let size = bx.size.clone();
        program(bx.b.x64, bx.span, &in_avals, |cx, ins| {
            let outs = inline(cx, &j, ins)?;
            let mut moved = Vec::new();
            for ((x, from), to) in outs.into_iter().zip(dims).zip(out_dims) {
                moved.push(match (from, to) {
                    (Some(f), Some(t)) => cx.moveaxis(x, f, *t)?,
                    (None, Some(t)) => cx.broadcast_axis(x, size.clone(), *t)?,
                    (None, None) => x,
                    (Some(f), None) => {
                        return Err(format!(
                        "at vmap out_axes, got axis spec None but output was batched on axis {f}"
                    ))
                    }
                });
            }
            Ok(moved)
        })
    }
}

pub(super) fn inline(cx: &mut Ctx, j: &Jaxpr, args: &[Atom]) -> Res<Vec<Atom>> {
    cx.b.inline(j, args).map_err(|e| e.to_string())
}

pub(super) fn linearize(ad: &Ad, j: &Jaxpr, has_tangent: &[bool]) -> Res<Split> {
    (ad.transforms.linearize)(j, has_tangent, ad.b.x64, ad.span).map_err(|e| e.to_string())
}

pub(super) fn transpose(ad: &Ad, j: &Jaxpr, linear: &[bool]) -> Res<Jaxpr> {
    let all = vec![true; j.outvars.len()];
    (ad.transforms.transpose)(j, linear, &all, ad.b.x64, ad.span).map_err(|e| e.to_string())
}

pub(super) fn out_avals(j: &Jaxpr) -> Vec<Aval> {
    j.outvars.iter().map(|a| j.atom_aval(a).clone()).collect()
}

/// Picks `v[k]` for each index.
pub(super) fn pick<T: Clone>(v: &[T], at: &[usize]) -> Vec<T> {
    at.iter().map(|&k| v[k].clone()).collect()
}
