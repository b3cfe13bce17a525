//! `cond`: one of several programs chosen by an integer index, as JAX's
//! `cond` primitive (a predicate converted to 0 or 1 picks `[false, true]`;
//! `switch` passes its clamped index). Emitted as a Rust `match`
//! (`Emitter::cond`). Forward mode takes each branch's jvp; reverse mode
//! returns the taken branch's residuals, and transposes each branch.

use std::rc::Rc;

use jax_dtypes::DType;

use super::programs::{
    batched_program, body_jvp, inline, linearize, out_avals, pick, program, push_with_tangents,
    transpose, Batched,
};
use super::{Ad, BDim, Batch, JvpRule, Res, TransposeRule};
use super::{Cond, Lowering, Params, PrimDef, Printed, Shared, NESTED};
use crate::ir::builder::literal;
use crate::ir::rules::{tangent_aval, BatchRule};
use crate::ir::{Atom, Aval, Jaxpr, Scalar};

impl Cond {
    /// The equation's operand positions each branch reads.
    pub fn reads(&self) -> Vec<Vec<usize>> {
        let n = self.n_operands;
        self.free_ranges()
            .into_iter()
            .map(|f| (1..1 + n).chain(f).collect())
            .collect()
    }

    /// The equation's operand positions of each branch's invariants.
    fn free_ranges(&self) -> Vec<std::ops::Range<usize>> {
        let mut at = 1 + self.n_operands;
        self.n_frees
            .iter()
            .map(|&f| {
                at += f;
                at - f..at
            })
            .collect()
    }

    /// Binds a `cond` of these branches.
    pub fn bind(
        ad: &mut Ad,
        branches: Vec<Jaxpr>,
        n_operands: usize,
        n_frees: Vec<usize>,
        ins: Vec<Atom>,
    ) -> Res<Vec<Atom>> {
        let params = Params::Cond(Shared(Rc::new(Cond {
            branches,
            n_operands,
            n_frees,
        })));
        let span = ad.span;
        ad.b.bind(&COND, params, ins, span)
            .map_err(|e| e.to_string())
    }
}

/// Forward mode: each branch's jvp, chosen by the same index.
fn cond_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Params::Cond(c) = p else { unreachable!() };
    let c = &c.0;
    if ad.linearize {
        return cond_linearize(ad, ins, t, c);
    }
    let n = c.n_operands;
    let mut branches = Vec::new();
    for (b, &f) in c.branches.iter().zip(&c.n_frees) {
        branches.push(body_jvp(ad, b, 0, &[n, f], &[b.outvars.len()])?);
    }
    let mut new_ins = vec![ins[0].clone()];
    push_with_tangents(ad, &mut new_ins, ins, t, 1..1 + n)?;
    for r in c.free_ranges() {
        push_with_tangents(ad, &mut new_ins, ins, t, r)?;
    }
    let n_frees = c.n_frees.iter().map(|f| 2 * f).collect();
    let all = Cond::bind(ad, branches, 2 * n, n_frees, new_ins)?;
    Ok(all[outs.len()..].iter().cloned().map(Some).collect())
}

