//! `checkpoint` (`jax::checkpoint(f)`, alias `jax::remat`; JAX prints it
//! `remat2`): a call of `f`'s program that computes what `f` computes, but
//! whose reverse mode saves only the call's inputs and recomputes `f`'s
//! intermediates in the backward pass (JAX's `remat_partial_eval`).
//!
//! Forward mode of a call is a second, `differentiated` call: the tangent
//! half of `f`'s jvp, reading the primal inputs and their tangents. Partial
//! evaluation keeps it on the linear side, so its only residuals are the
//! primal inputs; its transpose linearizes `f` again at them (the
//! recomputation) and transposes that, at the place of the backward pass
//! where the call's cotangents arrive.

use super::{Ad, BDim, Batch, JvpRule, Res, TransposeRule};
use super::{Lowering, Params, PrimDef, Printed};
use crate::ir::primitive::{Checkpoint, Shared};
use crate::ir::rules::{tangent_aval, Wrt};
use crate::ir::{Atom, Aval, Jaxpr};

fn body_of(p: &Params) -> Res<&Checkpoint> {
    match p {
        Params::Checkpoint(c) => Ok(&c.0),
        _ => Err("checkpoint needs its program".into()),
    }
}

fn checkpoint_eval(
    _: &[Aval],
    p: &Params,
    _: &mut crate::ir::shapes::Constraints,
) -> Result<Vec<Aval>, String> {
    let c = body_of(p)?;
    Ok(c.body
        .outvars
        .iter()
        .map(|a| c.body.atom_aval(a).clone())
        .collect())
}

/// A checkpoint call of `body` on `ins`.
pub fn checkpoint_params(body: Jaxpr, primal: Option<Jaxpr>) -> Params {
    Params::Checkpoint(Shared(std::rc::Rc::new(Checkpoint { body, primal })))
}

/// The tangents: a differentiated call of the tangent half of the body's
/// jvp, on the primal inputs and a tangent for each (zeros where none).
fn checkpoint_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let c = body_of(p)?;
    let wrt = Wrt {
        inputs: vec![true; ins.len()],
    };
    let (x64, span) = (ad.b.x64, ad.span);
    let mut jvp = (ad.transforms.jvp)(&c.body, &wrt, x64, span).map_err(|e| e.to_string())?;
    let n_out = c.body.outvars.len();
    let mut args = ins.to_vec();
    for (x, tx) in ins.iter().zip(t) {
        args.push(ad.tangent_or_zeros(tx, x)?);
    }
    if c.primal.is_some() {
        // A tangent call differentiated again (forward over forward): its
        // jvp inlined, without a second recomputation.
        let outs = ad.b.inline(&jvp, &args).map_err(|e| e.to_string())?;
        return Ok(outs[n_out..].iter().cloned().map(Some).collect());
    }
    jvp.outvars.drain(..n_out);
    let params = checkpoint_params(jvp, Some(c.body.clone()));
    let outs = ad.bind_all(&CHECKPOINT, params, args)?;
    Ok(outs.into_iter().map(Some).collect())
}

/// The transpose of a differentiated call (linear in its tangents): the
/// primal body linearized again at the saved inputs, then transposed.
fn checkpoint_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let c = body_of(p)?;
    let Some(primal) = &c.primal else {
        return Err("checkpoint is not linear in its inputs".into());
    };
    let n = primal.invars.len();
    let mut primals = Vec::new();
    for x in &ins[..n] {
        primals.push(
            x.clone()
                .ok_or("reverse mode of a checkpoint needs its primal inputs")?,
        );
    }
    // Behind a barrier, so that simplification does not merge the
    // recomputation with the forward pass it repeats (JAX's
    // `prevent_cse=True`, an `optimization_barrier` on the residuals).
    let primals = primals
        .into_iter()
        .map(|x| ad.bind(&OPTIMIZATION_BARRIER, Params::None, vec![x]))
        .collect::<Res<Vec<Atom>>>()?;
    let (known, back) = relinearized(ad, primal)?;
    // The recomputation: the forward pass again, for its residuals.
    let known = ad.b.inline(&known, &primals).map_err(|e| e.to_string())?;
    let mut args = known[primal.outvars.len()..].to_vec();
    for (k, ct) in cts.iter().enumerate() {
        let aval = tangent_aval(c.body.atom_aval(&c.body.outvars[k]));
        args.push(match ct {
            Some(ct) => ct.clone(),
            None => ad.zeros(&aval)?,
        });
    }
    let in_cts = ad.b.inline(&back, &args).map_err(|e| e.to_string())?;
    let mut out = vec![None; n];
    out.extend(in_cts.into_iter().map(Some));
    Ok(out)
}

