//! Collectives by axis name, as JAX's `lax/parallel.py`: `psum`, `pmax`,
//! `pmin` (and `pmean`, a `psum` divided by the lane count), `axis_index`,
//! `all_gather`, its transpose `reduce_scatter` (`lax.psum_scatter`), and
//! `ppermute`. Inside `jax::vmap(f, .., axis_name)` they communicate across
//! the lanes: their batching rules (JAX's `_batched_reduction_collective`,
//! `_all_gather_batcher`, `_ppermute_batcher`) turn them into reductions,
//! moves and slices along the batch axis, so no collective is left once the
//! named axis is mapped. A collective naming another (outer) axis is bound
//! again on the batched operand and waits for that axis' own rule.
//!
//! Derivatives as JAX's: `psum` and `ppermute` are linear (their transposes
//! are `psum` and the inverse permutation), `all_gather`'s transpose is
//! `reduce_scatter` and the reverse; `pmax`/`pmin` have none.

use quote::quote;

use super::structural::{
    reduce_batch, reduce_eval, reduce_sum_transpose, CONCATENATE, REDUCE_SUM, SLICE,
};
use crate::ir::parse::ParamReader;
use crate::ir::{Atom, Aval, Dim};
use crate::prims::rules::{bad_param, pval_names, read_names};
use crate::prims::{
    np_tuple, Ad, BDim, Batch, CollectiveParams, JvpRule, Kernel, Lowering, Monoid, Params,
    PrimDef, Reduction, Res, TransposeRule,
};
use jax_dtypes::DType;

/// Whether an equation with parameters `p` is a collective across `name`.
pub fn names_axis(p: &Params, name: &str) -> bool {
    matches!(p, Params::Collective(c) if c.axes.iter().any(|a| a == name))
}

fn collective(p: &Params) -> Res<&CollectiveParams> {
    match p {
        Params::Collective(c) => Ok(c),
        _ => Err("internal error: a collective without its parameters".into()),
    }
}

/// JAX's `('i',)`, `('i', 'j')`.
fn names_tuple(axes: &[String]) -> String {
    let quoted: Vec<String> = axes.iter().map(|a| format!("'{a}'")).collect();
    crate::prims::tuple(&quoted)
}

/// The printed `axes` of a `psum`, `pmax` or `pmin`: axis names (`('i',)`)
/// or positions (`(0,)`, with the mask of those printed `np.int64(k)`).
enum PrintedAxes {
    Names(Vec<String>),
    Positions(Vec<usize>, u32),
}

fn read_axes(r: &mut ParamReader) -> Result<PrintedAxes, String> {
    // Checked `None` when printed back (groups of devices: not supported).
    r.skip("axis_index_groups");
    let v = r.req("axes")?;
    if let Some(names) = pval_names(&v) {
        // `()` reads as positions: both forms print it so.
        if !names.is_empty() {
            return Ok(PrintedAxes::Names(names));
        }
    }
    match v.usizes_np() {
        Some((axes, mask)) => Ok(PrintedAxes::Positions(axes, mask)),
        None => Err(bad_param(
            r,
            "axes",
            "a tuple of axis names (`('i',)`) or of array axes (`(0,)`)",
        )),
    }
}

/// A collective's parameters read back. `axis_size` is printed only by
/// `all_gather` and `reduce_scatter` (the two whose result's shape depends
/// on it); the others' rules never read it, and it stays 0 here until the
/// enclosing `shard_map`'s rule sets its mesh's size
/// ([`set_axis_sizes`]).
fn named(axes: Vec<String>, axis_size: usize, perm: Vec<(usize, usize)>) -> Params {
    Params::Collective(CollectiveParams {
        axes,
        axis_size,
        perm,
    })
}

/// The named forms of `psum`, `pmax`, `pmin`: axis names.
fn parse_named_reduction(r: &mut ParamReader, _: &[Aval], _: &[Aval]) -> Res<Params> {
    match read_axes(r)? {
        PrintedAxes::Names(axes) => Ok(named(axes, 0, Vec::new())),
        PrintedAxes::Positions(..) => Err(format!(
            "`{}` over array axes is the positional form (what `vmap` leaves of a collective), not the collective over axis names",
            r.prim
        )),
    }
}

