//! `fori_loop`: a loop whose body is a jaxpr of its own, run `upper -
//! lower` times on a carry. Emitted as a real Rust loop (the body fused like
//! any function), not unrolled. Forward mode carries the tangents through
//! the loop; reverse mode is not implemented yet.

use std::rc::Rc;

use super::{Lowering, Params, PrimDef};
use crate::ad::{Ad, JvpRule, Res, Wrt};
use crate::ir::{Atom, Aval, Jaxpr};

/// A loop body: inputs `(i, carry leaves.., invariants..)`, outputs the new
/// carry leaves.
#[derive(Debug)]
pub struct Loop {
    pub body: Jaxpr,
    pub n_carry: usize,
}

/// Shared, compared by identity.
#[derive(Clone, Debug)]
pub struct LoopRef(pub Rc<Loop>);

impl PartialEq for LoopRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
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
    let mut wrt = vec![false];
    wrt.extend(std::iter::repeat_n(true, n_carry + n_inv));
    let span = ad.span;
    let jb =
        crate::ad::jvp(body, &Wrt { inputs: wrt }, ad.b.x64, span).map_err(|e| e.to_string())?;
    // jvp's inputs: i, carry, invariants, then tangents of carry and
    // invariants; the loop wants i, carry ++ tangent carry, then invariants
    // ++ their tangents.
    let v = &jb.invars;
    let (i, carry, inv) = (
        v[0],
        &v[1..1 + n_carry],
        &v[1 + n_carry..1 + n_carry + n_inv],
    );
    let (t_carry, t_inv) = (
        &v[1 + n_carry + n_inv..1 + 2 * n_carry + n_inv],
        &v[1 + 2 * n_carry + n_inv..],
    );
    let mut jb = jb.clone();
    jb.invars = std::iter::once(i)
        .chain(carry.iter().copied())
        .chain(t_carry.iter().copied())
        .chain(inv.iter().copied())
        .chain(t_inv.iter().copied())
        .collect();
    let tangent = |ad: &mut Ad, k: usize| -> Res<Atom> {
        match &t[k] {
            Some(tk) => Ok(tk.clone()),
            None => {
                let a = crate::ad::tangent_aval(&ad.aval(&ins[k]));
                ad.zeros(&a)
            }
        }
    };
    let mut new_ins = vec![ins[0].clone(), ins[1].clone()];
    new_ins.extend(ins[2..2 + n_carry].iter().cloned());
    for k in 2..2 + n_carry {
        new_ins.push(tangent(ad, k)?);
    }
    new_ins.extend(ins[2 + n_carry..].iter().cloned());
    for k in 2 + n_carry..ins.len() {
        new_ins.push(tangent(ad, k)?);
    }
    let params = Params::Loop(LoopRef(Rc::new(Loop {
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
