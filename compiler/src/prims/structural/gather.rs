//! `gather`, and the scatters at an indices operand (`x[idx]`,
//! `x.at[idx].add(v)`, a traced `x.at[i].set(v)`), with JAX's dimension
//! numbers and modes. The scatters' definitions are `assemble.rs`'s
//! `scatter!` family, whose rules send `Params::ScatterIndexed` here.

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::params_err;
use super::{SCATTER, SCATTER_ADD};
use crate::ir::shapes::Constraints;
use crate::ir::{rust_type, Atom, Aval, Dim};
use crate::prims::{
    dim_tokens, np_tuple, tuple, Ad, BDim, Batch, Bind, GatherParams, IndexDims, IndexMode, JvpRule, Kernel,
    KernelArgs, Lowering, Monoid, Params, PrimDef, Res, ScatterParams, TransposeRule,
};

/// `lax.gather`: windows of the operand at the start positions the indices
/// give (their last axis is the index vector).
pub static GATHER: PrimDef = PrimDef {
    name: "gather",
    abstract_eval: gather_eval,
    print_params: gather_print,
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: gather_call,
    }),
    jvp: Some(gather_jvp as JvpRule),
    transpose: Some(gather_transpose as TransposeRule),
    batch: Some(gather_batch),
    // An index computation and a copy per element.
    work: 2,
    ..PrimDef::BASE
};

fn gather_params(p: &Params) -> Result<&GatherParams, String> {
    match p {
        Params::Gather(g) => Ok(g),
        _ => Err(params_err("gather")),
    }
}

fn lit(d: &Dim) -> Option<usize> {
    match d {
        Dim::Lit(n) => Some(*n),
        Dim::Sym(_) => None,
    }
}

/// JAX's `_gather_shape_rule`.
fn gather_eval(ops: &[Aval], p: &Params, _: &mut Constraints) -> Result<Vec<Aval>, String> {
    let g = gather_params(p)?;
    let (x, idx) = (&ops[0], &ops[1]);
    if !idx.dtype.is_integer() {
        return Err(format!(
            "index array must be of an integer type, got {idx}; convert it with `.astype::<i32>()`"
        ));
    }
    let d = &g.dims;
    if idx.rank() == 0 {
        return Err(format!("gather: indices {idx} need an index-vector axis"));
    }
    let batch = &idx.shape[..idx.rank() - 1];
    if lit(&idx.shape[idx.rank() - 1]) != Some(d.index_map.len()) {
        return Err(format!(
            "Gather op has {} elements in start_index_map and the bound of dimension index_vector_dim={} of indices is {}. These two numbers must be equal.",
            d.index_map.len(),
            idx.rank() - 1,
            idx.shape[idx.rank() - 1]
        ));
    }
    if g.slice_sizes.len() != x.rank() {
        return Err(format!(
            "Gather op must have one slice size for every input dimension; got: len(slice_sizes)={}, input_shape.rank={}",
            g.slice_sizes.len(),
            x.rank()
        ));
    }
    for (k, (s, dim)) in g.slice_sizes.iter().zip(&x.shape).enumerate() {
        if matches!(lit(dim), Some(n) if *s > n) {
            return Err(format!(
                "Slice size at index {k} in gather op is out of range, must be within [0, {dim} + 1), got {s}."
            ));
        }
        if (d.collapsed.contains(&k) || d.operand_batching.contains(&k)) && *s > 1 {
            return Err(format!(
                "Gather op can only collapse slice dims with bound 1, but bound is {s} for index {k} at position {k}."
            ));
        }
    }
    let window: Vec<Dim> = (0..x.rank())
        .filter(|k| !d.collapsed.contains(k) && !d.operand_batching.contains(k))
        .map(|k| Dim::Lit(g.slice_sizes[k]))
        .collect();
    if window.len() != d.offset.len() || d.operand_batching.len() != d.indices_batching.len() {
        return Err(format!(
            "gather: offset_dims {:?} do not match the window of {x}",
            d.offset
        ));
    }
    let rank = batch.len() + window.len();
    let (mut wi, mut bi) = (window.into_iter(), batch.iter());
    let mut shape = Vec::with_capacity(rank);
    for k in 0..rank {
        let next = if d.offset.contains(&k) {
            wi.next()
        } else {
            bi.next().cloned()
        };
        shape.push(next.ok_or_else(|| format!("gather: offset_dims {:?} out of range", d.offset))?);
    }
    Ok(vec![Aval {
        dtype: x.dtype,
        shape,
        weak: x.weak,
    }])
}