/// The positional forms (JAX's `psum` with `axes=(0,)`): array axes, what
/// `psum`, `pmax` and `pmin` read as by name ([`COLLECTIVES_BY_NAME`]).
/// Over axis names (in a `shard_map` body) the equation is the named
/// collective instead.
fn parse_positional_reduction(r: &mut ParamReader, _: &[Aval], _: &[Aval]) -> Res<Params> {
    match read_axes(r)? {
        PrintedAxes::Positions(axes, mask) => Ok(Params::Axes(axes, mask)),
        PrintedAxes::Names(axes) => {
            r.instead = Some(match r.prim {
                "psum" => &PSUM,
                "pmax" => &PMAX,
                _ => &PMIN,
            });
            Ok(named(axes, 0, Vec::new()))
        }
    }
}

/// Why a collective cannot run where it was left: outside every
/// `jax::pmap`, its axis was mapped by a `vmap` around control flow whose
/// operands do not vary along it. The emitter reports it as a compile
/// error naming it, never a wrong answer.
pub fn unmapped_collective(p: &Params) -> String {
    let names = match p {
        Params::Collective(c) => c.axes.join(", "),
        _ => String::new(),
    };
    format!(
        "a collective over axis `{names}` is inside control flow (`cond`, `while_loop`, `scan`) whose operands do not vary along the mapped axis; this is not supported yet: pass a mapped value into the control flow"
    )
}

