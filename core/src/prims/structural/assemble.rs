//! Arrays assembled from pieces by a runtime kernel: `concatenate`,
//! `stack` (JAX's `lax.stack`: pieces of one shape along a new axis), and
//! `concatenate`'s inverse `split`. (The scatters, which write updates into a copy of
//! an array, are `scatter.rs`.)

use super::params_err;
use super::views::{reshape_to, SLICE};
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
fn concatenate_call(mut a: KernelArgs<'_>) -> TokenStream {
    let Params::Concatenate { dim } = a.params else {
        unreachable!("{}", params_err("concatenate"))
    };
    joined_call(&mut a, *dim, None)
}

/// The runtime's `concatenate` of the operands' buffers along `dim`, each
/// seen with a size-1 axis inserted at `new_axis` (`stack`) if given.
fn joined_call(a: &mut KernelArgs<'_>, dim: usize, new_axis: Option<usize>) -> TokenStream {
    let ty = rust_type(a.out_aval.dtype);
    let mut parts = Vec::new();
    for (k, av) in a.avals.iter().enumerate() {
        let b = (a.bind)(k, Bind::Buffer);
        let mut shape: Vec<TokenStream> = av.shape.iter().map(dim_tokens).collect();
        if let Some(at) = new_axis {
            shape.insert(at, quote!(1usize));
        }
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
    joined_jvp(ad, &CONCATENATE, ins, t, p)
}

/// `concatenate` and `stack` are linear: the same join of the tangents.
fn joined_jvp(
    ad: &mut Ad,
    prim: crate::ir::primitive::Prim,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    if t.iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let mut parts = Vec::new();
    for (x, tx) in ins.iter().zip(t) {
        parts.push(ad.tangent_or_zeros(tx, x)?);
    }
    Ok(vec![Some(ad.bind(prim, p.clone(), parts)?)])
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
    let parts = lanes_first(bx, ins, dims)?;
    let out = bx.bind(&CONCATENATE, Params::Concatenate { dim: dim + 1 }, parts)?;
    Ok(vec![(out, Some(0))])
}

/// Arrays of one shape and dtype joined along a new axis (`lax.stack`,
/// what `jnp.stack` of a list binds).
pub static STACK: PrimDef = PrimDef {
    name: "stack",
    abstract_eval: |ops, p, c| {
        let Params::Stack { axis } = p else {
            return Err(params_err("stack"));
        };
        let Some(first) = ops.first() else {
            return Err("stack expects at least one operand, got 0.".into());
        };
        let shapes = || {
            ops.iter()
                .map(|o| crate::prims::tuple(&o.shape))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if ops.iter().any(|o| o.rank() != first.rank()) {
            return Err(format!(
                "Cannot stack arrays with different numbers of dimensions: got {}.",
                shapes()
            ));
        }
        let same = ops.iter().all(|o| {
            o.shape
                .iter()
                .zip(&first.shape)
                .all(|(a, b)| same_dim(a, b, "stacked arrays must have one shape", c))
        });
        if !same {
            return Err(format!(
                "All input arrays must have the same shape. Got {}.",
                shapes()
            ));
        }
        if let Some(o) = ops.iter().find(|o| o.dtype != first.dtype) {
            return Err(format!(
                "stack requires arguments to have the same dtypes, got {}, {}.",
                first.dtype.name(),
                o.dtype.name()
            ));
        }
        if *axis > first.rank() {
            return Err(format!(
                "stack axis {axis} is out of bounds for arrays of rank {}",
                first.rank()
            ));
        }
        let mut shape = first.shape.clone();
        shape.insert(*axis, Dim::Lit(ops.len()));
        Ok(vec![Aval {
            dtype: first.dtype,
            shape,
            weak: ops.iter().all(|o| o.weak),
        }])
    },
    print_params: |_, p| match p {
        Params::Stack { axis } => vec![("axis", axis.to_string())],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        Ok(Params::Stack {
            axis: r.usize("axis")?,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: stack_call,
    }),
    jvp: Some(stack_jvp as JvpRule),
    transpose: Some(stack_transpose as TransposeRule),
    batch: Some(stack_batch),
    ..PrimDef::BASE
};

/// The runtime's `concatenate` of the operands' buffers, each seen with a
/// size-1 axis at `axis` (the same elements in the same order).
fn stack_call(mut a: KernelArgs<'_>) -> TokenStream {
    let Params::Stack { axis } = a.params else {
        unreachable!("{}", params_err("stack"))
    };
    joined_call(&mut a, *axis, Some(*axis))
}

/// Linear: the stack of the tangents.
fn stack_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    joined_jvp(ad, &STACK, ins, t, p)
}

/// Each linear operand's slice of the cotangent along `axis`, without
/// that axis (JAX binds `unstack`; the values are the same).
fn stack_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Stack { axis } = p else {
        return Err(params_err("stack"));
    };
    let mut limit: Vec<usize> = Vec::new();
    for d in &ad.aval(&ct).shape {
        let Dim::Lit(d) = d else {
            return Err("reverse-mode differentiation of stack with symbolic dimensions is not supported yet".into());
        };
        limit.push(*d);
    }
    let mut out = Vec::new();
    for (k, (x, aval)) in ins.iter().zip(avals).enumerate() {
        if x.is_some() {
            out.push(None);
            continue;
        }
        let mut start = vec![0; limit.len()];
        let mut end = limit.clone();
        start[*axis] = k;
        end[*axis] = k + 1;
        let piece = ad.bind(
            &SLICE,
            Params::Slice {
                start,
                limit: end,
                strides: None,
            },
            vec![ct.clone()],
        )?;
        out.push(Some(reshape_to(ad, piece, &aval.shape)?));
    }
    Ok(out)
}

/// JAX's `_stack_batch_rule`: operands batched along one axis stack one
/// axis over; otherwise every batch axis moves first (a shared operand
/// repeated along it) and the stack is one axis further.
fn stack_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::Stack { axis } = p else {
        return Err(params_err("stack"));
    };
    if let Some(Some(b)) = dims.first() {
        if dims.iter().all(|d| *d == Some(*b)) {
            let (out_axis, out_b) = if *axis <= *b {
                (*axis, b + 1)
            } else {
                (axis + 1, *b)
            };
            let out = bx.bind(&STACK, Params::Stack { axis: out_axis }, ins.to_vec())?;
            return Ok(vec![(out, Some(out_b))]);
        }
    }
    let parts = lanes_first(bx, ins, dims)?;
    let out = bx.bind(&STACK, Params::Stack { axis: axis + 1 }, parts)?;
    Ok(vec![(out, Some(0))])
}

