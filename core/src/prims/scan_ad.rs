//! Reverse mode of `scan` (JAX's scan partial evaluation and
//! `_scan_transpose`): the forward scan stacks the residuals its tangent
//! half reads, and the transposed body runs backwards over them.

use std::rc::Rc;

use super::control::*;
use super::{Ad, Params, Res, Scan, Shared};
use crate::ir::rules::tangent_aval;
use crate::ir::{Atom, Aval};

/// Where a residual of a linearized scan body comes from.
enum Residual {
    /// Computed per step: stacked as an extra y of the forward scan.
    Stacked,
    /// One of the scan's own operands (an x row, an invariant): passed as is.
    Operand(usize),
}

/// Reverse mode's half of the scan rule (JAX's scan partial evaluation):
/// the forward scan also stacks, per step, the residuals its tangent half
/// reads; the tangent scan reads them back as xs. Residuals that are the
/// scan's own xs or invariants are passed as they are, not stacked.
pub(super) fn scan_linearize(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    s: &Scan,
) -> Res<Vec<Option<Atom>>> {
    let (nc, nx) = (s.n_carry, s.n_xs);
    let n_out = s.body.outvars.len();
    let span = ad.span;
    // Every float carry has a tangent (the loop may make it nonzero).
    let has_t: Vec<bool> = (0..ins.len())
        .map(|k| {
            if k < nc {
                ad.aval(&ins[k]).dtype.is_float()
            } else {
                t[k].is_some()
            }
        })
        .collect();
    let sp = linearize(ad, &s.body, &has_t)?;
    let known = &sp.known;
    let residuals: Vec<Residual> = known.outvars[n_out..]
        .iter()
        .map(|r| match r {
            Atom::Var(v) => match known.invars.iter().position(|u| u == v) {
                Some(p) if p >= nc => Residual::Operand(p),
                _ => Residual::Stacked,
            },
            Atom::Lit(_) => Residual::Stacked,
        })
        .collect();
    let stacked: Vec<usize> = (0..sp.n_res)
        .filter(|&r| matches!(residuals[r], Residual::Stacked))
        .collect();
    let mut forward = known.clone();
    forward.outvars.truncate(n_out);
    forward
        .outvars
        .extend(stacked.iter().map(|&r| known.outvars[n_out + r].clone()));
    let fwd =
        ad.b.bind(
            &SCAN,
            Params::Scan(Shared(Rc::new(Scan {
                body: forward,
                n_carry: nc,
                n_xs: nx,
                length: s.length,
                reverse: s.reverse,
            }))),
            ins.to_vec(),
            span,
        )
        .map_err(|e| e.to_string())?;
    ad.replaced_outs = Some(fwd[..n_out].to_vec());
    let stacks = &fwd[n_out..];

    // The tangent scan: carry the carry tangents; xs the stacked residuals,
    // the residual xs, the x tangents; invariants the residual invariants
    // and the invariant tangents.
    let lin = &sp.linear;
    let (res_vars, t_vars) = lin.invars.split_at(sp.n_res);
    let mut t_vars = t_vars.iter();
    let t_var: Vec<Option<crate::ir::Var>> = has_t
        .iter()
        .map(|&h| if h { t_vars.next().copied() } else { None })
        .collect();
    let (mut carry_v, mut xs_v, mut inv_v) = (Vec::new(), Vec::new(), Vec::new());
    let (mut carry_a, mut xs_a, mut inv_a) = (Vec::new(), Vec::new(), Vec::new());
    for k in (0..nc).filter(|&k| has_t[k]) {
        carry_v.push(t_var[k].unwrap());
        carry_a.push(ad.tangent_or_zeros(&t[k], &ins[k])?);
    }
    for (j, &r) in stacked.iter().enumerate() {
        xs_v.push(res_vars[r]);
        xs_a.push(stacks[j].clone());
    }
    for (r, kind) in residuals.iter().enumerate() {
        if let Residual::Operand(p) = kind {
            if *p < nc + nx {
                xs_v.push(res_vars[r]);
                xs_a.push(ins[*p].clone());
            } else {
                inv_v.push(res_vars[r]);
                inv_a.push(ins[*p].clone());
            }
        }
    }
    for k in nc..ins.len() {
        if let (Some(v), Some(a)) = (t_var[k], &t[k]) {
            let (vs, atoms) = if k < nc + nx {
                (&mut xs_v, &mut xs_a)
            } else {
                (&mut inv_v, &mut inv_a)
            };
            vs.push(v);
            atoms.push(a.clone());
        }
    }
    let mut body = lin.clone();
    let (n_tc, n_txs) = (carry_v.len(), xs_v.len());
    body.invars = carry_v.into_iter().chain(xs_v).chain(inv_v).collect();
    body.outvars = (0..nc)
        .filter(|&k| has_t[k])
        .map(|k| lin.outvars[k].clone())
        .chain(lin.outvars[nc..].iter().cloned())
        .collect();
    let tan =
        ad.b.bind(
            &SCAN,
            Params::Scan(Shared(Rc::new(Scan {
                body,
                n_carry: n_tc,
                n_xs: n_txs,
                length: s.length,
                reverse: s.reverse,
            }))),
            carry_a.into_iter().chain(xs_a).chain(inv_a).collect(),
            span,
        )
        .map_err(|e| e.to_string())?;
    let mut carry_t = tan[..n_tc].iter();
    let mut out: Vec<Option<Atom>> = (0..nc)
        .map(|k| {
            if has_t[k] {
                carry_t.next().cloned()
            } else {
                None
            }
        })
        .collect();
    out.extend(tan[n_tc..].iter().cloned().map(Some));
    Ok(out)
}

