//! Loops: `while` and `scan`, each body a jaxpr of its own, emitted as a
//! real Rust loop (the body fused like any function), not unrolled. A
//! `fori_loop` is a `scan` carrying its index when its bounds are static
//! (so reverse mode can store each step's residuals) and a `while` when
//! they are traced, as JAX lowers it. Forward mode carries the tangents
//! through the loop; reverse mode runs a scan's transposed body backwards.
//! Their helpers, shared with `cond`, are in `programs.rs`.

use std::rc::Rc;

use super::programs::*;

use super::{Ad, BDim, Batch, JvpRule, Res};
use super::{Lowering, Params, PrimDef, Printed, Shared, While, NESTED};
use crate::ir::rules::BatchRule;
use crate::ir::{Atom, Aval, Jaxpr};

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
pub(super) fn carry_fixed_point(
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
