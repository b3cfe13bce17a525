//! Arrays assembled from pieces by a runtime kernel: `concatenate`. (The
//! scatters, which write updates into a copy of an array, are `scatter.rs`.)

use super::params_err;
use super::views::SLICE;
use crate::ir::shapes::same_dim;
use crate::ir::{Atom, Aval, Dim};
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::rust_type;
use crate::prims::{
    dim_tokens, Ad, BDim, Batch, Bind, JvpRule, Kernel, KernelArgs, Lowering, Params, PrimDef, Res,
    TransposeRule,
};

/// Joins arrays along an axis.
pub static CONCATENATE: PrimDef = PrimDef {
    name: "concatenate",
    abstract_eval: |ops, p, c| {
        let Params::Concatenate { dim } = p else {
            return Err(params_err("concatenate"));
        };
        let first = &ops[0];
        let mut total = 0usize;
        for op in ops {
            if op.rank() != first.rank() || op.dtype != first.dtype || *dim >= op.rank() {
                return Err(format!(
                    "Cannot concatenate arrays with different numbers of dimensions or dtypes: got {first} and {op}"
                ));
            }
            for k in (0..op.rank()).filter(|k| k != dim) {
                if !same_dim(
                    &op.shape[k],
                    &first.shape[k],
                    "concatenated arrays must match off the axis",
                    c,
                ) {
                    return Err(format!(
                        "Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: {first} and {op}"
                    ));
                }
            }
            match op.shape[*dim] {
                Dim::Lit(n) => total += n,
                Dim::Sym(_) => {
                    return Err("concatenate along a symbolic axis is not supported".into())
                }
            }
        }
        let mut shape = first.shape.clone();
        shape[*dim] = Dim::Lit(total);
        Ok(vec![Aval {
            dtype: first.dtype,
            shape,
            weak: ops.iter().all(|o| o.weak),
        }])
    },
    print_params: |_, p| match p {
        Params::Concatenate { dim } => vec![("dimension", dim.to_string())],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        Ok(Params::Concatenate {
            dim: r.usize("dimension")?,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: concatenate_call,
    }),
    jvp: Some(concatenate_jvp as JvpRule),
    transpose: Some(concatenate_transpose as TransposeRule),
    batch: Some(concatenate_batch),
    ..PrimDef::BASE
};

/// The runtime's `concatenate` of the operands' buffers.
fn concatenate_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Concatenate { dim } = a.params else {
        unreachable!("{}", params_err("concatenate"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let mut parts = Vec::new();
    for (k, av) in a.avals.iter().enumerate() {
        let b = (a.bind)(k, Bind::Buffer);
        let shape: Vec<TokenStream> = av.shape.iter().map(dim_tokens).collect();
        parts.push(quote!((&#b[..], &[#(#shape),*][..])));
    }
    quote!(::jax::__rt::concatenate::<#ty>(&[#(#parts),*], #dim))
}

fn concatenate_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    if t.iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let mut parts = Vec::new();
    for (x, tx) in ins.iter().zip(t) {
        parts.push(ad.tangent_or_zeros(tx, x)?);
    }
    Ok(vec![Some(ad.bind(&CONCATENATE, p.clone(), parts)?)])
}

/// `concatenate`: each linear operand's slice of the cotangent.
fn concatenate_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Concatenate { dim } = p else {
        unreachable!()
    };
    let ct_aval = ad.aval(&ct);
    let mut offset = 0usize;
    let mut out = Vec::new();
    for (x, aval) in ins.iter().zip(avals) {
        let Dim::Lit(n) = aval.shape[*dim] else {
            return Err("reverse-mode differentiation of concatenate along a symbolic dimension is not supported yet".into());
        };
        if x.is_none() {
            let mut start = vec![0; ct_aval.rank()];
            let mut limit: Vec<usize> = Vec::new();
            for d in &ct_aval.shape {
                let Dim::Lit(d) = d else {
                    return Err("reverse-mode differentiation of concatenate with symbolic dimensions is not supported yet".into());
                };
                limit.push(*d);
            }
            start[*dim] = offset;
            limit[*dim] = offset + n;
            out.push(Some(ad.bind(
                &SLICE,
                Params::Slice {
                    start,
                    limit,
                    strides: None,
                },
                vec![ct.clone()],
            )?));
        } else {
            out.push(None);
        }
        offset += n;
    }
    Ok(out)
}

/// Every operand's batch axis moved first (a shared operand repeated along
/// a new first axis), joined one axis further (`_concatenate_batch_rule`).
fn concatenate_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let Params::Concatenate { dim } = p else {
        return Err(params_err("concatenate"));
    };
    let size = lanes(bx, ins, dims);
    let mut parts = Vec::new();
    for (x, d) in ins.iter().zip(dims) {
        parts.push(match d {
            Some(d) => bx.moveaxis(x.clone(), *d, 0)?,
            None => {
                // `lax.broadcast`: Python integers.
                let mut shape = bx.aval(x).shape;
                let to: Vec<usize> = (1..=shape.len()).collect();
                shape.insert(0, size.clone());
                super::views::broadcast_dims(bx, x.clone(), &shape, &to)?
            }
        });
    }
    let out = bx.bind(&CONCATENATE, Params::Concatenate { dim: dim + 1 }, parts)?;
    Ok(vec![(out, Some(0))])
}

/// The number of lanes: the size of the first batched operand's batch axis.
fn lanes(bx: &Batch, ins: &[Atom], dims: &[BDim]) -> Dim {
    ins.iter()
        .zip(dims)
        .find_map(|(x, d)| d.map(|d| bx.aval(x).shape[d].clone()))
        .unwrap_or_else(|| bx.size.clone())
}