/// The transpose of a scan linear in its carries and in the xs and
/// invariants that have no value (JAX's `_scan_transpose`): a scan the
/// other way whose body is the transposed body. It carries the carries'
/// cotangents and sums the linear invariants' cotangents; it reads the
/// residual xs and the ys' cotangents as xs, and returns the linear xs'
/// cotangents as ys.
pub(super) fn scan_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let Params::Scan(s) = p else { unreachable!() };
    let s = &s.0;
    let (nc, nx) = (s.n_carry, s.n_xs);
    let n_ys = s.body.outvars.len() - nc;
    let span = ad.span;
    let linear: Vec<bool> = (0..ins.len()).map(|k| k < nc || ins[k].is_none()).collect();
    let tb = transpose(ad, &s.body, &linear)?;
    let of = |range: std::ops::Range<usize>, lin: bool| -> Vec<usize> {
        range.filter(|&k| linear[k] == lin).collect()
    };
    let (res_xs, lin_xs) = (of(nc..nc + nx, false), of(nc..nc + nx, true));
    let (res_inv, lin_inv) = (of(nc + nx..ins.len(), false), of(nc + nx..ins.len(), true));
    let row = |a: &Aval| Aval {
        shape: a.shape[1..].to_vec(),
        ..a.clone()
    };
    let y_avals: Vec<Aval> = out_avals(&s.body)[nc..].iter().map(tangent_aval).collect();
    let mut r_avals: Vec<Aval> = (0..nc).map(|k| tangent_aval(&avals[k])).collect();
    r_avals.extend(lin_inv.iter().map(|&k| tangent_aval(&avals[k])));
    r_avals.extend(res_xs.iter().map(|&k| row(&avals[k])));
    r_avals.extend(y_avals.iter().cloned());
    r_avals.extend(res_inv.iter().map(|&k| avals[k].clone()));
    let (n_acc, n_rx) = (lin_inv.len(), res_xs.len());
    let body = program(ad.b.x64, span, &r_avals, |ad, r| {
        let (ct_c, r) = r.split_at(nc);
        let (acc, r) = r.split_at(n_acc);
        let (rx, r) = r.split_at(n_rx);
        let (ct_y, rinv) = r.split_at(n_ys);
        let args: Vec<Atom> = [rx, rinv, ct_c, ct_y].concat();
        let outs = inline(ad, &tb, &args)?;
        let (ct_in, r) = outs.split_at(nc);
        let (ct_x, ct_f) = r.split_at(lin_xs.len());
        let mut o = ct_in.to_vec();
        for (a, c) in acc.iter().zip(ct_f) {
            o.push(ad.add(a.clone(), c.clone())?);
        }
        o.extend(ct_x.iter().cloned());
        Ok(o)
    })?;
    let mut init = Vec::new();
    for k in 0..nc {
        init.push(match &cts[k] {
            Some(c) => c.clone(),
            None => ad.zeros(&tangent_aval(&avals[k]))?,
        });
    }
    for &k in &lin_inv {
        init.push(ad.zeros(&tangent_aval(&avals[k]))?);
    }
    let mut xs: Vec<Atom> = res_xs.iter().map(|&k| ins[k].clone().unwrap()).collect();
    for (j, a) in y_avals.iter().enumerate() {
        xs.push(match &cts[nc + j] {
            Some(c) => c.clone(),
            None => {
                let mut shape = vec![crate::ir::Dim::Lit(s.length)];
                shape.extend(a.shape.iter().cloned());
                ad.zeros(&Aval { shape, ..a.clone() })?
            }
        });
    }
    let n_xs = xs.len();
    let mut all = init;
    all.extend(xs);
    all.extend(res_inv.iter().map(|&k| ins[k].clone().unwrap()));
    let outs =
        ad.b.bind(
            &SCAN,
            Params::Scan(Shared(Rc::new(Scan {
                body,
                n_carry: nc + n_acc,
                n_xs,
                length: s.length,
                reverse: !s.reverse,
            }))),
            all,
            span,
        )
        .map_err(|e| e.to_string())?;
    let mut result = vec![None; ins.len()];
    for k in 0..nc {
        result[k] = Some(outs[k].clone());
    }
    for (j, &k) in lin_inv.iter().enumerate() {
        result[k] = Some(outs[nc + j].clone());
    }
    for (j, &k) in lin_xs.iter().enumerate() {
        result[k] = Some(outs[nc + n_acc + j].clone());
    }
    Ok(result)
}
