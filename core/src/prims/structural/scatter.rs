//! The scatters: `scatter` (`x.at[idx].set(v)`) and `scatter-add`, `-mul`,
//! `-min`, `-max` (`.add/.mul/.min/.max`), at an indices operand of any
//! batch shape with JAX's `ScatterDimensionNumbers` and modes, with all
//! their rules. Duplicate indices combine in row-major update order, so the
//! combining forms accumulate as JAX's and `set` keeps the last update (as
//! XLA on CPU; JAX leaves it unspecified).

use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::gather::{
    dims_tokens, lanes, lit, mode_name, mode_tokens, np_shift, np_shift_after_zero, py_bool,
    shape_tokens, GATHER,
};
use super::params_err;
use crate::ir::{rust_type, Atom, Aval, Dim};
use crate::prims::{
    np_tuple, Ad, BDim, Batch, Bind, GatherParams, IndexDims, IndexMode, JvpRule, Kernel,
    KernelArgs, Lowering, Monoid, Params, PrimDef, Res, ScatterParams, TransposeRule,
};

fn scatter_params(p: &Params) -> Res<&ScatterParams> {
    match p {
        Params::Scatter(s) => Ok(s),
        _ => Err(params_err("scatter")),
    }
}

macro_rules! scatter {
    ($($id:ident = $name:literal, $combine:expr, $jvp:expr, $transpose:expr;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| scatter_eval($name, ops, scatter_params(p)?),
            print_params: |_, p| match p {
                Params::Scatter(s) => scatter_print(s, $combine.map(Monoid::op)),
                _ => Vec::new(),
            },
            parse_params: scatter_parse,
            lowering: Lowering::Kernel,
            kernel: Some(Kernel {
                updates: Some(0),
                unread: &[],
                call: |a| match a.params {
                    Params::Scatter(s) => scatter_call(a, s, $combine),
                    _ => unreachable!("{}", params_err($name)),
                },
            }),
            jvp: $jvp,
            transpose: $transpose,
            batch: Some(scatter_batch),
            // An index computation and a combination per update element.
            work: 2,
            ..PrimDef::BASE
        };
    )*};
}

scatter! {
    SCATTER = "scatter", None, Some(scatter_set_jvp as JvpRule), Some(scatter_set_transpose as TransposeRule);
    SCATTER_ADD = "scatter-add", Some(Monoid::Add), Some(scatter_add_jvp as JvpRule), Some(scatter_add_transpose as TransposeRule);
    SCATTER_MUL = "scatter-mul", Some(Monoid::Mul), Some(scatter_mul_jvp as JvpRule), Some(scatter_mul_transpose as TransposeRule);
    SCATTER_MIN = "scatter-min", Some(Monoid::Min), Some(scatter_extremal_jvp as JvpRule), None;
    SCATTER_MAX = "scatter-max", Some(Monoid::Max), Some(scatter_extremal_jvp as JvpRule), None;
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
    let s = scatter_params(p)?;
    if !s.unique_indices {
        return scatter_set_repeated_jvp(ad, ins, t, s);
    }
    scatter_linear_jvp(&SCATTER, ad, ins, t, p)
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
    let s = scatter_params(p)?;
    scatter_set_indexed_check(s)?;
    scatter_indexed_transpose(true, ad, ct, ins, avals, s)
}

fn scatter_add_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    scatter_indexed_transpose(false, ad, ct, ins, avals, scatter_params(p)?)
}

fn scatter_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let s = scatter_params(p)?.clone();
    let prim = bx.prim;
    scatter_indexed_batch(prim, bx, ins, dims, &s)
}

/// A gather's parameters for the scatter that writes what it reads (the
/// same dimension numbers and mode): `gather`'s transpose.
pub(super) fn gather_of_scatter(g: &GatherParams) -> ScatterParams {
    ScatterParams {
        dims: g.dims.clone(),
        mode: g.mode,
        indices_are_sorted: g.indices_are_sorted,
        unique_indices: g.unique_indices,
    }
}