/// A collective's runtime call inside a `shard_map` body: the emitted
/// closure's `__dev` and the operand's buffer.
macro_rules! device_kernel {
    ($name:ident, $call:ident) => {
        const $name: Kernel = Kernel {
            updates: None,
            unread: &[],
            call: |a| {
                let x = (a.bind)(0, crate::prims::Bind::Buffer);
        quote!(::jax::__rt::spmd::$call(__dev, &#x[..]))
            },
        };
    };
}

device_kernel!(PSUM_KERNEL, psum);
device_kernel!(PMAX_KERNEL, pmax);
device_kernel!(PMIN_KERNEL, pmin);
device_kernel!(ALL_GATHER_KERNEL, all_gather);
device_kernel!(REDUCE_SCATTER_KERNEL, psum_scatter);

const AXIS_INDEX_KERNEL: Kernel = Kernel {
    updates: None,
    unread: &[],
    call: |_| quote!(::jax::__rt::spmd::axis_index(__dev)),
};

const PPERMUTE_KERNEL: Kernel = Kernel {
    updates: None,
    unread: &[],
    call: |a| {
        let pairs: Vec<proc_macro2::TokenStream> = match a.params {
            Params::Collective(c) => c.perm.iter().map(|(s, d)| quote!((#s, #d))).collect(),
            _ => Vec::new(),
        };
        let x = (a.bind)(0, crate::prims::Bind::Buffer);
        quote!(::jax::__rt::spmd::ppermute(__dev, &#x[..], &[#(#pairs),*]))
    },
};

macro_rules! reduction_collective {
    ($($id:ident = $name:literal, $kernel:ident, $jvp:expr, $transpose:expr;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, _, _| Ok(vec![ops[0].clone()]),
            print_params: |_, p| match p {
                Params::Collective(c) => vec![
                    ("axes", names_tuple(&c.axes)),
                    ("axis_index_groups", "None".into()),
                ],
                _ => Vec::new(),
            },
            parse_params: parse_named_reduction,
            kernel: Some($kernel),
            jvp: $jvp,
            transpose: $transpose,
            batch: Some(reduction_batch),
            ..PrimDef::BASE
        };
    )*};
}

reduction_collective! {
    PSUM = "psum", PSUM_KERNEL, same_op_jvp!(PSUM), Some(psum_transpose as TransposeRule);
    PMAX = "pmax", PMAX_KERNEL, None, None;
    PMIN = "pmin", PMIN_KERNEL, None, None;
}

/// The positional forms the batching rules bind (JAX's `psum` with
/// `axes=(0,)`): reductions over the batch axis, printed as JAX prints them.
macro_rules! positional_collective {
    ($($id:ident = $name:literal, $monoid:ident, $jvp:expr, $transpose:expr;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| reduce_eval($name, ops, p),
            print_params: |_, p| match p {
                Params::Axes(a, np_ints) => vec![
                    ("axes", np_tuple(a, *np_ints)),
                    ("axis_index_groups", "None".into()),
                ],
                _ => Vec::new(),
            },
            parse_params: parse_positional_reduction,
            lowering: Lowering::Reduce,
            reduction: Some(Reduction::Fold(Monoid::$monoid)),
            jvp: $jvp,
            transpose: $transpose,
            batch: Some(reduce_batch),
            ..PrimDef::BASE
        };
    )*};
}

positional_collective! {
    PSUM_AXES = "psum", Add, same_op_jvp!(PSUM_AXES), Some(reduce_sum_transpose as TransposeRule);
    PMAX_AXES = "pmax", Max, None, None;
    PMIN_AXES = "pmin", Min, None, None;
}

/// `psum`'s transpose is `psum` (each lane's input reaches every lane's
/// output).
fn psum_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    Ok(vec![Some(ad.bind(&PSUM, p.clone(), vec![ct])?)])
}

/// `psum`/`pmax`/`pmin` under the `vmap` of one of their axes: the
/// operand reduced along its batch axis (a shared operand: `psum` scales
/// it by the lane count, `pmax`/`pmin` keep it), the result shared by all
/// lanes; the other axes' collective bound again on that.
fn reduction_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let c = collective(p)?.clone();
    let prim = bx.prim;
    let name = bx.axis_name.clone();
    let Some(name) = name.filter(|n| c.axes.contains(n)) else {
        // Another axis: the same collective on the whole batch.
        let out = bx.bind(prim, p.clone(), vec![ins[0].clone()])?;
        return Ok(vec![(out, dims[0])]);
    };
    let positional = match prim.name {
        "psum" => &PSUM_AXES,
        "pmax" => &PMAX_AXES,
        _ => &PMIN_AXES,
    };
    let x = ins[0].clone();
    let reduced = match dims[0] {
        Some(d) => bx.bind(positional, Params::Axes(vec![d], 0), vec![x])?,
        None if prim.name == "psum" => {
            // JAX's `x * axis_size`, printed with the size first.
            let n = lanes(&bx.size)?;
            let scale = bx.lit(n as f64, &x);
            bx.mul(scale, x)?
        }
        None => x,
    };
    let rest: Vec<String> = c.axes.iter().filter(|a| **a != name).cloned().collect();
    let out = if rest.is_empty() {
        reduced
    } else {
        let params = Params::Collective(CollectiveParams { axes: rest, ..c });
        bx.bind(prim, params, vec![reduced])?
    };
    Ok(vec![(out, None)])
}

/// The lane count as a number (collectives need it to scale or gather).
fn lanes(size: &Dim) -> Res<usize> {
    match size {
        Dim::Lit(n) => Ok(*n),
        Dim::Sym(s) => Err(format!(
            "collectives across a mapped axis of symbolic size `{s}` are not supported yet: map an axis whose size is a number"
        )),
    }
}

/// `lax.axis_index(name)`: the lane's position along the named axis.
pub static AXIS_INDEX: PrimDef = PrimDef {
    name: "axis_index",
    abstract_eval: |_, _, _| {
        Ok(vec![Aval {
            dtype: DType::I32,
            shape: Vec::new(),
            weak: false,
        }])
    },
    print_params: |_, p| match p {
        Params::Collective(c) => vec![("axis_name", c.axes.join(", "))],
        _ => Vec::new(),
    },
    // One axis name, printed bare (`axis_name=i`).
    parse_params: |r, _, _| match r.req("axis_name")? {
        crate::ir::parse::PVal::Name(n) => Ok(named(vec![n], 0, Vec::new())),
        _ => Err(bad_param(r, "axis_name", "one axis name (`axis_name=i`)")),
    },
    kernel: Some(AXIS_INDEX_KERNEL),
    jvp: Some(crate::prims::zero_jvp),
    batch: Some(axis_index_batch),
    ..PrimDef::BASE
};

/// Under its axis' `vmap`: `iota` along the lanes.
fn axis_index_batch(bx: &mut Batch, _: &[Atom], _: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let c = collective(p)?;
    if bx.axis_name.as_ref().is_none_or(|n| !c.axes.contains(n)) {
        // Another axis: every lane of this one sees the same index.
        let out = bx.bind(&AXIS_INDEX, p.clone(), Vec::new())?;
        return Ok(vec![(out, None)]);
    }
    let like = Aval {
        dtype: DType::I32,
        shape: vec![bx.size.clone()],
        weak: false,
    };
    let out = crate::prims::iota(&mut bx.cx, DType::I32, &like, 0)?;
    Ok(vec![(out, Some(0))])
}

fn gather_eval(ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let c = collective(p)?;
    let mut a = ops[0].clone();
    a.shape.insert(0, Dim::Lit(c.axis_size));
    Ok(vec![a])
}

fn scatter_eval(ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let c = collective(p)?;
    let a = &ops[0];
    if a.shape.first() != Some(&Dim::Lit(c.axis_size)) {
        return Err(format!(
            "psum_scatter: the scattered dimension (0) of {a} must have the axis size {}",
            c.axis_size
        ));
    }
    let mut a = a.clone();
    a.shape.remove(0);
    Ok(vec![a])
}

/// `lax.all_gather(x, name)`: every lane's `x`, stacked along a new
/// leading axis (`all_gather_dimension=0`, `tiled=False`).
pub static ALL_GATHER: PrimDef = PrimDef {
    name: "all_gather",
    abstract_eval: |ops, p, _| gather_eval(ops, p),
    print_params: |_, p| match p {
        Params::Collective(c) => vec![
            ("all_gather_dimension", "0".into()),
            ("axis_index_groups", "None".into()),
            ("axis_name", names_tuple(&c.axes)),
            ("axis_size", c.axis_size.to_string()),
            ("tiled", "False".into()),
        ],
        _ => Vec::new(),
    },
    // `all_gather_dimension=0`, `tiled=False` and no groups, checked when
    // printed back: the only forms modeled.
    parse_params: |r, _, _| {
        r.skip("all_gather_dimension");
        r.skip("axis_index_groups");
        r.skip("tiled");
        Ok(named(
            read_names(r, "axis_name")?,
            r.usize("axis_size")?,
            Vec::new(),
        ))
    },
    kernel: Some(ALL_GATHER_KERNEL),
    jvp: same_op_jvp!(ALL_GATHER),
    transpose: Some(all_gather_transpose as TransposeRule),
    batch: Some(all_gather_batch),
    ..PrimDef::BASE
};

/// `lax.psum_scatter(x, name)` (JAX's `reduce_scatter`): the sum over the
/// lanes of `x`, lane `k` keeping row `k` (`scatter_dimension=0`).
pub static REDUCE_SCATTER: PrimDef = PrimDef {
    name: "reduce_scatter",
    abstract_eval: |ops, p, _| scatter_eval(ops, p),
    print_params: |_, p| match p {
        Params::Collective(c) => vec![
            ("axis_index_groups", "None".into()),
            ("axis_name", names_tuple(&c.axes)),
            ("axis_size", c.axis_size.to_string()),
            ("scatter_dimension", "0".into()),
            ("tiled", "False".into()),
        ],
        _ => Vec::new(),
    },
    // `scatter_dimension=0`, `tiled=False` and no groups, checked when
    // printed back: the only forms modeled.
    parse_params: |r, _, _| {
        r.skip("scatter_dimension");
        r.skip("axis_index_groups");
        r.skip("tiled");
        Ok(named(
            read_names(r, "axis_name")?,
            r.usize("axis_size")?,
            Vec::new(),
        ))
    },
    kernel: Some(REDUCE_SCATTER_KERNEL),
    jvp: same_op_jvp!(REDUCE_SCATTER),
    transpose: Some(reduce_scatter_transpose as TransposeRule),
    batch: Some(reduce_scatter_batch),
    ..PrimDef::BASE
};

fn all_gather_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    Ok(vec![Some(ad.bind(&REDUCE_SCATTER, p.clone(), vec![ct])?)])
}

fn reduce_scatter_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    Ok(vec![Some(ad.bind(&ALL_GATHER, p.clone(), vec![ct])?)])
}

/// `all_gather` under its axis' `vmap`: the batch axis moved to the front
/// is the gathered array, shared by all lanes (a shared operand is
/// repeated).
fn all_gather_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let c = collective(p)?;
    let x = ins[0].clone();
    if bx.axis_name.as_ref().is_none_or(|n| !c.axes.contains(n)) {
        let out = bx.bind(&ALL_GATHER, p.clone(), vec![x])?;
        return Ok(vec![(out, dims[0].map(|d| d + 1))]);
    }
    single_axis(c, "all_gather")?;
    let out = match dims[0] {
        Some(d) => bx.moveaxis(x, d, 0)?,
        None => {
            let size = bx.size.clone();
            bx.broadcast_axis(x, size, 0)?
        }
    };
    Ok(vec![(out, None)])
}

