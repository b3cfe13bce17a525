//! `scan`: a loop over the rows of its xs, carrying values and stacking
//! ys, its body a jaxpr emitted as a real Rust loop. Forward mode carries
//! the tangents through the loop; reverse mode (JAX's scan partial
//! evaluation and `_scan_transpose`) has the forward scan stack the
//! residuals its tangent half reads, and runs the transposed body
//! backwards over them.

use std::rc::Rc;

use super::programs::*;

use super::control::carry_fixed_point;
use super::{Ad, BDim, Batch, JvpRule, Res, TransposeRule};
use super::{Lowering, Params, PrimDef, Printed, Scan, Shared, NESTED};
use crate::ir::rules::{tangent_aval, BatchRule};
use crate::ir::{Atom, Aval};

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
        return scan_linearize(ad, ins, t, s);
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
    transpose: Some(scan_transpose as TransposeRule),
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