/// JAX's `_scatter_shape_rule` (the essentials): the result is the operand.
fn scatter_eval(name: &str, ops: &[Aval], s: &ScatterParams) -> Result<Vec<Aval>, String> {
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
    super::gather::check_batching(x, idx, d)?;
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
    // The updates' scatter axes are the indices' batch axes; their window
    // axes fit in the operand's.
    let scatter_axes: Vec<&Dim> = (0..upd.rank())
        .filter(|k| !d.offset.contains(k))
        .map(|k| &upd.shape[k])
        .collect();
    let window_axes =
        (0..x.rank()).filter(|k| !d.collapsed.contains(k) && !d.operand_batching.contains(k));
    let fits = d.offset.iter().zip(window_axes).all(
        |(&u, k)| !matches!((lit(&upd.shape[u]), lit(&x.shape[k])), (Some(w), Some(n)) if w > n),
    );
    if scatter_axes != idx.shape[..batch].iter().collect::<Vec<_>>() || !fits {
        return Err(format!(
            "{name}: updates {upd} do not match the indices {idx} and the windows of {x}"
        ));
    }
    Ok(vec![x.clone()])
}

fn scatter_parse(
    r: &mut crate::ir::parse::ParamReader,
    _: &[Aval],
    _: &[Aval],
) -> Result<Params, String> {
    let dims = super::gather::parse_index_dims(
        r,
        [
            "update_window_dims",
            "inserted_window_dims",
            "scatter_dims_to_operand_dims",
            "operand_batching_dims",
            "scatter_indices_batching_dims",
        ],
    )?;
    // The combining function is the primitive's own (`scatter-add`); the
    // printed form is checked against it.
    r.skip("update_jaxpr");
    r.skip("update_consts");
    Ok(Params::Scatter(ScatterParams {
        dims,
        mode: super::gather::parse_mode(r)?,
        indices_are_sorted: r.bool("indices_are_sorted")?,
        unique_indices: r.bool("unique_indices")?,
    }))
}