/// `reduce_scatter` under its axis' `vmap`: the lanes' arrays summed, row
/// `k` of the sum going to lane `k` (the summed array's first axis becomes
/// the batch axis).
fn reduce_scatter_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let c = collective(p)?;
    let x = ins[0].clone();
    if bx.axis_name.as_ref().is_none_or(|n| !c.axes.contains(n)) {
        // The scattered axis is the operand's first unbatched one.
        let Some(d) = dims[0] else {
            let out = bx.bind(&REDUCE_SCATTER, p.clone(), vec![x])?;
            return Ok(vec![(out, None)]);
        };
        let front = bx.moveaxis(x, d, 1)?;
        let out = bx.bind(&REDUCE_SCATTER, p.clone(), vec![front])?;
        return Ok(vec![(out, Some(0))]);
    }
    single_axis(c, "psum_scatter")?;
    let summed = match dims[0] {
        Some(d) => bx.bind(&REDUCE_SUM, Params::Axes(vec![d], 0), vec![x])?,
        None => {
            let n = lanes(&bx.size)?;
            let scale = bx.lit(n as f64, &x);
            bx.mul(x, scale)?
        }
    };
    Ok(vec![(summed, Some(0))])
}

fn single_axis(c: &CollectiveParams, what: &str) -> Res<()> {
    if c.axes.len() == 1 {
        Ok(())
    } else {
        Err(format!(
            "{what} over several axes ({}) is not supported yet: one axis name",
            c.axes.join(", ")
        ))
    }
}