fn mode_name(m: IndexMode) -> &'static str {
    match m {
        IndexMode::Clip => "GatherScatterMode.CLIP",
        IndexMode::FillOrDrop => "GatherScatterMode.FILL_OR_DROP",
        IndexMode::PromiseInBounds => "GatherScatterMode.PROMISE_IN_BOUNDS",
    }
}

fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

/// A fill value as Python prints it for the operand's dtype.
fn py_scalar(v: f64, dtype: DType) -> String {
    if dtype.is_float() {
        if v.is_nan() {
            "nan".into()
        } else if v.is_infinite() {
            if v > 0.0 { "inf" } else { "-inf" }.into()
        } else if v == v.trunc() && v.abs() < 1e16 {
            format!("{v:.1}")
        } else {
            format!("{v}")
        }
    } else if dtype == DType::Bool {
        py_bool(v != 0.0)
    } else {
        format!("{}", v as i128)
    }
}

fn gather_print(ops: &[Aval], p: &Params) -> Vec<(&'static str, String)> {
    let Ok(g) = gather_params(p) else {
        return Vec::new();
    };
    let d = &g.dims;
    vec![
        (
            "dimension_numbers",
            format!(
                "GatherDimensionNumbers(offset_dims={}, collapsed_slice_dims={}, start_index_map={}, operand_batching_dims={}, start_indices_batching_dims={})",
                np_tuple(&d.offset, d.np_ints[0]),
                np_tuple(&d.collapsed, d.np_ints[1]),
                np_tuple(&d.index_map, d.np_ints[2]),
                np_tuple(&d.operand_batching, d.np_ints[3]),
                np_tuple(&d.indices_batching, d.np_ints[4])
            ),
        ),
        (
            "fill_value",
            match g.fill_value {
                None => "None".into(),
                Some(v) => py_scalar(v, ops.first().map_or(DType::F32, |a| a.dtype)),
            },
        ),
        ("indices_are_sorted", py_bool(g.indices_are_sorted)),
        ("mode", mode_name(g.mode).into()),
        ("slice_sizes", tuple(&g.slice_sizes)),
        ("unique_indices", py_bool(g.unique_indices)),
    ]
}

fn mode_tokens(m: IndexMode) -> TokenStream {
    match m {
        IndexMode::Clip => quote!(::jax::__rt::gather::CLIP),
        IndexMode::FillOrDrop => quote!(::jax::__rt::gather::FILL_OR_DROP),
        IndexMode::PromiseInBounds => quote!(::jax::__rt::gather::PROMISE_IN_BOUNDS),
    }
}

