//! Arrays assembled from pieces by runtime kernels: `concatenate`, and the
//! scatters that write an update into a copy of an array.

use super::params_err;
use super::reductions::REDUCE_SUM;
use super::views::{reshape_to, SLICE};
use crate::ir::shapes::same_dim;
use crate::ir::{Atom, Aval, Dim};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::rust_type;
use crate::prims::{
    dim_tokens, row_major_strides, size_tokens, Ad, BDim, Batch, Bind, JvpRule, Kernel, KernelArgs,
    Lowering, Monoid, Params, PrimDef, Res, TransposeRule,
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

/// `scatter` (`x.at[i].set(v)`) and `scatter-add`/`-mul`/`-min`/`-max`:
/// operands are the array, the indices (`i32[k]`, one per leading axis) and
/// the update (a scalar, or an array of the window's shape). Out-of-bounds
/// indices drop the update, as JAX's default `FILL_OR_DROP` mode.
fn scatter_eval(name: &str, ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::Scatter {
        lead,
        inserted,
        window_rank,
        ..
    } = p
    else {
        return Err(params_err(name));
    };
    let (x, idx, upd) = (&ops[0], &ops[1], &ops[2]);
    if idx.shape != [Dim::Lit(*inserted)] || lead + inserted + window_rank != x.rank() {
        return Err(format!("{name}: indices {idx} do not index {x}"));
    }
    if upd.dtype != x.dtype {
        return Err(format!(
            "{name}: the update {upd} must have the dtype of {x}"
        ));
    }
    let window: Vec<Dim> = x.shape[..*lead]
        .iter()
        .chain(&x.shape[lead + inserted..])
        .cloned()
        .collect();
    if upd.rank() != 0 && upd.shape != window {
        return Err(format!(
            "{name}: the update {upd} does not fit the window of {x}"
        ));
    }
    Ok(vec![x.clone()])
}

fn scatter_params(p: &Params, combine: Option<&str>) -> Vec<(&'static str, String)> {
    let Params::Scatter {
        lead,
        inserted,
        window_rank,
        ..
    } = p
    else {
        return Vec::new();
    };
    // Each batch axis `vmap` added moved the others one further with
    // NumPy (`np.add(1, ..)`), so all but a window's first axis print as
    // NumPy integers.
    let ins = crate::prims::np_tuple(
        &(*lead..lead + inserted).collect::<Vec<_>>(),
        if *lead > 0 { u32::MAX } else { 0 },
    );
    let win = crate::prims::np_tuple(
        &(0..lead + window_rank).collect::<Vec<_>>(),
        if *lead > 0 { !1 } else { 0 },
    );
    vec![
        (
            "dimension_numbers",
            format!(
                "ScatterDimensionNumbers(update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={}, operand_batching_dims=(), scatter_indices_batching_dims=())",
                win, ins, ins
            ),
        ),
        ("indices_are_sorted", "True".into()),
        ("mode", "GatherScatterMode.FILL_OR_DROP".into()),
        ("unique_indices", "True".into()),
        ("update_consts", "()".into()),
        (
            "update_jaxpr",
            match combine {
                // The printer renders this as a one-equation jaxpr in its naming context.
                Some(op) => format!("{}{op}", crate::ir::print::SCALAR_JAXPR),
                None => "None".into(),
            },
        ),
    ]
}

macro_rules! scatter {
    ($($id:ident = $name:literal, $combine:expr, $jvp:expr, $transpose:expr;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| match p {
                Params::ScatterIndexed(s) => super::gather::scatter_indexed_eval($name, ops, s),
                _ => scatter_eval($name, ops, p),
            },
            print_params: |_, p| match p {
                Params::ScatterIndexed(s) => super::gather::scatter_indexed_print(s, $combine.map(Monoid::op)),
                _ => scatter_params(p, $combine.map(Monoid::op)),
            },
            lowering: Lowering::Kernel,
            kernel: Some(Kernel {
                updates: Some(0),
                unread: &[1],
                call: |a| match a.params {
                    Params::ScatterIndexed(s) => super::gather::scatter_indexed_call(a, s, $combine),
                    _ => scatter_call(a, $combine),
                },
            }),
            jvp: $jvp,
            transpose: $transpose,
            batch: Some(scatter_batch),
            ..PrimDef::BASE
        };
    )*};
}