/// Reverse mode's half of the rule: the forward cond also returns the
/// residuals of the branch taken (zeros in the other branches' slots); the
/// tangent cond, on the same index, reads them.
fn cond_linearize(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    c: &Cond,
) -> Res<Vec<Option<Atom>>> {
    let n = c.n_operands;
    let (span, x64) = (ad.span, ad.b.x64);
    let reads = c.reads();
    let mut splits = Vec::new();
    for (b, r) in c.branches.iter().zip(&reads) {
        let has_t: Vec<bool> = r.iter().map(|&k| t[k].is_some()).collect();
        splits.push(linearize(ad, b, &has_t)?);
    }
    let n_out = c.branches[0].outvars.len();
    let res_avals: Vec<Vec<Aval>> = splits
        .iter()
        .map(|sp| {
            out_avals(&sp.known)[n_out..]
                .iter()
                .map(tangent_aval)
                .collect()
        })
        .collect();
    let mut known = Vec::new();
    for (k, (b, sp)) in c.branches.iter().zip(&splits).enumerate() {
        let in_avals: Vec<Aval> = b.invars.iter().map(|v| b.aval(*v).clone()).collect();
        known.push(program(x64, span, &in_avals, |ad, x| {
            let outs = inline(ad, &sp.known, x)?;
            let mut o = outs[..n_out].to_vec();
            for (other, avals) in res_avals.iter().enumerate() {
                if other == k {
                    o.extend(outs[n_out..].iter().cloned());
                } else {
                    for a in avals {
                        o.push(ad.zeros(a)?);
                    }
                }
            }
            Ok(o)
        })?);
    }
    let fwd = Cond::bind(ad, known, n, c.n_frees.clone(), ins.to_vec())?;
    ad.replaced_outs = Some(fwd[..n_out].to_vec());
    let residuals = &fwd[n_out..];

    // The tangent cond: operands are every branch's residuals and the
    // operand tangents; each branch's invariants bring their tangents.
    let t_ops: Vec<usize> = (1..1 + n).filter(|&k| t[k].is_some()).collect();
    let t_frees: Vec<Vec<usize>> = reads
        .iter()
        .map(|r| r[n..].iter().copied().filter(|&k| t[k].is_some()).collect())
        .collect();
    let tan_aval = |k: usize| tangent_aval(&ad.aval(&ins[k]));
    let mut operand_avals: Vec<Aval> = res_avals.concat();
    let n_res_all = operand_avals.len();
    operand_avals.extend(t_ops.iter().map(|&k| tan_aval(k)));
    let mut linear = Vec::new();
    let mut res_at = 0;
    for (k, sp) in splits.iter().enumerate() {
        let mut avals = operand_avals.clone();
        avals.extend(t_frees[k].iter().map(|&f| tan_aval(f)));
        let own = res_at..res_at + res_avals[k].len();
        res_at = own.end;
        linear.push(program(x64, span, &avals, |ad, x| {
            let mut args = x[own].to_vec();
            args.extend(x[n_res_all..].iter().cloned());
            inline(ad, &sp.linear, &args)
        })?);
    }
    let mut tan_ins = vec![ins[0].clone()];
    tan_ins.extend(residuals.iter().cloned());
    for &k in t_ops.iter().chain(t_frees.iter().flatten()) {
        tan_ins.push(t[k].clone().expect("has a tangent"));
    }
    let n_frees = t_frees.iter().map(Vec::len).collect();
    let tan = Cond::bind(ad, linear, operand_avals.len(), n_frees, tan_ins)?;
    Ok(tan.into_iter().map(Some).collect())
}

