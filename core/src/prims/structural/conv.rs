//! `conv_general_dilated`, JAX's general convolution, run by the runtime's
//! kernel. Its shape rule is the one the runtime checks eager calls with
//! (`jax_dtypes::conv`); its derivative and batching rules follow
//! `jax/_src/lax/convolution.py`: bilinear, each operand's cotangent
//! another convolution (the input's through the reversed kernel), batch
//! axes folded into the batch or feature axes.

use jax_dtypes::conv::{dilate_dim, ConvSpec, Padding};
use proc_macro2::TokenStream;
use quote::quote;

use super::pad::REV;
use super::params_err;
use super::views::{RESHAPE, TRANSPOSE};
use crate::ir::rust_type;
use crate::ir::shapes::same_dim;
use crate::ir::{Atom, Aval, Dim};
use crate::prims::rules::{bad_param, expect_none, kwarg_usizes, read_pairs};
use crate::prims::{
    dim_tokens, tuple, Ad, BDim, Batch, Bind, ConvParams, Ctx, JvpRule, Kernel, KernelArgs,
    Lowering, Params, PrimDef, Res, TransposeRule,
};

pub static CONV_GENERAL_DILATED: PrimDef = PrimDef {
    name: "conv_general_dilated",
    abstract_eval: |ops, p, c| {
        let Params::Conv(cp) = p else {
            return Err(params_err("conv_general_dilated"));
        };
        let (l, r) = (&ops[0], &ops[1]);
        if l.dtype != r.dtype {
            return Err(format!(
                "conv_general_dilated requires arguments to have the same dtypes, got {}, {}.",
                l.dtype.name(),
                r.dtype.name()
            ));
        }
        if l.rank() != r.rank() {
            return Err(format!(
                "convolution requires lhs and rhs ndim to be equal, got {} and {}.",
                l.rank(),
                r.rank()
            ));
        }
        let [lp, rp, op] = &cp.specs;
        // Spatial sizes decide the result's: they must be numbers. Batch and
        // feature sizes may be const generics of an ungrouped convolution,
        // passed through (the contracted ones checked equal by rustc).
        let plain = cp.feature_group_count == 1 && cp.batch_group_count == 1;
        let statics = |x: &Aval, spec: &[usize], which: &str| -> Res<Vec<usize>> {
            x.shape
                .iter()
                .enumerate()
                .map(|(a, d)| match d {
                    Dim::Lit(n) => Ok(*n),
                    Dim::Sym(_) if plain && spec.iter().position(|&s| s == a) < Some(2) => Ok(1),
                    Dim::Sym(s) => Err(format!(
                        "conv_general_dilated needs the {which}'s {} as a number, got `{s}` in {x}: spatial sizes decide the result's shape{}",
                        if spec.iter().position(|&k| k == a) < Some(2) { "feature and batch sizes" } else { "spatial sizes" },
                        if plain { "" } else { ", and grouped convolutions divide feature sizes" }
                    )),
                })
                .collect()
        };
        let (ls, rs) = (statics(l, lp, "input")?, statics(r, rp, "kernel")?);
        let (lc, ri) = (&l.shape[lp[1]], &r.shape[rp[1]]);
        if plain && (matches!(lc, Dim::Sym(_)) || matches!(ri, Dim::Sym(_))) {
            let why = format!(
                "conv_general_dilated lhs feature dimension size must equal the rhs input feature dimension size, but {lc} != {ri}."
            );
            if !same_dim(lc, ri, &why, c) {
                return Err(why);
            }
        }
        let spec = checked(&ls, &rs, cp)?;
        let mut shape: Vec<Dim> = spec.out_shape.iter().map(|&n| Dim::Lit(n)).collect();
        if plain {
            shape[op[0]] = l.shape[lp[0]].clone();
            shape[op[1]] = r.shape[rp[0]].clone();
        }
        Ok(vec![Aval {
            dtype: l.dtype,
            shape,
            weak: false,
        }])
    },
    print_params: |_, p| match p {
        Params::Conv(cp) => {
            let [l, r, o] = &cp.specs;
            let pads: Vec<String> = cp
                .padding
                .iter()
                .map(|&(lo, hi)| format!("({lo}, {hi})"))
                .collect();
            vec![
                ("batch_group_count", cp.batch_group_count.to_string()),
                (
                    "dimension_numbers",
                    format!(
                        "ConvDimensionNumbers(lhs_spec={}, rhs_spec={}, out_spec={})",
                        tuple(l),
                        tuple(r),
                        tuple(o)
                    ),
                ),
                ("feature_group_count", cp.feature_group_count.to_string()),
                ("lhs_dilation", tuple(&cp.lhs_dilation)),
                ("out_sharding", "None".into()),
                ("padding", tuple(&pads)),
                ("precision", "None".into()),
                ("preferred_element_type", "None".into()),
                ("rhs_dilation", tuple(&cp.rhs_dilation)),
                ("window_strides", tuple(&cp.window_strides)),
            ]
        }
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        let dn = r.req("dimension_numbers")?;
        let spec = |key| kwarg_usizes(&dn, key);
        let (Some(l), Some(rs), Some(o)) = (spec("lhs_spec"), spec("rhs_spec"), spec("out_spec"))
        else {
            return Err(bad_param(
                r,
                "dimension_numbers",
                "`ConvDimensionNumbers(lhs_spec=(..), rhs_spec=(..), out_spec=(..))`",
            ));
        };
        r.ignore("out_sharding");
        expect_none(
            r,
            "precision",
            "convolutions run at the operands' precision",
        )?;
        expect_none(
            r,
            "preferred_element_type",
            "the result has the operands' dtype",
        )?;
        Ok(Params::Conv(ConvParams {
            window_strides: r.usizes("window_strides")?,
            padding: read_pairs(r, "padding")?,
            lhs_dilation: r.usizes("lhs_dilation")?,
            rhs_dilation: r.usizes("rhs_dilation")?,
            specs: [l, rs, o],
            feature_group_count: r.usize("feature_group_count")?,
            batch_group_count: r.usize("batch_group_count")?,
        }))
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: conv_call,
    }),
    flops: Some(conv_flops),
    jvp: Some(conv_jvp as JvpRule),
    transpose: Some(conv_transpose as TransposeRule),
    batch: Some(conv_batch),
    ..PrimDef::BASE
};