scatter! {
    SCATTER = "scatter", None, Some(scatter_set_jvp as JvpRule), Some(scatter_set_transpose as TransposeRule);
    SCATTER_ADD = "scatter-add", Some(Monoid::Add), Some(scatter_add_jvp as JvpRule), Some(scatter_add_transpose as TransposeRule);
    SCATTER_MUL = "scatter-mul", Some(Monoid::Mul), Some(super::gather::scatter_mul_jvp as JvpRule), Some(super::gather::scatter_mul_transpose as TransposeRule);
    SCATTER_MIN = "scatter-min", Some(Monoid::Min), Some(scatter_min_jvp as JvpRule), None;
    SCATTER_MAX = "scatter-max", Some(Monoid::Max), Some(scatter_max_jvp as JvpRule), None;
}

/// A scatter's update of the result's buffer (which starts as the operand):
/// at static indices, so an index out of bounds drops the update
/// (`FILL_OR_DROP`) and nothing is emitted; `combine` combines the update
/// with the element it lands on (`None`: overwrites it).
fn scatter_call(a: KernelArgs<'_>, combine: Option<Monoid>) -> TokenStream {
    let Params::Scatter {
        lead,
        inserted,
        indices,
        ..
    } = a.params
    else {
        unreachable!("{}", params_err("scatter"))
    };
    let (lead, inserted) = (*lead, *inserted);
    let dims = &a.avals[0].shape;
    let in_bounds = indices
        .iter()
        .zip(&dims[lead..])
        .all(|(&i, d)| matches!(d, Dim::Lit(n) if i >= 0 && (i as usize) < *n));
    if !in_bounds {
        return TokenStream::new();
    }
    let strides = row_major_strides(dims);
    let terms: Vec<TokenStream> = indices
        .iter()
        .zip(&strides[lead..])
        .map(|(&i, s)| {
            let i = i as usize;
            quote!(#i * #s)
        })
        .collect();
    let base = quote!(0usize #(+ #terms)*);
    let window = size_tokens(&dims[lead + inserted..]);
    if lead > 0 {
        return lanes_scatter(a, combine, &base, &window, size_tokens(&dims[..lead]));
    }
    let upd = (a.bind)(2, Bind::Value);
    let value = if a.avals[2].rank() == 0 {
        upd
    } else {
        quote!(#upd[__w])
    };
    let update = match combine {
        None => value,
        Some(m) => {
            let f = format_ident!("{}", m.op());
            quote!(::jax::__rt::ops::#f(__win[__w], #value))
        }
    };
    let name = a.out;
    quote! {
        {
            let __win = &mut #name[#base..#base + #window];
            for __w in 0..#window {
                __win[__w] = #update;
            }
        }
    }
}

/// A batched scatter (`lead` batch axes in front): each lane's window
/// written at the same static position within its lane, from the lane's
/// update.
fn lanes_scatter(
    a: KernelArgs<'_>,
    combine: Option<Monoid>,
    base: &TokenStream,
    window: &TokenStream,
    lanes: TokenStream,
) -> TokenStream {
    let Params::Scatter { lead, .. } = a.params else {
        unreachable!("{}", params_err("scatter"))
    };
    let lane = size_tokens(&a.avals[0].shape[*lead..]);
    let upd = (a.bind)(2, Bind::Value);
    let value = if a.avals[2].rank() == 0 {
        upd
    } else {
        quote!(#upd[__l * #window + __w])
    };
    let update = match combine {
        None => value,
        Some(m) => {
            let f = format_ident!("{}", m.op());
            quote!(::jax::__rt::ops::#f(__win[__w], #value))
        }
    };
    let name = a.out;
    quote! {
        for __l in 0..#lanes {
            let __at = __l * #lane + #base;
            let __win = &mut #name[__at..__at + #window];
            for __w in 0..#window {
                __win[__w] = #update;
            }
        }
    }
}

/// `scatter` and `scatter-add` are linear in (operand, updates) together:
/// the same scatter of the tangents.
fn scatter_linear_jvp(
    prim: &'static PrimDef,
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    if t[0].is_none() && t[2].is_none() {
        return Ok(vec![None]);
    }
    let tx = ad.tangent_or_zeros(&t[0], &ins[0])?;
    let tu = ad.tangent_or_zeros(&t[2], &ins[2])?;
    Ok(vec![Some(ad.bind(
        prim,
        p.clone(),
        vec![tx, ins[1].clone(), tu],
    )?)])
}

fn scatter_set_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    if let Params::ScatterIndexed(s) = p {
        if !s.unique_indices {
            return super::gather::scatter_set_repeated_jvp(ad, ins, t, s);
        }
    }
    scatter_linear_jvp(&SCATTER, ad, ins, t, p)
}

fn scatter_min_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    super::gather::scatter_extremal_jvp(ad, ins, t, p, outs)
}

fn scatter_max_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    super::gather::scatter_extremal_jvp(ad, ins, t, p, outs)
}