/// `lax.ppermute(x, name, perm)`: lane `dst` receives lane `src`'s `x`
/// for each `(src, dst)`; lanes no pair sends to receive zeros.
pub static PPERMUTE: PrimDef = PrimDef {
    name: "ppermute",
    abstract_eval: |ops, _, _| Ok(vec![ops[0].clone()]),
    print_params: |_, p| match p {
        Params::Collective(c) => {
            let pairs: Vec<String> = c.perm.iter().map(|(a, b)| format!("({a}, {b})")).collect();
            vec![
                ("axis_name", names_tuple(&c.axes)),
                ("perm", crate::prims::tuple(&pairs)),
            ]
        }
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        let axes = read_names(r, "axis_name")?;
        let v = r.req("perm")?;
        let perm: Option<Vec<(usize, usize)>> = v.items().and_then(|pairs| {
            pairs
                .iter()
                .map(|p| match p.usizes()?.as_slice() {
                    [a, b] => Some((*a, *b)),
                    _ => None,
                })
                .collect()
        });
        let perm =
            perm.ok_or_else(|| bad_param(r, "perm", "a tuple of `(source, destination)` pairs"))?;
        Ok(named(axes, 0, perm))
    },
    kernel: Some(PPERMUTE_KERNEL),
    jvp: same_op_jvp!(PPERMUTE),
    transpose: Some(ppermute_transpose as TransposeRule),
    batch: Some(ppermute_batch),
    ..PrimDef::BASE
};

/// The collectives jaxpr text names, as the parser finds them by name
/// (they are not in [`crate::prims::all`], where `psum`, `pmax` and `pmin`
/// would be defined twice): `psum`, `pmax`, `pmin` as their positional
/// forms (see `parse_positional_reduction`).
pub static COLLECTIVES_BY_NAME: &[&PrimDef] = &[
    &PSUM_AXES,
    &PMAX_AXES,
    &PMIN_AXES,
    &AXIS_INDEX,
    &ALL_GATHER,
    &REDUCE_SCATTER,
    &PPERMUTE,
];