/// Every operand with its batch axis first; a shared one repeated along a
/// new first axis (`lax.broadcast`: Python integers).
fn lanes_first(bx: &mut Batch, ins: &[Atom], dims: &[BDim]) -> Res<Vec<Atom>> {
    let size = lanes(bx, ins, dims);
    let mut parts = Vec::new();
    for (x, d) in ins.iter().zip(dims) {
        parts.push(match d {
            Some(d) => bx.moveaxis(x.clone(), *d, 0)?,
            None => {
                let mut shape = bx.aval(x).shape;
                let to: Vec<usize> = (1..=shape.len()).collect();
                shape.insert(0, size.clone());
                super::views::broadcast_dims(bx, x.clone(), &shape, &to)?
            }
        });
    }
    Ok(parts)
}

/// The number of lanes: the size of the first batched operand's batch axis.
fn lanes(bx: &Batch, ins: &[Atom], dims: &[BDim]) -> Dim {
    ins.iter()
        .zip(dims)
        .find_map(|(x, d)| d.map(|d| bx.aval(x).shape[d].clone()))
        .unwrap_or_else(|| bx.size.clone())
}

fn split_params(p: &Params) -> Res<(usize, &[usize])> {
    match p {
        Params::Split { axis, sizes, .. } => Ok((*axis, sizes)),
        _ => Err(params_err("split")),
    }
}