/// The transpose of a cond linear in the operands and invariants that have
/// no value: a cond on the same index whose branches are the transposed
/// branches (each returns zeros for the other branches' invariants).
fn cond_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let Params::Cond(c) = p else { unreachable!() };
    let c = &c.0;
    let n = c.n_operands;
    let (span, x64) = (ad.span, ad.b.x64);
    let reads = c.reads();
    let is_lin = |k: &usize| ins[*k].is_none();
    let nl_ops: Vec<usize> = (1..1 + n).filter(|k| !is_lin(k)).collect();
    let lin_ops: Vec<usize> = (1..1 + n).filter(is_lin).collect();
    let nl_frees: Vec<Vec<usize>> = reads
        .iter()
        .map(|r| r[n..].iter().copied().filter(|k| !is_lin(k)).collect())
        .collect();
    let lin_frees: Vec<Vec<usize>> = reads
        .iter()
        .map(|r| r[n..].iter().copied().filter(is_lin).collect())
        .collect();
    let ct_avals: Vec<Aval> = out_avals(&c.branches[0]).iter().map(tangent_aval).collect();
    let (n_nl, n_ct) = (nl_ops.len(), ct_avals.len());
    let mut branches = Vec::new();
    for (k, (b, r)) in c.branches.iter().zip(&reads).enumerate() {
        let mask: Vec<bool> = r.iter().map(is_lin).collect();
        let tb = transpose(ad, b, &mask)?;
        let mut in_avals = pick(avals, &nl_ops);
        in_avals.extend(ct_avals.iter().cloned());
        in_avals.extend(pick(avals, &nl_frees[k]));
        branches.push(program(x64, span, &in_avals, |ad, x| {
            let args: Vec<Atom> = [&x[..n_nl], &x[n_nl + n_ct..], &x[n_nl..n_nl + n_ct]].concat();
            let outs = inline(ad, &tb, &args)?;
            let mut o = outs[..lin_ops.len()].to_vec();
            for (other, frees) in lin_frees.iter().enumerate() {
                if other == k {
                    o.extend(outs[lin_ops.len()..].iter().cloned());
                } else {
                    for &f in frees {
                        o.push(ad.zeros(&tangent_aval(&avals[f]))?);
                    }
                }
            }
            Ok(o)
        })?);
    }
    let mut all: Vec<Atom> = vec![ins[0].clone().expect("the index has a value")];
    all.extend(nl_ops.iter().map(|&k| ins[k].clone().expect("not linear")));
    for (ct, a) in cts.iter().zip(&ct_avals) {
        all.push(match ct {
            Some(c) => c.clone(),
            None => ad.zeros(a)?,
        });
    }
    for f in &nl_frees {
        all.extend(f.iter().map(|&k| ins[k].clone().expect("not linear")));
    }
    let n_frees = nl_frees.iter().map(Vec::len).collect();
    let outs = Cond::bind(ad, branches, n_nl + n_ct, n_frees, all)?;
    let mut result = vec![None; ins.len()];
    for (k, o) in lin_ops.iter().chain(lin_frees.iter().flatten()).zip(outs) {
        result[*k] = Some(o);
    }
    Ok(result)
}

/// `vmap` of a `cond` (JAX's `_cond_batching_rule`). A shared index: one
/// `cond` whose branches are batched, each output batched (on axis 0) when
/// some branch batches it. An index per lane: every branch runs on every
/// lane, inlined, on operands selected against their `stop_gradient` where
/// the lane takes that branch (so reverse mode sends no cotangent through
/// the others), and each output is `select_n` of the index.
fn cond_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::Cond(c) = p else { unreachable!() };
    let c = &c.0;
    let reads = c.reads();
    let n_out = c.branches[0].outvars.len();
    if dims[0].is_some() {
        let size = bx.size.clone();
        let mut all = Vec::new();
        for (x, d) in ins.iter().zip(dims) {
            all.push(bx.at_front(x.clone(), *d, size.clone())?);
        }
        let index = all[0].clone();
        let mut batched = Vec::new();
        for (b, r) in c.branches.iter().zip(&reads) {
            let (j, _) =
                batched_program(bx, b, &vec![Some(0); r.len()], Some(&vec![Some(0); n_out]))?;
            batched.push(j);
        }
        let mut branch_outs = Vec::new();
        for (i, (j, r)) in batched.iter().zip(&reads).enumerate() {
            let k = literal(Scalar::Int(i as i128), Aval::scalar(DType::I32, false));
            let pred = bx.bin(&super::EQ, index.clone(), k)?;
            let mut args = Vec::new();
            for &k in r {
                let x = all[k].clone();
                let dtype = bx.aval(&x).dtype;
                let stopped = if dtype.is_float() {
                    bx.un(&super::STOP_GRADIENT, x.clone())?
                } else {
                    x.clone()
                };
                args.push(bcast_select_n(bx, pred.clone(), &[stopped, x])?);
            }
            branch_outs.push(inline(bx, j, &args)?);
        }
        let mut outs = Vec::new();
        for o in 0..n_out {
            let cases: Vec<Atom> = branch_outs.iter().map(|b| b[o].clone()).collect();
            outs.push((bcast_select_n(bx, index.clone(), &cases)?, Some(0)));
        }
        return Ok(outs);
    }
    let mut new_ins = ins.to_vec();
    for (x, d) in new_ins.iter_mut().zip(dims) {
        if let Some(d) = d {
            *x = bx.moveaxis(x.clone(), *d, 0)?;
        }
    }
    let in_dims = |r: &[usize]| -> Vec<BDim> { r.iter().map(|&k| dims[k].map(|_| 0)).collect() };
    let mut out_bat = vec![false; n_out];
    let mut batched: Vec<Batched> = c.branches.iter().map(Batched::new).collect();
    for (b, r) in batched.iter_mut().zip(&reads) {
        let (_, d) = b.natural(bx, &in_dims(r))?;
        for (o, d) in out_bat.iter_mut().zip(d) {
            *o |= d.is_some();
        }
    }
    let out_dims: Vec<BDim> = out_bat.iter().map(|&b| b.then_some(0)).collect();
    let mut branches = Vec::new();
    for (b, r) in batched.iter_mut().zip(&reads) {
        branches.push(b.forced(bx, &in_dims(r), &out_dims)?);
    }
    let params = Params::Cond(Shared(Rc::new(Cond {
        branches,
        n_operands: c.n_operands,
        n_frees: c.n_frees.clone(),
    })));
    let outs = bx.bind_all(&COND, params, new_ins)?;
    Ok(outs.into_iter().zip(out_dims).collect())
}

