//! Sorting: `sort` (several operands sorted together along one axis by the
//! first `num_keys`, as XLA's sort) and `top_k`; argsort sorts an `iota` along with
//! its keys. `sort` and `top_k` run as kernels of `::jax::__rt::sort`, the code eager
//! `jnp::sort`/`argsort` use.

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::quote;

use super::{
    dim_tokens, tuple, Ad, BDim, Batch, Bind, JvpRule, Kernel, KernelArgs, Lowering, Params,
    PrimDef, Res, TransposeRule, IOTA,
};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim};

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// `lax.sort_p`: results are the operands, each permuted along `dimension`
/// as the keys' lexicographic order (NaNs last, `-0.0 == 0.0`) sorts them.
pub static SORT: PrimDef = PrimDef {
    name: "sort",
    abstract_eval: |ops, p, _| {
        let Params::Sort {
            dimension,
            num_keys,
            ..
        } = p
        else {
            return Err("internal error: sort got the wrong parameters".into());
        };
        if ops.is_empty() {
            return Err("sort needs at least one operand".into());
        }
        if ops.iter().any(|a| a.shape != ops[0].shape) {
            let shapes: Vec<String> = ops.iter().map(|a| tuple(&a.shape)).collect();
            return Err(format!(
                "Arguments to sort must have equal shapes, got: {}",
                shapes.join(" ")
            ));
        }
        if *dimension >= ops[0].rank() {
            return Err(format!(
                "sort: dimension {dimension} is out of bounds for an array of rank {}",
                ops[0].rank()
            ));
        }
        if *num_keys < 1 || *num_keys > ops.len() {
            return Err(format!(
                "num_keys={num_keys} must be between 1 and the number of operands ({})",
                ops.len()
            ));
        }
        if ops
            .iter()
            .any(|a| a.shape.iter().any(|d| matches!(d, Dim::Sym(_))))
        {
            return Err("sort of an array with a symbolic dimension is not supported yet".into());
        }
        Ok(ops.to_vec())
    },
    print_params: |_, p| match p {
        Params::Sort {
            dimension,
            is_stable,
            num_keys,
        } => vec![
            ("dimension", dimension.to_string()),
            ("is_stable", py_bool(*is_stable).to_string()),
            ("num_keys", num_keys.to_string()),
        ],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        Ok(Params::Sort {
            dimension: r.usize("dimension")?,
            is_stable: r.bool("is_stable")?,
            num_keys: r.usize("num_keys")?,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: sort_call,
    }),
    jvp: Some(sort_jvp as JvpRule),
    transpose: Some(sort_transpose as TransposeRule),
    batch: Some(sort_batch),
    // A comparison sort: about log2(n) comparisons per element.
    work: 16,
    ..PrimDef::BASE
};

/// The permutation from the keys, then every operand permuted by it (a
/// tuple of buffers when there are several).
fn sort_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Sort {
        dimension,
        num_keys,
        ..
    } = a.params
    else {
        unreachable!("sort carries Params::Sort")
    };
    let shape: Vec<TokenStream> = a.avals[0].shape.iter().map(dim_tokens).collect();
    let bufs: Vec<TokenStream> = (0..a.avals.len())
        .map(|k| (a.bind)(k, Bind::Buffer))
        .collect();
    let keys = &bufs[..*num_keys];
    let outs: Vec<TokenStream> = bufs
        .iter()
        .zip(a.out_avals)
        .map(|(b, av)| {
            let ty = rust_type(av.dtype);
            quote!(::jax::__rt::sort::permute::<#ty>(&#b[..], &__perm))
        })
        .collect();
    let result = if outs.len() == 1 {
        quote!(#(#outs)*)
    } else {
        quote!((#(#outs),*))
    };
    quote!({
        let __perm = ::jax::__rt::sort::permutation(
            &[#(&(&#keys[..]) as &dyn ::jax::__rt::sort::SortKey),*],
            &[#(#shape),*],
            #dimension,
        );
        #result
    })
}

/// The tangents permuted as their primals. JAX sorts an iota along with the
/// keys and gathers the tangents with it; sorting each tangent as one more
/// non-key operand applies the same permutation (a stable sort orders
/// equal keys the same way whatever else it carries), without a gather.
fn sort_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let carried: Vec<usize> = (0..ins.len()).filter(|&k| t[k].is_some()).collect();
    if carried.is_empty() {
        return Ok(vec![None; ins.len()]);
    }
    let mut operands = ins.to_vec();
    operands.extend(carried.iter().map(|&k| t[k].clone().expect("carried")));
    let sorted = ad.bind_all(&SORT, p.clone(), operands)?;
    let mut out = vec![None; ins.len()];
    for (j, &k) in carried.iter().enumerate() {
        out[k] = Some(sorted[ins.len() + j].clone());
    }
    Ok(out)
}

/// `sort` is linear in its non-key operands (a permutation): the
/// cotangent goes back through the inverse permutation. The keys sort an
/// iota into `perm` (the source position of each result), and sorting the
/// cotangents by `perm` puts each back where it came from.
fn sort_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let Params::Sort {
        dimension,
        is_stable,
        num_keys,
    } = p
    else {
        unreachable!("sort carries Params::Sort")
    };
    let mut keys = Vec::new();
    for key in &ins[..*num_keys] {
        match key {
            Some(x) => keys.push(x.clone()),
            None => {
                return Err(
                    "reverse-mode differentiation through the keys of sort: its keys must not depend on the differentiated input's tangent"
                        .into(),
                )
            }
        }
    }
    let linear: Vec<usize> = (*num_keys..ins.len())
        .filter(|&k| ins[k].is_none() && cts[k].is_some())
        .collect();
    let mut out = vec![None; ins.len()];
    if linear.is_empty() {
        return Ok(out);
    }
    let index = iota(ad, DType::I32, &avals[0], *dimension)?;
    keys.push(index);
    let params = Params::Sort {
        dimension: *dimension,
        is_stable: *is_stable,
        num_keys: *num_keys,
    };
    let perm = ad
        .bind_all(&SORT, params, keys)?
        .pop()
        .expect("one result per operand");
    let mut operands = vec![perm];
    operands.extend(linear.iter().map(|&k| cts[k].clone().expect("filtered")));
    let back = ad.bind_all(
        &SORT,
        Params::Sort {
            dimension: *dimension,
            is_stable: true,
            num_keys: 1,
        },
        operands,
    )?;
    for (j, &k) in linear.iter().enumerate() {
        out[k] = Some(back[j + 1].clone());
    }
    Ok(out)
}

/// `0, 1, ..` along `dimension` of an array of `like`'s shape.
pub fn iota(
    cx: &mut crate::ir::rules::Ctx,
    dtype: DType,
    like: &Aval,
    dimension: usize,
) -> Res<Atom> {
    cx.bind(
        &IOTA,
        Params::Iota {
            dtype,
            shape: like.shape.clone(),
            dimension,
        },
        Vec::new(),
    )
}

/// JAX's `_sort_batch_rule`: every operand's batch axis where the first
/// batched operand has it (shared operands broadcast), the sort axis
/// shifted past it.
fn sort_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::Sort {
        dimension,
        is_stable,
        num_keys,
    } = p
    else {
        unreachable!("sort carries Params::Sort")
    };
    let (proto, bdim) = ins
        .iter()
        .zip(dims)
        .find_map(|(x, d)| d.map(|d| (x.clone(), d)))
        .expect("a batched operand");
    let shape = bx.aval(&proto).shape;
    let mut operands = Vec::new();
    for (x, d) in ins.iter().zip(dims) {
        operands.push(match d {
            Some(d) => bx.moveaxis(x.clone(), *d, bdim)?,
            None => {
                let to: Vec<usize> = (0..shape.len()).filter(|&k| k != bdim).collect();
                super::broadcast_dims(bx, x.clone(), &shape, &to)?
            }
        });
    }
    let dimension = dimension + usize::from(bdim <= *dimension);
    let outs = bx.bind_all(
        &SORT,
        Params::Sort {
            dimension,
            is_stable: *is_stable,
            num_keys: *num_keys,
        },
        operands,
    )?;
    Ok(outs.into_iter().map(|o| (o, Some(bdim))).collect())
}

/// `lax.top_k_p`: the `k` largest elements along `axis`, largest first
/// (NaN largest, equal ones in their order), and their indices as int32.
pub static TOP_K: PrimDef = PrimDef {
    name: "top_k",
    abstract_eval: |ops, p, _| {
        let Params::TopK { k, axis } = p else {
            return Err("internal error: top_k got the wrong parameters".into());
        };
        let x = &ops[0];
        if x.rank() == 0 {
            return Err(format!(
                "top_k operand must have >= 1 dimension, got {}",
                tuple(&x.shape)
            ));
        }
        if *axis >= x.rank() {
            return Err(format!(
                "axis argument out of range: axis={axis} for operand.shape={}",
                tuple(&x.shape)
            ));
        }
        let Dim::Lit(n) = x.shape[*axis] else {
            return Err("top_k along a symbolic dimension is not supported yet".into());
        };
        if n < *k {
            return Err(format!(
                "k argument to top_k must be no larger than size along axis; got k={k} with shape={} and axis={axis}",
                tuple(&x.shape)
            ));
        }
        if x.dtype == DType::Bool {
            return Err("top_k does not accept bool operands: convert them first".into());
        }
        let mut shape = x.shape.clone();
        shape[*axis] = Dim::Lit(*k);
        Ok(vec![
            Aval {
                dtype: x.dtype,
                shape: shape.clone(),
                weak: x.weak,
            },
            Aval {
                dtype: DType::I32,
                shape,
                weak: false,
            },
        ])
    },
    print_params: |_, p| match p {
        Params::TopK { k, axis } => vec![("axis", axis.to_string()), ("k", k.to_string())],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        Ok(Params::TopK {
            k: r.usize("k")?,
            axis: r.usize("axis")?,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: top_k_call,
    }),
    jvp: Some(top_k_jvp as JvpRule),
    batch: Some(top_k_batch),
    work: 16,
    ..PrimDef::BASE
};

fn top_k_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::TopK { k, axis } = a.params else {
        unreachable!("top_k carries Params::TopK")
    };
    let ty = rust_type(a.avals[0].dtype);
    let shape: Vec<TokenStream> = a.avals[0].shape.iter().map(dim_tokens).collect();
    let x = (a.bind)(0, Bind::Buffer);
    quote!(::jax::__rt::sort::top_k::<#ty, i32>(&#x[..], &[#(#shape),*], #axis, #k))
}

/// The tangent at the chosen indices. JAX gathers it; with no gather
/// primitive here, each result picks its element with a one-hot mask along
/// a new axis (`select_n` then a sum of one value and zeros), which is the
/// same value and is linear in the tangent.
fn top_k_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let (Some(t), Params::TopK { axis, .. }) = (&t[0], p) else {
        return Ok(vec![None, None]);
    };
    let axis = *axis;
    let tx = ad.aval(t);
    let idx = ad.aval(&outs[1]);
    // [.., k, n, ..]: result position along `axis`, source along `axis + 1`.
    let mut wide = idx.shape.clone();
    wide.insert(axis + 1, tx.shape[axis].clone());
    let skip = |at: usize| -> Vec<usize> { (0..wide.len()).filter(|&d| d != at).collect() };
    let source = ad.bind(
        &IOTA,
        Params::Iota {
            dtype: DType::I32,
            shape: wide.clone(),
            dimension: axis + 1,
        },
        Vec::new(),
    )?;
    let chosen = super::broadcast_dims(ad, outs[1].clone(), &wide, &skip(axis + 1))?;
    let mask = ad.bin(&super::EQ, chosen, source)?;
    let spread = super::broadcast_dims(ad, t.clone(), &wide, &skip(axis))?;
    let zeros = ad.zeros(&Aval {
        dtype: tx.dtype,
        shape: wide.clone(),
        weak: false,
    })?;
    let picked = ad.select(mask, zeros, spread)?;
    let out = ad.bind(
        &super::REDUCE_SUM,
        Params::Axes(vec![axis + 1], 0),
        vec![picked],
    )?;
    Ok(vec![Some(out), None])
}

/// JAX's `_top_k_batch_rule`: the axis shifted past the batch axis.
fn top_k_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::TopK { k, axis } = p else {
        unreachable!("top_k carries Params::TopK")
    };
    let bdim = dims[0].expect("the one operand is batched");
    let axis = if bdim <= *axis { axis + 1 } else { *axis };
    let outs = bx.bind_all(&TOP_K, Params::TopK { k: *k, axis }, vec![ins[0].clone()])?;
    Ok(outs.into_iter().map(|o| (o, Some(bdim))).collect())
}

/// The primitives of this file.
pub static SORTING: &[&PrimDef] = &[&SORT, &TOP_K];
