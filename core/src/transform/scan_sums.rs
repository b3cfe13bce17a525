//! A `scan` carry that only sums products, `acc = acc + dot_general(a, b)`,
//! becomes one contraction after the loop: the loop stacks `a` and `b` as
//! outputs (or reads them where they already are stacked inputs), and
//! `acc_final = acc_init + dot_general(a_stack, b_stack)` contracts the
//! step axis too. Reverse mode makes this shape for every weight a loop
//! reads: the transposed scan accumulates the weight's cotangent, an outer
//! product per step (an RNN's `W` gets `dh_t ⊗ h_{t-1}` each step). As one
//! matrix product it runs on the packed gemm at full width instead of
//! `length` small updates of the whole accumulator.
//!
//! The sum runs in another order than the loop's (the gemm's blocks of
//! steps), so results may differ from the loop in the last bits, as any
//! reassociated float sum.

use std::collections::HashMap;

use jax_dtypes::DType;

use crate::ir::{is_literal, Atom, Aval, Dim, Eqn, Jaxpr, Var};
use crate::prims::{Params, Scan, Shared, ADD, ADD_ANY, BROADCAST_IN_DIM, DOT_GENERAL};

/// At most this many elements stacked per rewritten carry, all steps
/// together (256 MiB of f32): above it the loop's own accumulation is kept.
const MAX_STACKED: usize = 64 << 20;

/// Rewrites every qualifying carry of every top-level `scan` in `j`.
pub fn contract_scan_sums(j: &mut Jaxpr) {
    let mut k = 0;
    while k < j.eqns.len() {
        if let Some(new) = rewrite_one(j, k) {
            // The new scan stays at `k`: it may have another such carry.
            j.eqns.splice(k..=k, new);
            continue;
        }
        k += 1;
    }
}

/// Where a factor of the per-step product comes from.
enum Factor {
    /// Row `t` of the scan's xs operand `x`: already stacked outside.
    Xs(usize),
    /// A value of the step (computed, or the carry as the step starts):
    /// stacked as a new output.
    Step(Var),
}

/// The scan at `j.eqns[k]` with its first summed-product carry rewritten:
/// the new scan, the contraction and the addition of the initial value,
/// or `None` when no carry qualifies.
fn rewrite_one(j: &mut Jaxpr, k: usize) -> Option<Vec<Eqn>> {
    let e = &j.eqns[k];
    let Params::Scan(s) = &e.params else {
        return None;
    };
    let s = &s.0;
    let body = &s.body;
    let (nc, nx) = (s.n_carry, s.n_xs);
    let mut uses: HashMap<Var, usize> = HashMap::new();
    for a in body.eqns.iter().flat_map(|e| &e.ins).chain(&body.outvars) {
        if let Atom::Var(v) = a {
            *uses.entry(*v).or_default() += 1;
        }
    }
    let producer: HashMap<Var, usize> = body
        .eqns
        .iter()
        .enumerate()
        .flat_map(|(i, e)| e.outs.iter().map(move |o| (*o, i)))
        .collect();
    let used_once = |v: &Var| uses.get(v) == Some(&1);
    let factor = |v: Var| -> Option<Factor> {
        match body.invars.iter().position(|i| *i == v) {
            Some(p) if p >= nc + nx => None, // an invariant: not per step
            Some(p) if p >= nc => Some(Factor::Xs(p - nc)),
            _ => Some(Factor::Step(v)),
        }
    };
    for c in 0..nc {
        let carry_in = body.invars[c];
        let Atom::Var(out) = &body.outvars[c] else {
            continue;
        };
        let Some(&ka) = producer.get(out) else {
            continue;
        };
        let add = &body.eqns[ka];
        if !(add.prim == &ADD || add.prim == &ADD_ANY) || add.ins.len() != 2 {
            continue;
        }
        let (carry_pos, other) = match (&add.ins[0], &add.ins[1]) {
            (Atom::Var(a), Atom::Var(g)) if *a == carry_in => (0, *g),
            (Atom::Var(g), Atom::Var(a)) if *a == carry_in => (1, *g),
            _ => continue,
        };
        if !used_once(&carry_in) || !used_once(out) || !used_once(&other) {
            continue;
        }
        let Some(&kd) = producer.get(&other) else {
            continue;
        };
        let dot = &body.eqns[kd];
        let Params::DotGeneral {
            lhs_contract,
            rhs_contract,
            lhs_batch,
            rhs_batch,
            preferred,
        } = &dot.params
        else {
            continue;
        };
        let acc = body.aval(carry_in);
        if dot.prim != &DOT_GENERAL
            || !lhs_batch.is_empty()
            || !rhs_batch.is_empty()
            || !matches!(acc.dtype, DType::F32 | DType::F64)
            || *preferred != acc.dtype
            || body.aval(other).shape != acc.shape
        {
            continue;
        }
        let (Atom::Var(a), Atom::Var(b)) = (&dot.ins[0], &dot.ins[1]) else {
            continue;
        };
        let same_dtype = |v: &Var| body.aval(*v).dtype == acc.dtype;
        if !same_dtype(a) || !same_dtype(b) {
            continue;
        }
        let (Some(fa), Some(fb)) = (factor(*a), factor(*b)) else {
            continue;
        };
        // Worth it when the loop stores less per step than it accumulates.
        let Some(acc_elems) = elements(&acc.shape) else {
            continue;
        };
        let mut stacked = 0usize;
        for f in [&fa, &fb] {
            if let Factor::Step(v) = f {
                match elements(&body.aval(*v).shape) {
                    Some(n) => stacked += n,
                    None => stacked = usize::MAX,
                }
            }
        }
        if stacked.saturating_mul(4) > acc_elems
            || stacked.saturating_mul(s.length) > MAX_STACKED
            || acc_elems < 256
        {
            continue;
        }
        let (lc, rc) = (lhs_contract.clone(), rhs_contract.clone());
        let (prim, dot_span) = (add.prim, dot.span);
        return Some(rebuild(
            j,
            k,
            c,
            (ka, kd),
            carry_pos,
            [fa, fb],
            (lc, rc),
            prim,
            dot_span,
        ));
    }
    None
}