/// Sets the axis size of the collectives over `axis` alone in `j` (and in
/// the programs its equations hold) to `size`: what a `shard_map`'s rule
/// knows from its mesh and its body's collectives do not print.
pub fn set_axis_sizes(j: &mut crate::ir::Jaxpr, axis: &str, size: usize) {
    use std::rc::Rc;
    for e in &mut j.eqns {
        match &mut e.params {
            Params::Collective(c) if c.axes.len() == 1 && c.axes[0] == axis => {
                c.axis_size = size;
            }
            // Held programs, just parsed, are not shared yet.
            Params::Jit(c) => {
                if let Some(c) = Rc::get_mut(&mut c.0) {
                    set_axis_sizes(&mut c.body, axis, size);
                }
            }
            Params::Checkpoint(c) => {
                if let Some(c) = Rc::get_mut(&mut c.0) {
                    set_axis_sizes(&mut c.body, axis, size);
                }
            }
            Params::Scan(s) => {
                if let Some(s) = Rc::get_mut(&mut s.0) {
                    set_axis_sizes(&mut s.body, axis, size);
                }
            }
            Params::While(w) => {
                if let Some(w) = Rc::get_mut(&mut w.0) {
                    set_axis_sizes(&mut w.cond, axis, size);
                    set_axis_sizes(&mut w.body, axis, size);
                }
            }
            Params::Cond(c) => {
                if let Some(c) = Rc::get_mut(&mut c.0) {
                    for b in &mut c.branches {
                        set_axis_sizes(b, axis, size);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The inverse permutation carries the cotangents back.
fn ppermute_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let c = collective(p)?;
    let ct = crate::ir::rules::single_ct(cts);
    let inverse = CollectiveParams {
        perm: c.perm.iter().map(|&(a, b)| (b, a)).collect(),
        ..c.clone()
    };
    Ok(vec![Some(ad.bind(
        &PPERMUTE,
        Params::Collective(inverse),
        vec![ct],
    )?)])
}

/// `ppermute` under its axis' `vmap`: the lanes reordered along the batch
/// axis (JAX's batching rule asks for a whole permutation of the lanes).
fn ppermute_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let c = collective(p)?;
    let x = ins[0].clone();
    if bx.axis_name.as_ref().is_none_or(|n| !c.axes.contains(n)) {
        let out = bx.bind(&PPERMUTE, p.clone(), vec![x])?;
        return Ok(vec![(out, dims[0])]);
    }
    single_axis(c, "ppermute")?;
    let n = lanes(&bx.size)?;
    let mut source = vec![None; n];
    for &(src, dst) in &c.perm {
        if src < n && dst < n {
            source[dst] = Some(src);
        }
    }
    let Some(source) = source.into_iter().collect::<Option<Vec<usize>>>() else {
        return Err("Permutation doesn't match the axis size!".into());
    };
    let Some(d) = dims[0] else {
        // Every lane holds the same value: a permutation keeps it.
        return Ok(vec![(x, None)]);
    };
    let aval = bx.aval(&x);
    let mut limit = Vec::with_capacity(aval.rank());
    for dim in &aval.shape {
        match dim {
            Dim::Lit(k) => limit.push(*k),
            Dim::Sym(s) => {
                return Err(format!(
                    "ppermute across a mapped axis of an operand with a symbolic dimension `{s}` is not supported yet"
                ))
            }
        }
    }
    let mut pieces = Vec::with_capacity(n);
    for src in source {
        let mut start = vec![0; aval.rank()];
        let mut lim = limit.clone();
        start[d] = src;
        lim[d] = src + 1;
        pieces.push(bx.bind(
            &SLICE,
            Params::Slice {
                start,
                limit: lim,
                strides: None,
            },
            vec![x.clone()],
        )?);
    }
    let out = bx.bind(&CONCATENATE, Params::Concatenate { dim: d }, pieces)?;
    Ok(vec![(out, Some(d))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collectives_print_as_jax() {
        let c = |axes: &[&str]| {
            Params::Collective(CollectiveParams {
                axes: axes.iter().map(|a| a.to_string()).collect(),
                axis_size: 4,
                perm: vec![(0, 1), (1, 0)],
            })
        };
        let f32s = Aval {
            dtype: DType::F32,
            shape: vec![Dim::Lit(3)],
            weak: false,
        };
        let show = |prim: &PrimDef, p: &Params| -> String {
            let v: Vec<String> = (prim.print_params)(std::slice::from_ref(&f32s), p)
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!("{}[{}]", prim.name, v.join(" "))
        };
        assert_eq!(
            show(&PSUM, &c(&["i"])),
            "psum[axes=('i',) axis_index_groups=None]"
        );
        assert_eq!(
            show(&PMAX, &c(&["i", "j"])),
            "pmax[axes=('i', 'j') axis_index_groups=None]"
        );
        assert_eq!(show(&AXIS_INDEX, &c(&["i"])), "axis_index[axis_name=i]");
        assert_eq!(
            show(&ALL_GATHER, &c(&["i"])),
            "all_gather[all_gather_dimension=0 axis_index_groups=None axis_name=('i',) axis_size=4 tiled=False]"
        );
        assert_eq!(
            show(&REDUCE_SCATTER, &c(&["i"])),
            "reduce_scatter[axis_index_groups=None axis_name=('i',) axis_size=4 scatter_dimension=0 tiled=False]"
        );
        assert_eq!(
            show(&PPERMUTE, &c(&["i"])),
            "ppermute[axis_name=('i',) perm=((0, 1), (1, 0))]"
        );
        assert_eq!(
            show(&PSUM_AXES, &Params::Axes(vec![0], 0)),
            "psum[axes=(0,) axis_index_groups=None]"
        );
    }
}