fn dims_tokens(d: &IndexDims) -> TokenStream {
    let (o, c, m, ob, ib) = (
        &d.offset,
        &d.collapsed,
        &d.index_map,
        &d.operand_batching,
        &d.indices_batching,
    );
    quote!(::jax::__rt::gather::Dims {
        offset: &[#(#o),*],
        collapsed: &[#(#c),*],
        index_map: &[#(#m),*],
        operand_batching: &[#(#ob),*],
        indices_batching: &[#(#ib),*],
    })
}

fn shape_tokens(a: &Aval) -> TokenStream {
    let s: Vec<TokenStream> = a.shape.iter().map(dim_tokens).collect();
    quote!(&[#(#s),*])
}

/// The runtime's `gather` of the operand's and the indices' buffers.
fn gather_call(a: KernelArgs<'_>) -> TokenStream {
    let g = gather_params(a.params).unwrap_or_else(|e| unreachable!("{e}"));
    let ty = rust_type(a.out_aval.dtype);
    let ity = rust_type(a.avals[1].dtype);
    let (xs, is, os) = (
        shape_tokens(&a.avals[0]),
        shape_tokens(&a.avals[1]),
        shape_tokens(a.out_aval),
    );
    let x = (a.bind)(0, Bind::Buffer);
    let idx = (a.bind)(1, Bind::Buffer);
    let dims = dims_tokens(&g.dims);
    let sizes = &g.slice_sizes;
    let mode = mode_tokens(g.mode);
    let fill = match g.fill_value {
        None => quote!(None),
        // Non-finite values have no literal.
        Some(v) if v.is_nan() => quote!(Some(f64::NAN)),
        Some(v) if v.is_infinite() && v > 0.0 => quote!(Some(f64::INFINITY)),
        Some(v) if v.is_infinite() => quote!(Some(f64::NEG_INFINITY)),
        Some(v) => quote!(Some(#v)),
    };
    quote!(::jax::__rt::gather::gather::<#ty, #ity>(
        &#x[..], #xs, &#idx[..], #is, #dims, &[#(#sizes),*], #os, #mode,
        ::jax::__rt::gather::fill_value::<#ty>(#fill),
    ))
}

/// Linear in the operand: the same gather of its tangent (filling with 0).
fn gather_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Some(tx) = &t[0] else {
        return Ok(vec![None]);
    };
    let mut g = gather_params(p)?.clone();
    if g.mode == IndexMode::FillOrDrop {
        g.fill_value = Some(0.0);
    }
    Ok(vec![Some(ad.bind(
        &GATHER,
        Params::Gather(g),
        vec![tx.clone(), ins[1].clone()],
    )?)])
}

/// A scatter's dimension numbers from a gather's (and back): the same fields.
fn scatter_of(g: &GatherParams) -> ScatterParams {
    ScatterParams {
        dims: g.dims.clone(),
        mode: g.mode,
        indices_are_sorted: g.indices_are_sorted,
        unique_indices: g.unique_indices,
    }
}

/// `_gather_transpose_rule`: the cotangent scatter-added into zeros.
fn gather_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    if ins[0].is_some() {
        return Ok(vec![None, None]);
    }
    let idx = ins[1].clone().ok_or("gather indices are not linear")?;
    let g = gather_params(p)?;
    let zeros = ad.zeros(&crate::ir::rules::tangent_aval(&avals[0]))?;
    let out = ad.bind(
        &SCATTER_ADD,
        Params::ScatterIndexed(scatter_of(g)),
        vec![zeros, idx, ct],
    )?;
    Ok(vec![Some(out), None])
}

fn lanes(bx: &Batch, ins: &[Atom], dims: &[BDim]) -> Dim {
    ins.iter()
        .zip(dims)
        .find_map(|(x, d)| d.map(|d| bx.aval(x).shape[d].clone()))
        .unwrap_or_else(|| bx.size.clone())
}

/// `np.add(1, v)`: every entry one further, each a NumPy integer.
fn np_shift(v: &[usize]) -> (Vec<usize>, u32) {
    (v.iter().map(|d| d + 1).collect(), (1u32 << v.len()) - 1)
}

/// `(0,) + tuple(np.add(1, v))`.
fn np_shift_after_zero(v: &[usize]) -> (Vec<usize>, u32) {
    let (s, m) = np_shift(v);
    (std::iter::once(0).chain(s).collect(), m << 1)
}

/// `_gather_batching_rule`: a batched operand gets one more window axis; a
/// batched index array one more batch axis; both, a batching axis pair.
fn gather_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let g = gather_params(p)?;
    let d = &g.dims;
    let mut ng = g.clone();
    let n = &mut ng.dims;
    let (x, idx) = match (dims[0], dims[1]) {
        (Some(bd), None) => {
            let x = bx.moveaxis(ins[0].clone(), bd, 0)?;
            let Dim::Lit(size) = bx.aval(&x).shape[0] else {
                return Err("vmap of a gather over a symbolic batch size is not supported".into());
            };
            ng.slice_sizes.insert(0, size);
            (n.offset, n.np_ints[0]) = np_shift_after_zero(&d.offset);
            (n.collapsed, n.np_ints[1]) = np_shift(&d.collapsed);
            (n.index_map, n.np_ints[2]) = np_shift(&d.index_map);
            (n.operand_batching, n.np_ints[3]) = np_shift(&d.operand_batching);
            (x, ins[1].clone())
        }
        (None, Some(bd)) => {
            let idx = bx.moveaxis(ins[1].clone(), bd, 0)?;
            // `1 + d`: a Python integer stays one.
            n.offset = d.offset.iter().map(|k| k + 1).collect();
            (n.indices_batching, n.np_ints[4]) = np_shift(&d.indices_batching);
            ng.unique_indices = false;
            ng.indices_are_sorted = false;
            (ins[0].clone(), idx)
        }
        _ => {
            let size = lanes(bx, ins, dims);
            let x = bx.at_front(ins[0].clone(), dims[0], size.clone())?;
            let idx = bx.at_front(ins[1].clone(), dims[1], size)?;
            ng.slice_sizes.insert(0, 1);
            (n.offset, n.np_ints[0]) = np_shift(&d.offset);
            (n.collapsed, n.np_ints[1]) = np_shift(&d.collapsed);
            (n.index_map, n.np_ints[2]) = np_shift(&d.index_map);
            (n.operand_batching, n.np_ints[3]) = np_shift_after_zero(&d.operand_batching);
            (n.indices_batching, n.np_ints[4]) = np_shift_after_zero(&d.indices_batching);
            (x, idx)
        }
    };
    let out = bx.bind(&GATHER, Params::Gather(ng), vec![x, idx])?;
    Ok(vec![(out, Some(0))])
}

// The scatters at an indices operand (`Params::ScatterIndexed`).

/// JAX's `_scatter_shape_rule` (the essentials): the result is the operand.
pub(super) fn scatter_indexed_eval(
    name: &str,
    ops: &[Aval],
    s: &ScatterParams,
) -> Result<Vec<Aval>, String> {
    let (x, idx, upd) = (&ops[0], &ops[1], &ops[2]);
    if !idx.dtype.is_integer() {
        return Err(format!(
            "index array must be of an integer type, got {idx}; convert it with `.astype::<i32>()`"
        ));
    }
    if upd.dtype != x.dtype {
        return Err(format!(
            "{name}: the update {upd} must have the dtype of {x}"
        ));
    }
    let d = &s.dims;
    let batch = idx.rank().saturating_sub(1);
    if idx.rank() == 0
        || lit(&idx.shape[batch]) != Some(d.index_map.len())
        || upd.rank() != batch + d.offset.len()
        || d.collapsed.len() + d.operand_batching.len() + d.offset.len() != x.rank()
    {
        return Err(format!(
            "{name}: indices {idx} and updates {upd} do not index {x} with {d:?}"
        ));
    }
    Ok(vec![x.clone()])
}

pub(super) fn scatter_indexed_print(
    s: &ScatterParams,
    combine: Option<&str>,
) -> Vec<(&'static str, String)> {
    let d = &s.dims;
    vec![
        (
            "dimension_numbers",
            format!(
                "ScatterDimensionNumbers(update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={}, operand_batching_dims={}, scatter_indices_batching_dims={})",
                np_tuple(&d.offset, d.np_ints[0]),
                np_tuple(&d.collapsed, d.np_ints[1]),
                np_tuple(&d.index_map, d.np_ints[2]),
                np_tuple(&d.operand_batching, d.np_ints[3]),
                np_tuple(&d.indices_batching, d.np_ints[4])
            ),
        ),
        ("indices_are_sorted", py_bool(s.indices_are_sorted)),
        ("mode", mode_name(s.mode).into()),
        ("unique_indices", py_bool(s.unique_indices)),
        ("update_consts", "()".into()),
        (
            "update_jaxpr",
            match combine {
                Some(op) => format!("{}{op}", crate::ir::print::SCALAR_JAXPR),
                None => "None".into(),
            },
        ),
    ]
}

/// The runtime's `scatter` into the result's buffer (a copy of the operand).
pub(super) fn scatter_indexed_call(
    a: KernelArgs<'_>,
    s: &ScatterParams,
    combine: Option<Monoid>,
) -> TokenStream {
    let ty = rust_type(a.out_aval.dtype);
    let ity = rust_type(a.avals[1].dtype);
    let (xs, is, us) = (
        shape_tokens(&a.avals[0]),
        shape_tokens(&a.avals[1]),
        shape_tokens(&a.avals[2]),
    );
    let idx = (a.bind)(1, Bind::Buffer);
    let upd = (a.bind)(2, Bind::Buffer);
    let dims = dims_tokens(&s.dims);
    let mode = mode_tokens(s.mode);
    let combine = match combine {
        None => quote!(|_, u| u),
        Some(m) => {
            let f = format_ident!("{}", m.op());
            quote!(::jax::__rt::ops::#f::<#ty>)
        }
    };
    let out = a.out;
    quote!(::jax::__rt::gather::scatter::<#ty, #ity>(
        &mut #out[..], #xs, &#idx[..], #is, &#upd[..], #us, #dims, #mode, #combine,
    );)
}

/// The gather reading what a scatter writes: its window on each operand
/// axis is 1 on inserted and batching axes, else the update's.
fn gather_of(s: &ScatterParams, x: &Aval, upd: &Aval) -> Res<GatherParams> {
    let d = &s.dims;
    let mut window = d.offset.iter();
    let mut slice_sizes = Vec::new();
    for k in 0..x.rank() {
        if d.collapsed.contains(&k) || d.operand_batching.contains(&k) {
            slice_sizes.push(1);
        } else {
            let u = window.next().ok_or("scatter: too few window axes")?;
            slice_sizes.push(
                lit(&upd.shape[*u])
                    .ok_or("differentiating a scatter of a symbolic window is not supported")?,
            );
        }
    }
    Ok(GatherParams {
        dims: d.clone(),
        slice_sizes,
        mode: s.mode,
        fill_value: Some(0.0),
        indices_are_sorted: s.indices_are_sorted,
        unique_indices: s.unique_indices,
    })
}

/// `scatter` overwrites, so its jvp is a scatter of the tangents only when
/// no index repeats (JAX's `_scatter_jvp` handles repeats by tagging
/// updates with ids, not done here).
pub(super) fn scatter_set_indexed_check(s: &ScatterParams) -> Res<()> {
    if s.unique_indices {
        Ok(())
    } else {
        Err("differentiating `x.at(idx).set(v)` with an index array (a `scatter` whose indices may repeat) is not supported in #[jax::jit] yet; use `.add` on zeros where the indices are unique, or index with a scalar".into())
    }
}

/// `scatter-add` transposed (`_scatter_add_transpose_rule`), and `scatter`
/// with unique indices (`_scatter_transpose_rule`): the operand's
/// cotangent is `ct` (with the overwritten positions zeroed, for
/// `scatter`); the updates' is the gather of `ct` at the indices.
pub(super) fn scatter_indexed_transpose(
    overwrites: bool,
    ad: &mut Ad,
    ct: Atom,
    ins: &[Option<Atom>],
    avals: &[Aval],
    s: &ScatterParams,
) -> Res<Vec<Option<Atom>>> {
    let idx = ins[1].clone().ok_or("scatter indices are not linear")?;
    let cx = match (&ins[0], overwrites) {
        (Some(_), _) => None,
        (None, false) => Some(ct.clone()),
        (None, true) => {
            let zeros = ad.zeros(&crate::ir::rules::tangent_aval(&avals[2]))?;
            Some(ad.bind(
                &SCATTER,
                Params::ScatterIndexed(s.clone()),
                vec![ct.clone(), idx.clone(), zeros],
            )?)
        }
    };
    let cu = if ins[2].is_none() {
        let g = gather_of(s, &avals[0], &avals[2])?;
        Some(ad.bind(&GATHER, Params::Gather(g), vec![ct, idx])?)
    } else {
        None
    };
    Ok(vec![cx, None, cu])
}

/// `_scatter_batching_rule`: the operand and the updates batched in front;
/// shared indices add a window axis, batched ones a batching axis pair.
pub(super) fn scatter_indexed_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    s: &ScatterParams,
) -> Res<Vec<(Atom, BDim)>> {
    let size = lanes(bx, ins, dims);
    let x = bx.at_front(ins[0].clone(), dims[0], size.clone())?;
    let upd = bx.at_front(ins[2].clone(), dims[2], size.clone())?;
    let d = &s.dims;
    let mut ns = s.clone();
    let n = &mut ns.dims;
    (n.collapsed, n.np_ints[1]) = np_shift(&d.collapsed);
    (n.index_map, n.np_ints[2]) = np_shift(&d.index_map);
    let idx = match dims[1] {
        None => {
            (n.offset, n.np_ints[0]) = np_shift_after_zero(&d.offset);
            (n.operand_batching, n.np_ints[3]) = np_shift(&d.operand_batching);
            ins[1].clone()
        }
        Some(bd) => {
            (n.offset, n.np_ints[0]) = np_shift(&d.offset);
            (n.operand_batching, n.np_ints[3]) = np_shift_after_zero(&d.operand_batching);
            (n.indices_batching, n.np_ints[4]) = np_shift_after_zero(&d.indices_batching);
            bx.moveaxis(ins[1].clone(), bd, 0)?
        }
    };
    let prim = bx.prim;
    let out = bx.bind(prim, Params::ScatterIndexed(ns), vec![x, idx, upd])?;
    Ok(vec![(out, Some(0))])
}

// Derivatives of the combining scatters and of `scatter` with repeated
// indices, as JAX's rules build them.

fn scatter_indexed_params(p: &Params, what: &str) -> Res<ScatterParams> {
    match p {
        Params::ScatterIndexed(s) => Ok(s.clone()),
        _ => Err(format!(
            "differentiating `{what}` at static indices is not supported yet"
        )),
    }
}

/// `scatter-mul` (`ad.defjvp`): the operand's tangent scattered-multiplied
/// by the same updates; the updates' (`_scatter_mul_jvp_rhs`, unique
/// indices only, as JAX) the operand times their scatter-add into zeros.
pub(super) fn scatter_mul_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let s = scatter_indexed_params(p, "x.at(i).mul(v)")?;
    let (x, idx, y) = (&ins[0], &ins[1], &ins[2]);
    let mut terms = Vec::new();
    if let Some(tx) = &t[0] {
        terms.push(Some(ad.bind(
            &super::SCATTER_MUL,
            p.clone(),
            vec![tx.clone(), idx.clone(), y.clone()],
        )?));
    }
    if let Some(ty) = &t[2] {
        if !s.unique_indices {
            return Err("scatter_mul gradients are only implemented if `unique_indices=True` (JAX's rule): differentiating `x.at(idx).mul(v)` with respect to `v` with an index array is not supported".into());
        }
        let xa = crate::ir::rules::tangent_aval(&ad.aval(x));
        let zeros = ad.zeros(&xa)?;
        let added = ad.bind(&SCATTER_ADD, p.clone(), vec![zeros, idx.clone(), ty.clone()])?;
        terms.push(Some(ad.mul(x.clone(), added)?));
    }
    Ok(vec![ad.sum(terms)?])
}

/// `scatter-mul` is linear in its operand alone: each element scaled by
/// the updates landing on it, a diagonal map, so its own transpose.
pub(super) fn scatter_mul_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let (Some(idx), Some(y)) = (&ins[1], &ins[2]) else {
        return Err("scatter-mul is linear in its operand only".into());
    };
    if ins[0].is_some() {
        return Ok(vec![None, None, None]);
    }
    let out = ad.bind(&super::SCATTER_MUL, p.clone(), vec![ct, idx.clone(), y.clone()])?;
    Ok(vec![Some(out), None, None])
}

/// `_scatter_extremal_jvp` (`scatter-min`/`-max`): the tangent of each
/// result element is the mean of the tangents of the values that tie for
/// the extremum there (the operand's, if it is retained, and each
/// successful update's).
pub(super) fn scatter_extremal_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    outs: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let s = scatter_indexed_params(p, "x.at(i).min(v)` or `.max(v)")?;
    if t[0].is_none() && t[2].is_none() {
        return Ok(vec![None]);
    }
    let (x, idx, upd) = (&ins[0], &ins[1], &ins[2]);
    let (xa, ua) = (ad.aval(x), ad.aval(upd));
    let gx = ad.tangent_or_zeros(&t[0], x)?;
    let gu = ad.tangent_or_zeros(&t[2], upd)?;
    let mut g = gather_of(&s, &xa, &ua)?;
    g.fill_value = None;
    g.mode = IndexMode::FillOrDrop;
    let gp = Params::Gather(g);
    let plain = Params::ScatterIndexed(ScatterParams {
        mode: IndexMode::FillOrDrop,
        ..s.clone()
    });
    let gather = |ad: &mut Ad, a: &Atom| ad.bind(&GATHER, gp.clone(), vec![a.clone(), idx.clone()]);
    let initial = gather(ad, x)?;
    let target = gather(ad, &outs[0])?;
    let successful = ad.bin(&crate::prims::EQ, upd.clone(), target.clone())?;
    let retained = ad.bin(&crate::prims::EQ, initial, target)?;
    let ones_u = ad.full(1.0, &crate::ir::rules::tangent_aval(&ua))?;
    let zeros_u = ad.zeros(&crate::ir::rules::tangent_aval(&ua))?;
    let zeros_x = ad.zeros(&crate::ir::rules::tangent_aval(&xa))?;
    let counted = ad.select(successful.clone(), zeros_u.clone(), ones_u.clone())?;
    let num_updates = ad.bind(&SCATTER_ADD, plain.clone(), vec![zeros_x.clone(), idx.clone(), counted])?;
    let num_updates = gather(ad, &num_updates)?;
    let num_refs = ad.bind(&SCATTER_ADD, plain, vec![zeros_x, idx.clone(), ones_u.clone()])?;
    let num_refs = gather(ad, &num_refs)?;
    let one = ad.lit(1.0, &num_updates);
    let plus_one = ad.add(num_updates.clone(), one.clone())?;
    let inv_plus_one = ad.div(one.clone(), plus_one)?;
    let inv = ad.div(one.clone(), num_updates)?;
    let updates_normalizer = ad.select(retained.clone(), inv, inv_plus_one.clone())?;
    let updates_coef = ad.select(successful, zeros_u.clone(), updates_normalizer)?;
    let operand_normalizer = ad.select(retained, zeros_u, inv_plus_one)?;
    let minus_one = ad.lit(-1.0, &operand_normalizer);
    let shifted = ad.add(minus_one, operand_normalizer)?;
    let operand_coef = ad.div(shifted, num_refs)?;
    let target_tangents = gather(ad, &gx)?;
    let a = ad.mul(target_tangents, operand_coef)?;
    let b = ad.mul(gu, updates_coef)?;
    let tangent_updates = ad.add(a, b)?;
    let out = ad.bind(&SCATTER_ADD, p.clone(), vec![gx, idx.clone(), tangent_updates])?;
    Ok(vec![Some(out)])
}

/// `_scatter_jvp` with indices that may repeat: each update gets an id
/// (1, 2, ..); scattering the ids finds which update won each position
/// (the last, as the primal's scatter); the tangent is the scatter-add of
/// the winners' tangents into the operand's tangent zeroed where updated.
pub(super) fn scatter_set_repeated_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    s: &ScatterParams,
) -> Res<Vec<Option<Atom>>> {
    if t[0].is_none() && t[2].is_none() {
        return Ok(vec![None]);
    }
    let (x, idx, upd) = (&ins[0], &ins[1], &ins[2]);
    let (xa, ua) = (ad.aval(x), ad.aval(upd));
    let gx = ad.tangent_or_zeros(&t[0], x)?;
    let gu = ad.tangent_or_zeros(&t[2], upd)?;
    // One id per scatter position, shared along the window.
    let mut ids_shape = Vec::new();
    for (k, d) in ua.shape.iter().enumerate() {
        if s.dims.offset.contains(&k) {
            ids_shape.push(Dim::Lit(1));
        } else {
            ids_shape.push(d.clone());
        }
    }
    let n: usize = ids_shape
        .iter()
        .map(|d| {
            lit(d).ok_or_else(|| {
                "differentiating a scatter over a symbolic axis is not supported".to_string()
            })
        })
        .product::<Res<usize>>()?;
    let i32 = DType::I32;
    let id_aval = Aval {
        dtype: i32,
        shape: ids_shape,
        weak: false,
    };
    let ids = ad.b.constant(
        id_aval.clone(),
        (1..=n as i128).map(crate::ir::Scalar::Int).collect(),
    );
    let ids = if id_aval.shape == ua.shape {
        ids
    } else {
        let dims: Vec<usize> = (0..ua.rank()).collect();
        ad.bind(
            &super::BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape: ua.shape.clone(),
                dims,
                np_ints: 0,
            },
            vec![ids],
        )?
    };
    let x_ids = Aval {
        dtype: i32,
        ..xa.clone()
    };
    let zeros_ids = ad.zeros(&x_ids)?;
    let scattered = ad.bind(
        &SCATTER,
        Params::ScatterIndexed(s.clone()),
        vec![zeros_ids.clone(), idx.clone(), ids.clone()],
    )?;
    let mut g = gather_of(s, &xa, &ua)?;
    g.fill_value = None;
    let gathered = ad.bind(&GATHER, Params::Gather(g), vec![scattered.clone(), idx.clone()])?;
    let untouched = ad.bin(&crate::prims::EQ, scattered, zeros_ids)?;
    let won = ad.bin(&crate::prims::EQ, ids, gathered)?;
    let zx = ad.zeros(&crate::ir::rules::tangent_aval(&xa))?;
    let zu = ad.zeros(&crate::ir::rules::tangent_aval(&ua))?;
    let masked_x = ad.select(untouched, zx, gx)?;
    let masked_u = ad.select(won, zu, gu)?;
    let out = ad.bind(
        &SCATTER_ADD,
        Params::ScatterIndexed(s.clone()),
        vec![masked_x, idx.clone(), masked_u],
    )?;
    Ok(vec![Some(out)])
}