/// Cuts an array into consecutive pieces along an axis (`jnp.split`,
/// `lax.split`; JAX's jacobians split their stacked rows with it).
pub static SPLIT: PrimDef = PrimDef {
    name: "split",
    abstract_eval: |ops, p, _| {
        let (axis, sizes) = split_params(p)?;
        let x = &ops[0];
        if axis >= x.rank() {
            return Err(format!("split axis {axis} is out of bounds for {x}"));
        }
        let total: usize = sizes.iter().sum();
        if x.shape[axis] != Dim::Lit(total) {
            return Err(format!(
                "split sizes {} must sum to the size of axis {axis} of {x}",
                crate::prims::tuple(sizes)
            ));
        }
        Ok(sizes
            .iter()
            .map(|&n| {
                let mut shape = x.shape.clone();
                shape[axis] = Dim::Lit(n);
                Aval {
                    dtype: x.dtype,
                    shape,
                    weak: x.weak,
                }
            })
            .collect())
    },
    print_params: |_, p| match p {
        Params::Split {
            axis,
            sizes,
            np_ints,
        } => vec![
            ("axis", axis.to_string()),
            ("sizes", crate::prims::np_tuple(sizes, *np_ints)),
        ],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        let (sizes, np_ints) = r.usizes_np("sizes")?;
        Ok(Params::Split {
            axis: r.usize("axis")?,
            sizes,
            np_ints,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: split_call,
    }),
    // Simplification makes each piece a `slice`, a view its consumers read
    // in place; the kernel serves unsimplified programs (the NaN replay).
    rewrite: Some(split_as_slices),
    jvp: Some(split_jvp as JvpRule),
    transpose: Some(split_transpose as TransposeRule),
    batch: Some(split_batch),
    ..PrimDef::BASE
};

/// Each piece's rows copied out of the operand's buffer.
fn split_call(a: KernelArgs<'_>) -> TokenStream {
    let Ok((axis, sizes)) = split_params(a.params) else {
        unreachable!("{}", params_err("split"))
    };
    let x = (a.bind)(0, Bind::Buffer);
    let shape = &a.avals[0].shape;
    let outer = crate::prims::size_tokens(&shape[..axis]);
    let inner = crate::prims::size_tokens(&shape[axis + 1..]);
    let len = dim_tokens(&shape[axis]);
    let mut start = 0usize;
    let pieces: Vec<TokenStream> = sizes
        .iter()
        .map(|&n| {
            let s = start;
            start += n;
            quote!({
                let mut __piece = ::std::vec::Vec::with_capacity(__outer * #n * __inner);
                for __o in 0..__outer {
                    let __at = (__o * __len + #s) * __inner;
                    __piece.extend_from_slice(&__x[__at..__at + #n * __inner]);
                }
                __piece
            })
        })
        .collect();
    let result = if pieces.len() == 1 {
        quote!(#(#pieces)*)
    } else {
        quote!((#(#pieces),*))
    };
    quote!({
        let __x = &#x[..];
        let (__outer, __len, __inner): (usize, usize, usize) = (#outer, #len, #inner);
        #result
    })
}

/// The pieces as `slice` equations (static shapes only).
fn split_as_slices<'a>(
    j: &mut crate::ir::Jaxpr,
    e: &crate::ir::Eqn,
    _: &dyn Fn(crate::ir::Var) -> Option<&'a crate::ir::Eqn>,
) -> Option<Vec<crate::ir::Eqn>> {
    let (axis, sizes) = split_params(&e.params).ok()?;
    let x = j.atom_aval(&e.ins[0]);
    let limit: Vec<usize> = x
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Some(*n),
            Dim::Sym(_) => None,
        })
        .collect::<Option<_>>()?;
    let mut start = 0;
    let mut eqns = Vec::new();
    for (&n, &out) in sizes.iter().zip(&e.outs) {
        let mut lo = vec![0; limit.len()];
        let mut hi = limit.clone();
        lo[axis] = start;
        hi[axis] = start + n;
        start += n;
        eqns.push(crate::ir::Eqn {
            prim: &SLICE,
            params: Params::Slice {
                start: lo,
                limit: hi,
                strides: None,
            },
            ins: vec![e.ins[0].clone()],
            outs: vec![out],
            span: e.span,
        });
    }
    Some(eqns)
}

/// Linear: the same split of the tangent.
fn split_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Some(t0) = &t[0] else {
        return Ok(vec![None; outs.len()]);
    };
    Ok(ad
        .bind_all(&SPLIT, p.clone(), vec![t0.clone()])?
        .into_iter()
        .map(Some)
        .collect())
}

/// The pieces' cotangents joined again (zeros for a piece none reached).
fn split_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let (axis, sizes) = split_params(p)?;
    let mut parts = Vec::new();
    for (ct, &n) in cts.iter().zip(sizes) {
        parts.push(match ct {
            Some(ct) => ct.clone(),
            None => {
                let mut shape = avals[0].shape.clone();
                shape[axis] = Dim::Lit(n);
                let aval = crate::ir::rules::tangent_aval(&Aval {
                    shape,
                    ..avals[0].clone()
                });
                ad.zeros(&aval)?
            }
        });
    }
    Ok(vec![Some(ad.bind(
        &CONCATENATE,
        Params::Concatenate { dim: axis },
        parts,
    )?)])
}

/// The batch axis first, the split axis one further.
fn split_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::Split {
        axis,
        sizes,
        np_ints,
    } = p
    else {
        return Err(params_err("split"));
    };
    let d = dims[0].expect("split's only operand is batched");
    let x = bx.moveaxis(ins[0].clone(), d, 0)?;
    let outs = bx.bind_all(
        &SPLIT,
        Params::Split {
            axis: axis + 1,
            sizes: sizes.clone(),
            np_ints: *np_ints,
        },
        vec![x],
    )?;
    Ok(outs.into_iter().map(|o| (o, Some(0))).collect())
}
