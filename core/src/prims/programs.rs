//! Helpers of the primitives that hold programs (`while`, `scan`, `cond`):
//! a nested body's jvp with its tangents regrouped, a program built from
//! avals, a program's batching remembered by its inputs' axes, and the
//! transformations a rule applies to the programs it holds.

use super::{Ad, BDim, Batch, Ctx, Res};
use crate::ir::builder::Builder;
use crate::ir::rules::{Split, Wrt};
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