/// The static number of elements of a shape.
fn elements(shape: &[Dim]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, d| match d {
        Dim::Lit(k) => n.checked_mul(*k),
        Dim::Sym(_) => None,
    })
}

/// The rewrite of carry `c` of the scan `j.eqns[k]`, whose body sums
/// `dot_general(a, b)` (body equations `ka`: the add, `kd`: the product).
#[allow(clippy::too_many_arguments)]
fn rebuild(
    j: &mut Jaxpr,
    k: usize,
    c: usize,
    (ka, kd): (usize, usize),
    carry_pos: usize,
    factors: [Factor; 2],
    (lhs_contract, rhs_contract): (Vec<usize>, Vec<usize>),
    add_prim: crate::prims::Prim,
    span: proc_macro2::Span,
) -> Vec<Eqn> {
    let e = j.eqns[k].clone();
    let Params::Scan(s) = &e.params else {
        unreachable!("rewrite_one matched a scan")
    };
    let s = &s.0;
    let nc = s.n_carry;
    let mut body = s.body.clone();
    body.eqns = body
        .eqns
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i != ka && *i != kd)
        .map(|(_, e)| e)
        .collect();
    body.invars.remove(c);
    body.outvars.remove(c);
    let mut ins = e.ins.clone();
    let init = ins.remove(c);
    let mut outs = e.outs.clone();
    let final_var = outs.remove(c);
    // The stacked factors: xs operands as they are, step values as new ys.
    let mut stacked_of: Vec<(Var, Atom)> = Vec::new();
    let mut operands = Vec::new();
    for f in &factors {
        let atom = match f {
            Factor::Xs(x) => e.ins[nc + x].clone(),
            Factor::Step(v) => match stacked_of.iter().find(|(w, _)| w == v) {
                Some((_, a)) => a.clone(),
                None => {
                    let aval = body.aval(*v);
                    let mut shape = vec![Dim::Lit(s.length)];
                    shape.extend(aval.shape.iter().cloned());
                    let ys = j.new_var(Aval {
                        dtype: aval.dtype,
                        shape,
                        weak: aval.weak,
                    });
                    body.outvars.push(Atom::Var(*v));
                    outs.push(ys);
                    stacked_of.push((*v, Atom::Var(ys)));
                    Atom::Var(ys)
                }
            },
        };
        operands.push(atom);
    }
    let acc = j.aval(final_var).clone();
    let scan = Eqn {
        prim: e.prim,
        params: Params::Scan(Shared(std::rc::Rc::new(Scan {
            body,
            n_carry: nc - 1,
            n_xs: s.n_xs,
            length: s.length,
            reverse: s.reverse,
        }))),
        ins,
        outs,
        span: e.span,
    };
    let shifted = |cs: &[usize]| std::iter::once(0).chain(cs.iter().map(|d| d + 1)).collect();
    let zero_init = is_zeros(j, &init, k);
    let sum = if zero_init {
        final_var
    } else {
        j.new_var(acc.clone())
    };
    let contraction = Eqn {
        prim: &DOT_GENERAL,
        params: Params::DotGeneral {
            lhs_contract: shifted(&lhs_contract),
            rhs_contract: shifted(&rhs_contract),
            lhs_batch: Vec::new(),
            rhs_batch: Vec::new(),
            preferred: acc.dtype,
        },
        ins: operands,
        outs: vec![sum],
        span,
    };
    let mut new = vec![scan, contraction];
    if !zero_init {
        let mut ins = vec![init, Atom::Var(sum)];
        if carry_pos == 1 {
            ins.swap(0, 1);
        }
        new.push(Eqn {
            prim: add_prim,
            params: Params::None,
            ins,
            outs: vec![final_var],
            span: e.span,
        });
    }
    new
}

/// Whether `a` is all zeros: a zero literal, or a broadcast of one computed
/// before equation `before`.
fn is_zeros(j: &Jaxpr, a: &Atom, before: usize) -> bool {
    match a {
        Atom::Lit(_) => is_literal(a, 0.0),
        Atom::Var(v) => j.eqns[..before]
            .iter()
            .any(|e| e.outs == [*v] && e.prim == &BROADCAST_IN_DIM && is_literal(&e.ins[0], 0.0)),
    }
}
