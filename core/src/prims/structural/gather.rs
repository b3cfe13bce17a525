//! `gather` (`x[idx]`, `jnp.take`, the transpose of a scatter-add), with
//! JAX's dimension numbers and modes, and the helpers it shares with the
//! scatters (`scatter.rs`).

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::quote;

use super::params_err;
use super::scatter::{gather_of_scatter, SCATTER_ADD};
use crate::ir::shapes::Constraints;
use crate::ir::{rust_type, Atom, Aval, Dim};
use crate::prims::{
    dim_tokens, np_tuple, tuple, Ad, BDim, Batch, Bind, GatherParams, IndexDims, IndexMode,
    JvpRule, Kernel, KernelArgs, Lowering, Params, PrimDef, Res, TransposeRule,
};

/// `lax.gather`: windows of the operand at the start positions the indices
/// give (their last axis is the index vector).
pub static GATHER: PrimDef = PrimDef {
    name: "gather",
    abstract_eval: gather_eval,
    print_params: gather_print,
    parse_params: gather_parse,
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

pub(super) fn lit(d: &Dim) -> Option<usize> {
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
    check_batching(x, idx, d)?;
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

/// The operand's and the indices' batching axes pair up with equal sizes.
pub(super) fn check_batching(x: &Aval, idx: &Aval, d: &IndexDims) -> Result<(), String> {
    let batch = idx.rank().saturating_sub(1);
    if d.operand_batching.len() != d.indices_batching.len()
        || d.operand_batching
            .iter()
            .zip(&d.indices_batching)
            .any(|(&o, &i)| o >= x.rank() || i >= batch || x.shape[o] != idx.shape[i])
    {
        return Err(format!(
            "operand_batching_dims {:?} of {x} and batching dims {:?} of the indices {idx} must have the same sizes",
            d.operand_batching, d.indices_batching
        ));
    }
    Ok(())
}

/// Dimension numbers read from their printed form, `names` being the
/// fields of [`IndexDims`] in order as the class prints them.
pub(super) fn parse_index_dims(
    r: &mut crate::ir::parse::ParamReader,
    names: [&str; 5],
) -> Result<IndexDims, String> {
    let v = r.req("dimension_numbers")?;
    let mut fields: Vec<Vec<usize>> = Vec::new();
    let mut np_ints = [0u32; 5];
    for (k, name) in names.iter().enumerate() {
        let (dims, np) = v
            .kwarg(name)
            .and_then(|f| f.usizes_np())
            .ok_or_else(|| format!("`{}`'s dimension_numbers need `{name}=(..)`", r.prim))?;
        fields.push(dims);
        np_ints[k] = np;
    }
    let [offset, collapsed, index_map, operand_batching, indices_batching] =
        <[Vec<usize>; 5]>::try_from(fields).expect("five fields");
    Ok(IndexDims {
        offset,
        collapsed,
        index_map,
        operand_batching,
        indices_batching,
        np_ints,
    })
}

pub(super) fn parse_mode(r: &mut crate::ir::parse::ParamReader) -> Result<IndexMode, String> {
    let m = r.name("mode")?;
    [
        IndexMode::Clip,
        IndexMode::FillOrDrop,
        IndexMode::PromiseInBounds,
    ]
    .into_iter()
    .find(|&k| mode_name(k) == m)
    .ok_or_else(|| format!("unknown mode `{m}`"))
}

fn gather_parse(
    r: &mut crate::ir::parse::ParamReader,
    _: &[Aval],
    _: &[Aval],
) -> Result<Params, String> {
    let dims = parse_index_dims(
        r,
        [
            "offset_dims",
            "collapsed_slice_dims",
            "start_index_map",
            "operand_batching_dims",
            "start_indices_batching_dims",
        ],
    )?;
    let fill_value = match r.req("fill_value")? {
        v if v.name() == Some("None") => None,
        v => Some(
            v.float()
                .or_else(|| v.bool().map(|b| b as u8 as f64))
                .ok_or("`fill_value` should be None or a number")?,
        ),
    };
    Ok(Params::Gather(GatherParams {
        dims,
        slice_sizes: r.usizes("slice_sizes")?,
        mode: parse_mode(r)?,
        fill_value,
        indices_are_sorted: r.bool("indices_are_sorted")?,
        unique_indices: r.bool("unique_indices")?,
    }))
}

pub(super) fn mode_name(m: IndexMode) -> &'static str {
    match m {
        IndexMode::Clip => "GatherScatterMode.CLIP",
        IndexMode::FillOrDrop => "GatherScatterMode.FILL_OR_DROP",
        IndexMode::PromiseInBounds => "GatherScatterMode.PROMISE_IN_BOUNDS",
    }
}

pub(super) fn py_bool(b: bool) -> String {
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

pub(super) fn mode_tokens(m: IndexMode) -> TokenStream {
    match m {
        IndexMode::Clip => quote!(::jax::__rt::gather::CLIP),
        IndexMode::FillOrDrop => quote!(::jax::__rt::gather::FILL_OR_DROP),
        IndexMode::PromiseInBounds => quote!(::jax::__rt::gather::PROMISE_IN_BOUNDS),
    }
}

pub(super) fn dims_tokens(d: &IndexDims) -> TokenStream {
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

pub(super) fn shape_tokens(a: &Aval) -> TokenStream {
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
        Params::Scatter(gather_of_scatter(g)),
        vec![zeros, idx, ct],
    )?;
    Ok(vec![Some(out), None])
}

pub(super) fn lanes(bx: &Batch, ins: &[Atom], dims: &[BDim]) -> Dim {
    ins.iter()
        .zip(dims)
        .find_map(|(x, d)| d.map(|d| bx.aval(x).shape[d].clone()))
        .unwrap_or_else(|| bx.size.clone())
}

/// `np.add(1, v)`: every entry one further, each a NumPy integer.
pub(super) fn np_shift(v: &[usize]) -> (Vec<usize>, u32) {
    (v.iter().map(|d| d + 1).collect(), (1u32 << v.len()) - 1)
}

/// `(0,) + tuple(np.add(1, v))`.
pub(super) fn np_shift_after_zero(v: &[usize]) -> (Vec<usize>, u32) {
    let (s, m) = np_shift(v);
    (std::iter::once(0).chain(s).collect(), m << 1)
}

/// `_gather_batching_rule`: a batched operand gets one more window axis; a
/// batched index array one more batch axis; both, a batching axis pair.
fn gather_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
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

/// `_dynamic_slice_batching_rule` with a start index that differs by lane:
/// the starts joined into one `[lanes, rank]` index array
/// (`_batch_dynamic_slice_indices`), then a gather of the windows, batched
/// by `_gather_batching_rule`.
pub(super) fn batched_dynamic_slice(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    sizes: &[usize],
) -> Res<Vec<(Atom, BDim)>> {
    let index = batch_dynamic_slice_indices(bx, &ins[1..], &dims[1..])?;
    let rank = sizes.len();
    let all: Vec<usize> = (0..rank).collect();
    let g = GatherParams {
        dims: IndexDims {
            offset: all.clone(),
            collapsed: vec![],
            index_map: all,
            operand_batching: vec![],
            indices_batching: vec![],
            np_ints: [0; 5],
        },
        slice_sizes: sizes.to_vec(),
        // `dynamic_slice` clamps its start so the window fits.
        mode: IndexMode::Clip,
        fill_value: None,
        indices_are_sorted: true,
        unique_indices: true,
    };
    gather_batch(
        bx,
        &[ins[0].clone(), index],
        &[dims[0], Some(0)],
        &Params::Gather(g),
    )
}

/// `_batch_dynamic_slice_indices`: scalar starts, at least one of them
/// batched, joined into one `[lanes, rank]` index array batched along 0
/// (a shared start repeated for every lane).
pub(super) fn batch_dynamic_slice_indices(
    bx: &mut Batch,
    starts: &[Atom],
    dims: &[BDim],
) -> Res<Atom> {
    let size = starts
        .iter()
        .zip(dims)
        .find_map(|(x, d)| d.map(|d| bx.aval(x).shape[d].clone()))
        .ok_or("a batched start index")?;
    let dtype = starts
        .iter()
        .zip(dims)
        .find_map(|(x, d)| d.map(|_| bx.aval(x).dtype))
        .unwrap_or(DType::I32);
    let mut cols = Vec::new();
    for (x, d) in starts.iter().zip(dims) {
        let x = if bx.aval(x).dtype == dtype {
            x.clone()
        } else {
            bx.convert(x.clone(), dtype)?
        };
        cols.push(bx.bind(
            &super::BROADCAST_IN_DIM,
            Params::BroadcastInDim {
                shape: vec![size.clone(), Dim::Lit(1)],
                dims: if d.is_some() { vec![0] } else { vec![] },
                np_ints: 0,
            },
            vec![x],
        )?);
    }
    if cols.len() == 1 {
        return Ok(cols.remove(0));
    }
    bx.bind(&super::CONCATENATE, Params::Concatenate { dim: 1 }, cols)
}