/// `select_n(which, cases..)`, `which` broadcast along the cases' trailing
/// axes when it has fewer (JAX's `_bcast_select_n`).
fn bcast_select_n(bx: &mut Batch, which: Atom, cases: &[Atom]) -> Res<Atom> {
    let (w, shape) = (bx.aval(&which), bx.aval(&cases[0]).shape);
    let which = if w.rank() != shape.len() {
        let dims: Vec<usize> = (0..w.rank()).collect();
        bx.bind(
            &super::BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape,
                dims,
                np_ints: 0,
            },
            vec![which],
        )?
    } else {
        which
    };
    let mut ops = vec![which];
    ops.extend(cases.iter().cloned());
    bx.bind(&super::SELECT_N, Params::None, ops)
}

pub static COND: PrimDef = PrimDef {
    name: "cond",
    abstract_eval: |ops, p, _| match p {
        Params::Cond(c) => {
            if ops
                .first()
                .is_none_or(|i| i.rank() != 0 || !i.dtype.is_integer())
            {
                return Err("cond's index must be a scalar integer".into());
            }
            let b = &c.0.branches[0];
            Ok(b.outvars.iter().map(|a| b.atom_aval(a).clone()).collect())
        }
        _ => Err("cond needs its branches".into()),
    },
    print_params: |_, p| match p {
        Params::Cond(_) => vec![("branches", NESTED.to_string())],
        _ => Vec::new(),
    },
    // JAX's branches all take every operand after the index.
    parse_params: |r, ins, _| {
        let branches = r.jaxprs("branches")?;
        Ok(Params::Cond(Shared(std::rc::Rc::new(Cond {
            n_frees: vec![0; branches.len()],
            branches,
            n_operands: ins.len().saturating_sub(1),
        }))))
    },
    // Emitted by `Emitter::cond`.
    lowering: Lowering::Kernel,
    jvp: Some(cond_jvp as JvpRule),
    transpose: Some(cond_transpose as TransposeRule),
    batch: Some(cond_batch as BatchRule),
    nested: Some(printed),
    ..PrimDef::BASE
};

/// The branches as JAX prints them: a tuple of programs, each on its own
/// inputs; the operands in the equation's order.
fn printed<'a>(p: &'a Params, ins: &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>) {
    let Params::Cond(c) = p else {
        return (Vec::new(), ins.to_vec());
    };
    let printed = vec![Printed {
        name: "branches",
        programs: c.0.branches.iter().map(|b| (b, b.invars.clone())).collect(),
        tuple: true,
        alias: false,
    }];
    (printed, ins.to_vec())
}