/// The shared shape rule on static sizes.
fn checked(lhs: &[usize], rhs: &[usize], cp: &ConvParams) -> Res<ConvSpec> {
    ConvSpec::with_perms(
        lhs,
        rhs,
        &cp.window_strides,
        &Padding::Explicit(cp.padding.clone()),
        Some(&cp.lhs_dilation),
        Some(&cp.rhs_dilation),
        cp.specs.clone(),
        cp.feature_group_count,
        cp.batch_group_count,
    )
}

/// Whether the convolution's result, row-major, is the `[positions,
/// features]` matrix its kernel writes block by block (no feature groups,
/// features last), so elementwise work can ride on that write.
pub fn conv_writes_rows(p: &Params, rank: usize) -> bool {
    let Params::Conv(cp) = p else { return false };
    let channels_last: Vec<usize> = std::iter::once(0)
        .chain(std::iter::once(rank - 1))
        .chain(1..rank - 1)
        .collect();
    cp.feature_group_count == 1 && cp.batch_group_count == 1 && cp.specs[2] == channels_last
}

/// The runtime's convolution call on the operands' row-major buffers:
/// `conv_general_dilated`, or `conv_epilogue` with the epilogue's tokens
/// as its last argument.
pub fn conv_call_tokens(
    p: &Params,
    ty: &TokenStream,
    shapes: [&Aval; 2],
    buffers: [&TokenStream; 2],
    epilogue: Option<TokenStream>,
) -> TokenStream {
    let Params::Conv(cp) = p else {
        unreachable!("{}", params_err("conv_general_dilated"))
    };
    let ls: Vec<TokenStream> = shapes[0].shape.iter().map(dim_tokens).collect();
    let rs: Vec<TokenStream> = shapes[1].shape.iter().map(dim_tokens).collect();
    let [lb, rb] = buffers;
    let ConvParams {
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        specs: [lp, rp, op],
        feature_group_count,
        batch_group_count,
    } = cp;
    let (lo, hi): (Vec<i64>, Vec<i64>) = padding.iter().copied().unzip();
    let (f, epi) = match epilogue {
        Some(e) => (quote!(conv_epilogue), quote!(#e,)),
        None => (quote!(conv_general_dilated), quote!()),
    };
    quote! {
        ::jax::__rt::#f::<#ty>(
            &#lb, &[#(#ls),*], &#rb, &[#(#rs),*],
            &[#(#window_strides),*], &[#((#lo, #hi)),*],
            &[#(#lhs_dilation),*], &[#(#rhs_dilation),*],
            [&[#(#lp),*], &[#(#rp),*], &[#(#op),*]],
            #feature_group_count, #batch_group_count, #epi
        )
    }
}

/// The runtime's convolution on the operands' row-major buffers.
fn conv_call(a: KernelArgs<'_>) -> TokenStream {
    let ty = rust_type(a.out_aval.dtype);
    let lb = (a.bind)(0, Bind::Buffer);
    let rb = (a.bind)(1, Bind::Buffer);
    conv_call_tokens(a.params, &ty, [&a.avals[0], &a.avals[1]], [&lb, &rb], None)
}

/// Multiply-adds as XLA counts them (two flops each): per output element,
/// the kernel taps that land on input elements (not on padding or on the
/// holes of a dilated input) times the input features of its group.
fn conv_flops(ins: &[Aval], outs: &[Aval], p: &Params) -> Option<f64> {
    let Params::Conv(cp) = p else { return None };
    let lit = |a: &Aval| -> Option<Vec<usize>> {
        a.shape
            .iter()
            .map(|d| match d {
                Dim::Lit(n) => Some(*n),
                Dim::Sym(_) => None,
            })
            .collect()
    };
    let (l, r, o) = (lit(&ins[0])?, lit(&ins[1])?, lit(&outs[0])?);
    let [lp, rp, op] = &cp.specs;
    let mut taps = 1.0;
    for d in 0..lp.len() - 2 {
        let (size, k, n) = (l[lp[2 + d]], r[rp[2 + d]], o[op[2 + d]]);
        let (ld, lo) = (cp.lhs_dilation[d] as i64, cp.padding[d].0);
        let dilated = dilate_dim(size, ld as usize) as i64;
        let mut count = 0usize;
        for out in 0..n as i64 {
            for tap in 0..k as i64 {
                let x = out * cp.window_strides[d] as i64 + tap * cp.rhs_dilation[d] as i64 - lo;
                count += usize::from(x >= 0 && x < dilated && x % ld == 0);
            }
        }
        taps *= count as f64;
    }
    let (batch, features, per_group) = (o[op[0]], o[op[1]], r[rp[1]]);
    Some(2.0 * batch as f64 * features as f64 * per_group as f64 * taps)
}

fn conv_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let (x, y) = (ins[0].clone(), ins[1].clone());
    let tx = match &t[0] {
        Some(tx) => Some(ad.bind(&CONV_GENERAL_DILATED, p.clone(), vec![tx.clone(), y])?),
        None => None,
    };
    let ty = match &t[1] {
        Some(ty) => Some(ad.bind(&CONV_GENERAL_DILATED, p.clone(), vec![x, ty.clone()])?),
        None => None,
    };
    Ok(vec![ad.sum(vec![tx, ty])?])
}

/// A spec with its first two entries swapped (`_conv_spec_transpose`).
fn swap01(spec: &[usize]) -> Vec<usize> {
    let mut s = spec.to_vec();
    s.swap(0, 1);
    s
}

/// The static sizes of `x`'s axes `axes`.
fn sizes(x: &Aval, axes: &[usize]) -> Res<Vec<usize>> {
    axes.iter()
        .map(|&a| match &x.shape[a] {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(s) => Err(format!(
                "conv_general_dilated's derivative needs spatial sizes as numbers, got `{s}` in {x}"
            )),
        })
        .collect()
}

/// The product of two sizes.
fn times(a: &Dim, b: &Dim) -> Dim {
    match (a, b) {
        (Dim::Lit(x), Dim::Lit(y)) => Dim::Lit(x * y),
        _ => Dim::Sym(format!("{a} * {b}")),
    }
}

/// `x` with axis `src` merged into axis `dst` (numbered without `src`),
/// `src` the major part (`_reshape_axis_into`: a transpose, then a reshape).
fn reshape_axis_into(cx: &mut Ctx, src: usize, dst: usize, x: Atom) -> Res<Atom> {
    let shape = cx.aval(&x).shape;
    let mut perm: Vec<usize> = (0..shape.len()).filter(|&k| k != src).collect();
    perm.insert(dst, src);
    let mut new_sizes: Vec<Dim> = shape
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != src)
        .map(|(_, d)| d.clone())
        .collect();
    new_sizes[dst] = times(&shape[src], &new_sizes[dst]);
    let moved = if perm.iter().enumerate().all(|(i, &k)| i == k) {
        x
    } else {
        cx.bind(&TRANSPOSE, Params::Transpose { perm }, vec![x])?
    };
    cx.bind(&RESHAPE, Params::Reshape { new_sizes }, vec![moved])
}

/// `x` with axis `src` split into `(size1, rest)` (`_reshape_axis_out_of`).
fn reshape_axis_out_of(cx: &mut Ctx, src: usize, size1: usize, x: Atom) -> Res<Atom> {
    let mut shape = cx.aval(&x).shape;
    let Dim::Lit(n) = shape[src] else {
        return Err(format!(
            "conv_general_dilated's rules need axis {src} of {} as a number to split it into {size1} groups",
            cx.aval(&x)
        ));
    };
    shape.splice(src..=src, [Dim::Lit(size1), Dim::Lit(n / size1)]);
    cx.bind(&RESHAPE, Params::Reshape { new_sizes: shape }, vec![x])
}

/// `_conv_general_vjp_lhs_padding`.
fn vjp_lhs_padding(
    input: &[usize],
    window: &[usize],
    out: &[usize],
    cp: &ConvParams,
) -> Vec<(i64, i64)> {
    (0..input.len())
        .map(|d| {
            let lhs = dilate_dim(input[d], cp.lhs_dilation[d]) as i64;
            let rhs = dilate_dim(window[d], cp.rhs_dilation[d]) as i64;
            let outd = dilate_dim(out[d], cp.window_strides[d]) as i64;
            let before = rhs - cp.padding[d].0 - 1;
            (before, lhs + rhs - 1 - outd - before)
        })
        .collect()
}

/// `_conv_general_vjp_rhs_padding`.
fn vjp_rhs_padding(
    input: &[usize],
    window: &[usize],
    out: &[usize],
    cp: &ConvParams,
) -> Vec<(i64, i64)> {
    (0..input.len())
        .map(|d| {
            let lhs = dilate_dim(input[d], cp.lhs_dilation[d]) as i64;
            let rhs = dilate_dim(window[d], cp.rhs_dilation[d]) as i64;
            let outd = dilate_dim(out[d], cp.window_strides[d]) as i64;
            let lo = cp.padding[d].0;
            (lo, (outd - lhs) + (rhs - lo - 1))
        })
        .collect()
}

fn conv_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let g = crate::ir::rules::single_ct(cts);
    let Params::Conv(cp) = p else {
        return Err(params_err("conv_general_dilated"));
    };
    let [lp, rp, op] = &cp.specs;
    let g_aval = ad.aval(&g);
    let (ls, rs, gs) = (
        sizes(&avals[0], &lp[2..])?,
        sizes(&avals[1], &rp[2..])?,
        sizes(&g_aval, &op[2..])?,
    );
    match (&ins[0], &ins[1]) {
        // `_conv_general_dilated_transpose_lhs`.
        (None, Some(rhs)) => {
            let mut rhs = rhs.clone();
            let mut groups = cp.feature_group_count;
            if cp.feature_group_count > 1 || cp.batch_group_count > 1 {
                let count = cp.feature_group_count.max(cp.batch_group_count);
                rhs = reshape_axis_out_of(ad, rp[0], count, rhs)?;
                rhs = reshape_axis_into(ad, rp[0], rp[1], rhs)?;
                groups = count;
            }
            let padding = vjp_lhs_padding(&ls, &rs, &gs, cp);
            let revd = ad.bind(
                &REV,
                Params::Rev {
                    dims: rp[2..].to_vec(),
                },
                vec![rhs],
            )?;
            let params = Params::Conv(ConvParams {
                window_strides: cp.lhs_dilation.clone(),
                padding,
                lhs_dilation: cp.window_strides.clone(),
                rhs_dilation: cp.rhs_dilation.clone(),
                specs: [op.clone(), swap01(rp), lp.clone()],
                feature_group_count: groups,
                batch_group_count: 1,
            });
            let mut out = ad.bind(&CONV_GENERAL_DILATED, params, vec![g, revd])?;
            if cp.batch_group_count > 1 {
                out = reshape_axis_out_of(ad, lp[1], cp.batch_group_count, out)?;
                out = reshape_axis_into(ad, lp[1], lp[0], out)?;
            }
            Ok(vec![Some(out), None])
        }
        // `_conv_general_dilated_transpose_rhs`.
        (Some(lhs), None) => {
            if g_aval.shape.contains(&Dim::Lit(0)) {
                return Ok(vec![None, Some(ad.zeros(&avals[1])?)]);
            }
            let (fgc, bgc) = if cp.batch_group_count > 1 {
                (cp.batch_group_count, 1)
            } else if cp.feature_group_count > 1 {
                (1, cp.feature_group_count)
            } else {
                (1, 1)
            };
            let params = Params::Conv(ConvParams {
                window_strides: cp.rhs_dilation.clone(),
                padding: vjp_rhs_padding(&ls, &rs, &gs, cp),
                lhs_dilation: cp.lhs_dilation.clone(),
                rhs_dilation: cp.window_strides.clone(),
                specs: [swap01(lp), swap01(op), swap01(rp)],
                feature_group_count: fgc,
                batch_group_count: bgc,
            });
            let out = ad.bind(&CONV_GENERAL_DILATED, params, vec![lhs.clone(), g])?;
            Ok(vec![None, Some(out)])
        }
        _ => Err("conv_general_dilated of two linear values is not linear".into()),
    }
}

/// JAX's `_conv_general_dilated_batch_rule`: the lanes folded into the
/// input's batch axis (a batched input), into the kernel's output features
/// (a batched kernel), or both into feature groups (both batched).
fn conv_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::Conv(cp) = p else {
        return Err(params_err("conv_general_dilated"));
    };
    let [lp, rp, op] = &cp.specs;
    let (lhs, rhs) = (ins[0].clone(), ins[1].clone());
    let lanes = match &bx.size {
        Dim::Lit(n) if *n > 0 => *n,
        Dim::Lit(_) => {
            return Err("vmap of conv_general_dilated over zero lanes is not supported".into())
        }
        Dim::Sym(s) => {
            return Err(format!(
                "vmap of conv_general_dilated needs the number of lanes as a number, got `{s}`"
            ))
        }
    };
    let conv = |bx: &mut Batch, l: Atom, r: Atom, fgc: usize, bgc: usize| {
        let params = Params::Conv(ConvParams {
            feature_group_count: fgc,
            batch_group_count: bgc,
            ..cp.clone()
        });
        bx.bind(&CONV_GENERAL_DILATED, params, vec![l, r])
    };
    let (fgc, bgc) = (cp.feature_group_count, cp.batch_group_count);
    match (dims[0], dims[1]) {
        (Some(ld), Some(rd)) => {
            let (new_lhs, fgc, bgc) = if bgc > 1 {
                (reshape_axis_into(bx, ld, lp[0], lhs)?, fgc, bgc * lanes)
            } else {
                (reshape_axis_into(bx, ld, lp[1], lhs)?, fgc * lanes, bgc)
            };
            let new_rhs = reshape_axis_into(bx, rd, rp[0], rhs)?;
            let out = conv(bx, new_lhs, new_rhs, fgc, bgc)?;
            let out = reshape_axis_out_of(bx, op[1], lanes, out)?;
            Ok(vec![(out, Some(op[1]))])
        }
        (Some(ld), None) => {
            let new_lhs = if bgc == 1 {
                reshape_axis_into(bx, ld, lp[0], lhs)?
            } else {
                let x = reshape_axis_out_of(bx, lp[0] + usize::from(ld <= lp[0]), bgc, lhs)?;
                let x = reshape_axis_into(bx, ld + usize::from(lp[0] < ld), lp[0] + 1, x)?;
                reshape_axis_into(bx, lp[0], lp[0], x)?
            };
            let out = conv(bx, new_lhs, rhs, fgc, bgc)?;
            let out = reshape_axis_out_of(bx, op[0], lanes, out)?;
            Ok(vec![(out, Some(op[0]))])
        }
        (None, Some(rd)) => {
            if fgc == 1 && bgc == 1 {
                let new_rhs = reshape_axis_into(bx, rd, rp[0], rhs)?;
                let out = conv(bx, lhs, new_rhs, fgc, bgc)?;
                let out = reshape_axis_out_of(bx, op[1], lanes, out)?;
                return Ok(vec![(out, Some(op[1]))]);
            }
            // Groups stay outermost in the kernel's output features: split
            // them off, fold the lanes into what remains, merge them back;
            // the output the other way round.
            let groups = fgc.max(bgc);
            let r = reshape_axis_out_of(bx, rp[0] + usize::from(rd <= rp[0]), groups, rhs)?;
            let r = reshape_axis_into(bx, rd + usize::from(rp[0] < rd), rp[0] + 1, r)?;
            let r = reshape_axis_into(bx, rp[0], rp[0], r)?;
            let out = conv(bx, lhs, r, fgc, bgc)?;
            let out = reshape_axis_out_of(bx, op[1], groups, out)?;
            let out = reshape_axis_out_of(bx, op[1] + 1, lanes, out)?;
            let out = reshape_axis_into(bx, op[1], op[1] + 1, out)?;
            Ok(vec![(out, Some(op[1]))])
        }
        (None, None) => Err(params_err("conv_general_dilated")),
    }
}