fn scatter_print(s: &ScatterParams, combine: Option<&str>) -> Vec<(&'static str, String)> {
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
fn scatter_call(a: KernelArgs<'_>, s: &ScatterParams, combine: Option<Monoid>) -> TokenStream {
    let ty = rust_type(a.out_aval.dtype);
    let ity = rust_type(a.avals[1].dtype);
    let (xs, is, us) = (
        shape_tokens(&a.avals[0]),
        shape_tokens(&a.avals[1]),
        shape_tokens(&a.avals[2]),
    );
    let idx = (a.bind)(1, Bind::Buffer);
    // A scalar update (a traced position in a vector) needs no buffer.
    let upd = if a.avals[2].rank() == 0 {
        let v = (a.bind)(2, Bind::Value);
        quote!([#v])
    } else {
        (a.bind)(2, Bind::Buffer)
    };
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

/// `scatter` overwrites: it is linear (transposable) only when no index
/// repeats (JAX's `_scatter_transpose_rule`); its jvp handles repeats
/// (`scatter_set_repeated_jvp`), so only a direct transpose can meet this.
fn scatter_set_indexed_check(s: &ScatterParams) -> Res<()> {
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
fn scatter_indexed_transpose(
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
                Params::Scatter(s.clone()),
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
fn scatter_indexed_batch(
    prim: &'static PrimDef,
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
    let out = bx.bind(prim, Params::Scatter(ns), vec![x, idx, upd])?;
    Ok(vec![(out, Some(0))])
}

/// `_dynamic_update_slice_batching_rule` with a start index that differs
/// by lane: the starts joined into one `[lanes, rank]` index array, then a
/// `scatter` of the update windows (clamped as `dynamic_update_slice`),
/// batched by `_scatter_batching_rule` (operands: operand, update, starts).
pub(super) fn batched_dynamic_update_slice(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
) -> Res<Vec<(Atom, BDim)>> {
    let index = super::gather::batch_dynamic_slice_indices(bx, &ins[2..], &dims[2..])?;
    let all: Vec<usize> = (0..ins.len() - 2).collect();
    let s = ScatterParams {
        dims: IndexDims {
            offset: all.clone(),
            collapsed: vec![],
            index_map: all,
            operand_batching: vec![],
            indices_batching: vec![],
            np_ints: [0; 5],
        },
        mode: IndexMode::Clip,
        indices_are_sorted: true,
        unique_indices: true,
    };
    scatter_indexed_batch(
        &SCATTER,
        bx,
        &[ins[0].clone(), index, ins[1].clone()],
        &[dims[0], Some(0), dims[1]],
        &s,
    )
}

// Derivatives of the combining scatters and of `scatter` with repeated
// indices, as JAX's rules build them.

fn scatter_indexed_params(p: &Params, what: &str) -> Res<ScatterParams> {
    match p {
        Params::Scatter(s) => Ok(s.clone()),
        _ => Err(format!("internal error: `{what}` got the wrong parameters")),
    }
}

/// `scatter-mul` (`ad.defjvp`): the operand's tangent scattered-multiplied
/// by the same updates; the updates' (`_scatter_mul_jvp_rhs`, unique
/// indices only, as JAX) the operand times their scatter-add into zeros.
fn scatter_mul_jvp(
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
            &SCATTER_MUL,
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
        let added = ad.bind(
            &SCATTER_ADD,
            p.clone(),
            vec![zeros, idx.clone(), ty.clone()],
        )?;
        terms.push(Some(ad.mul(x.clone(), added)?));
    }
    Ok(vec![ad.sum(terms)?])
}

/// `scatter-mul` is linear in its operand alone: each element scaled by
/// the updates landing on it, a diagonal map, so its own transpose.
fn scatter_mul_transpose(
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
    let out = ad.bind(&SCATTER_MUL, p.clone(), vec![ct, idx.clone(), y.clone()])?;
    Ok(vec![Some(out), None, None])
}

/// `_scatter_extremal_jvp` (`scatter-min`/`-max`): the tangent of each
/// result element is the mean of the tangents of the values that tie for
/// the extremum there (the operand's, if it is retained, and each
/// successful update's).
fn scatter_extremal_jvp(
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
    let plain = Params::Scatter(ScatterParams {
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
    let num_updates = ad.bind(
        &SCATTER_ADD,
        plain.clone(),
        vec![zeros_x.clone(), idx.clone(), counted],
    )?;
    let num_updates = gather(ad, &num_updates)?;
    let num_refs = ad.bind(
        &SCATTER_ADD,
        plain,
        vec![zeros_x, idx.clone(), ones_u.clone()],
    )?;
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
    let out = ad.bind(
        &SCATTER_ADD,
        p.clone(),
        vec![gx, idx.clone(), tangent_updates],
    )?;
    Ok(vec![Some(out)])
}

/// `_scatter_jvp` with indices that may repeat: each update gets an id
/// (1, 2, ..); scattering the ids finds which update won each position
/// (the last, as the primal's scatter); the tangent is the scatter-add of
/// the winners' tangents into the operand's tangent zeroed where updated.
fn scatter_set_repeated_jvp(
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
        Params::Scatter(s.clone()),
        vec![zeros_ids.clone(), idx.clone(), ids.clone()],
    )?;
    let mut g = gather_of(s, &xa, &ua)?;
    g.fill_value = None;
    let gathered = ad.bind(
        &GATHER,
        Params::Gather(g),
        vec![scattered.clone(), idx.clone()],
    )?;
    let untouched = ad.bin(&crate::prims::EQ, scattered, zeros_ids)?;
    let won = ad.bin(&crate::prims::EQ, ids, gathered)?;
    let zx = ad.zeros(&crate::ir::rules::tangent_aval(&xa))?;
    let zu = ad.zeros(&crate::ir::rules::tangent_aval(&ua))?;
    let masked_x = ad.select(untouched, zx, gx)?;
    let masked_u = ad.select(won, zu, gu)?;
    let out = ad.bind(
        &SCATTER_ADD,
        Params::Scatter(s.clone()),
        vec![masked_x, idx.clone(), masked_u],
    )?;
    Ok(vec![Some(out)])
}