/// `primal` linearized at its inputs, for a transpose that recomputes
/// it: the known program (inputs to outputs then residuals) and the
/// transposed linear one (residuals then output cotangents, to a
/// cotangent per input).
pub(super) fn relinearized(ad: &Ad, primal: &Jaxpr) -> Res<(Jaxpr, Jaxpr)> {
    let n = primal.invars.len();
    let (x64, span) = (ad.b.x64, ad.span);
    let split =
        (ad.transforms.linearize)(primal, &vec![true; n], x64, span).map_err(|e| e.to_string())?;
    let mut linear_in = vec![false; split.n_res];
    linear_in.extend(vec![true; n]);
    let ct_given = vec![true; primal.outvars.len()];
    let back = (ad.transforms.transpose)(&split.linear, &linear_in, &ct_given, x64, span)
        .map_err(|e| e.to_string())?;
    Ok((split.known, back))
}

/// A checkpoint of the batched body, every value with its lanes first.
fn checkpoint_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let c = body_of(p)?;
    let body = super::vmap_at_front(bx, &c.body)?;
    let primal = match &c.primal {
        Some(j) => Some(super::vmap_at_front(bx, j)?),
        None => None,
    };
    let args = super::operands_at_front(bx, ins, dims)?;
    let outs = bx.bind_all(&CHECKPOINT, checkpoint_params(body, primal), args)?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}

/// The body as JAX prints it: `jaxpr={ lambda ; .. }` on its own inputs.
fn printed<'a>(p: &'a Params, ins: &[Atom]) -> (Vec<Printed<'a>>, Vec<Atom>) {
    let Params::Checkpoint(c) = p else {
        return (Vec::new(), ins.to_vec());
    };
    let printed = vec![Printed {
        name: "jaxpr",
        programs: vec![(&c.0.body, c.0.body.invars.clone())],
        tuple: false,
        alias: false,
    }];
    (printed, ins.to_vec())
}

pub static CHECKPOINT: PrimDef = PrimDef {
    name: "remat2",
    abstract_eval: checkpoint_eval,
    print_params: |_, p| {
        let differentiated = matches!(p, Params::Checkpoint(c) if c.0.primal.is_some());
        vec![
            (
                "differentiated",
                if differentiated { "True" } else { "False" }.into(),
            ),
            ("jaxpr", super::NESTED.into()),
            ("policy", "None".into()),
            ("prevent_cse", "True".into()),
        ]
    },
    parse_params: |r, _, _| {
        if r.bool("differentiated")? {
            // Forward mode's call of the tangent half: its transpose
            // relinearizes the primal function, which the text lacks.
            return Err("`remat2` with differentiated=True cannot be imported: the primal function its reverse mode recomputes is not in the text (only the differentiated body is)".into());
        }
        crate::prims::rules::expect_none(
            r,
            "policy",
            "what reverse mode saves is the call's inputs alone here",
        )?;
        // Checked `True` when printed back.
        r.skip("prevent_cse");
        Ok(checkpoint_params(r.jaxpr("jaxpr")?, None))
    },
    nested: Some(printed),
    // Replaced by its body before emission (`inline_calls`); its cost is
    // its body's.
    lowering: Lowering::Kernel,
    jvp: Some(checkpoint_jvp as JvpRule),
    transpose: Some(checkpoint_transpose as TransposeRule),
    batch: Some(checkpoint_batch),
    ..PrimDef::BASE
};

/// `optimization_barrier` of one operand: its value unchanged, read in
/// place (a view of the operand's buffer), but a value of its own that
/// simplification does not merge with any other: what keeps a checkpoint's
/// recomputation apart from the forward pass.
pub static OPTIMIZATION_BARRIER: PrimDef = PrimDef {
    name: "optimization_barrier",
    abstract_eval: |ops, _, _| match ops {
        [x] => Ok(vec![x.clone()]),
        _ => Err("optimization_barrier takes one operand here".into()),
    },
    lowering: Lowering::IndexMap,
    view: Some(|_, _, _| super::View::RowMajor),
    jvp: Some(|_, _, t, _, _| Ok(vec![t[0].clone()])),
    transpose: Some(|_, cts, _, _, _| Ok(vec![cts[0].clone()])),
    batch: Some(|bx, ins, dims, p| {
        let out = bx.bind(&OPTIMIZATION_BARRIER, p.clone(), ins.to_vec())?;
        Ok(vec![(out, dims[0])])
    }),
    ..PrimDef::BASE
};