fn scatter_add_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    scatter_linear_jvp(&SCATTER_ADD, ad, ins, t, p)
}

fn scatter_set_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    if let Params::ScatterIndexed(s) = p {
        super::gather::scatter_set_indexed_check(s)?;
        return super::gather::scatter_indexed_transpose(true, ad, ct, ins, avals, s);
    }
    scatter_transpose(true, ad, ct, ins, avals, p)
}

fn scatter_add_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    if let Params::ScatterIndexed(s) = p {
        return super::gather::scatter_indexed_transpose(false, ad, ct, ins, avals, s);
    }
    scatter_transpose(false, ad, ct, ins, avals, p)
}

/// The window a static scatter writes, as `(start, limit)` per axis, or
/// `None` when an index is out of bounds (the update is dropped).
fn scatter_window(p: &Params, x: &Aval) -> Res<Option<(Vec<usize>, Vec<usize>)>> {
    let Params::Scatter {
        lead,
        inserted,
        indices,
        ..
    } = p
    else {
        unreachable!()
    };
    let mut start = Vec::new();
    let mut limit = Vec::new();
    for (k, d) in x.shape.iter().enumerate() {
        let Dim::Lit(n) = d else {
            return Err("reverse-mode differentiation of an update of a symbolic dimension is not supported yet".into());
        };
        if (*lead..lead + inserted).contains(&k) {
            let i = indices[k - lead];
            let i = if i < 0 { i + *n as i128 } else { i };
            if i < 0 || i >= *n as i128 {
                return Ok(None);
            }
            start.push(i as usize);
            limit.push(i as usize + 1);
        } else {
            start.push(0);
            limit.push(*n);
        }
    }
    Ok(Some((start, limit)))
}

/// `scatter`/`scatter-add` transposed: the operand's cotangent is `ct`
/// (with the overwritten window zeroed, for `scatter`); the update's is the
/// window of `ct` (summed, for a broadcast scalar update).
fn scatter_transpose(
    overwrites: bool,
    ad: &mut Ad,
    ct: Atom,
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let (x, upd) = (&avals[0], &avals[2]);
    let window = scatter_window(p, x)?;
    let cx = match (&ins[0], overwrites) {
        (Some(_), _) => None,
        (None, false) => Some(ct.clone()),
        (None, true) => {
            let idx = ins[1].clone().ok_or("scatter indices are not linear")?;
            let zero = ad.lit(0.0, &ct);
            Some(ad.bind(&SCATTER, p.clone(), vec![ct.clone(), idx, zero])?)
        }
    };
    let cu = if ins[2].is_none() {
        Some(match &window {
            None => {
                let a = crate::ir::rules::tangent_aval(upd);
                ad.zeros(&a)?
            }
            Some((start, limit)) => {
                let w = ad.bind(
                    &SLICE,
                    Params::Slice {
                        start: start.clone(),
                        limit: limit.clone(),
                        strides: None,
                    },
                    vec![ct.clone()],
                )?;
                if upd.rank() == 0 {
                    let all: Vec<usize> = (0..x.rank()).collect();
                    ad.bind(&REDUCE_SUM, Params::Axes(all, 0), vec![w])?
                } else {
                    reshape_to(ad, w, &upd.shape)?
                }
            }
        })
    } else {
        None
    };
    Ok(vec![cx, None, cu])
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

/// A scatter at indices every lane shares: the operand's and the update's
/// batch axes moved first (shared ones repeated), one more leading window
/// axis (`_scatter_batching_rule`, unbatched indices).
fn scatter_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    if let Params::ScatterIndexed(s) = p {
        return super::gather::scatter_indexed_batch(bx, ins, dims, s);
    }
    let Params::Scatter {
        lead,
        inserted,
        window_rank,
        indices,
    } = p
    else {
        return Err(params_err("scatter"));
    };
    if dims[1].is_some() {
        return Err("vmap of a scatter at indices that differ by lane is not supported: its indices are known when the function compiles".into());
    }
    let size = lanes(bx, ins, dims);
    let x = bx.at_front(ins[0].clone(), dims[0], size.clone())?;
    let upd = bx.at_front(ins[2].clone(), dims[2], size)?;
    let params = Params::Scatter {
        lead: lead + 1,
        inserted: *inserted,
        window_rank: *window_rank,
        indices: indices.clone(),
    };
    let prim = bx.prim;
    let out = bx.bind(prim, params, vec![x, ins[1].clone(), upd])?;
    Ok(vec![(out, Some(0))])
}
