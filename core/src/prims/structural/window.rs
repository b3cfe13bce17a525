//! Windowed reductions (`reduce_window_sum`, `_max`, `_min`) and max
//! pooling's derivatives (`select_and_gather_add`, its tangent, and
//! `select_and_scatter_add`, its gradient), run by the runtime's kernels,
//! with the rules of `jax/_src/lax/windowed_reductions.py`. Their shape rule
//! is the one eager calls check (`jax_dtypes::conv::WindowSpec`).

use jax_dtypes::conv::{dilate_dim, Padding, WindowSpec};
use proc_macro2::TokenStream;
use quote::quote;

use super::pad::PAD;
use super::params_err;
use super::views::SLICE;
use crate::ir::parse::ParamReader;
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Shape};
use crate::prims::rules::read_pairs;
use crate::prims::{
    dim_tokens, tuple, Ad, BDim, Batch, Bind, Ctx, JvpRule, Kernel, KernelArgs, Lowering, Params,
    PrimDef, Res, TransposeRule, WindowParams,
};

/// Whether axis `d` of a window leaves its operand axis as it is (size,
/// stride and dilations 1, no padding): a batch or feature axis, whose
/// size may be a const generic.
fn trivial(w: &WindowParams, d: usize) -> bool {
    w.window_dimensions[d] == 1
        && w.window_strides[d] == 1
        && w.padding[d] == (0, 0)
        && w.base_dilation[d] == 1
        && w.window_dilation[d] == 1
}

/// The result shape of `w` over `x`, by the shared shape rule.
fn window_shape(name: &str, x: &Aval, w: &WindowParams) -> Res<Shape> {
    if w.window_dimensions.len() != x.rank() {
        return Err(format!(
            "{name} got the wrong number of window_dimensions for operand: got operand shape {x} with window_dimensions {:?}.",
            w.window_dimensions
        ));
    }
    let mut sizes = Vec::with_capacity(x.rank());
    for (d, dim) in x.shape.iter().enumerate() {
        sizes.push(match dim {
            Dim::Lit(n) => *n,
            Dim::Sym(_) if trivial(w, d) => 1,
            Dim::Sym(s) => {
                return Err(format!(
                    "{name} needs the size of axis {d} of {x} as a number, got `{s}`: its window, stride, padding or dilation changes it"
                ))
            }
        });
    }
    let spec = WindowSpec::new(
        &sizes,
        &w.window_dimensions,
        Some(&w.window_strides),
        &Padding::Explicit(w.padding.clone()),
        Some(&w.base_dilation),
        Some(&w.window_dilation),
    )?;
    Ok(spec
        .out_shape
        .iter()
        .zip(&x.shape)
        .enumerate()
        .map(|(d, (&n, dim))| {
            if trivial(w, d) {
                dim.clone()
            } else {
                Dim::Lit(n)
            }
        })
        .collect())
}

fn window_params(p: &Params) -> Res<&WindowParams> {
    match p {
        Params::Window(w) => Ok(w),
        _ => Err(params_err("a windowed reduction")),
    }
}

fn pairs(padding: &[(i64, i64)]) -> String {
    let items: Vec<String> = padding
        .iter()
        .map(|&(lo, hi)| format!("({lo}, {hi})"))
        .collect();
    tuple(&items)
}

fn select_prim(w: &WindowParams) -> String {
    if w.select_ge == Some(false) {
        "le"
    } else {
        "ge"
    }
    .into()
}

/// `reduce_window_*`'s parameters as JAX prints them.
fn print_reduce(_: &[Aval], p: &Params) -> Vec<(&'static str, String)> {
    let Params::Window(w) = p else {
        return Vec::new();
    };
    vec![
        ("base_dilation", tuple(&w.base_dilation)),
        ("padding", pairs(&w.padding)),
        ("window_dilation", tuple(&w.window_dilation)),
        ("window_dimensions", tuple(&w.window_dimensions)),
        ("window_strides", tuple(&w.window_strides)),
    ]
}

/// `reduce_window_*`'s parameters read back ([`print_reduce`]'s inverse).
fn parse_reduce(r: &mut ParamReader, _: &[Aval], _: &[Aval]) -> Result<Params, String> {
    Ok(Params::Window(WindowParams {
        window_dimensions: r.usizes("window_dimensions")?,
        window_strides: r.usizes("window_strides")?,
        padding: read_pairs(r, "padding")?,
        base_dilation: r.usizes("base_dilation")?,
        window_dilation: r.usizes("window_dilation")?,
        select_ge: None,
    }))
}

/// `select_prim=ge` (the first largest element) or `le` (the first
/// smallest), the comparisons the selecting primitives model.
fn parse_select(r: &mut ParamReader) -> Result<Option<bool>, String> {
    match r.name("select_prim")?.as_str() {
        "ge" => Ok(Some(true)),
        "le" => Ok(Some(false)),
        other => Err(format!(
            "`{}` with select_prim={other} is not supported: only `ge` (max pooling) and `le` (min pooling)",
            r.prim
        )),
    }
}

/// The tokens of a window's static parameters: the operand's shape, the
/// window, strides, padding, and dilations.
struct Tokens<'a> {
    shape: Vec<TokenStream>,
    window: &'a [usize],
    strides: &'a [usize],
    padding: Vec<TokenStream>,
    base: &'a [usize],
    dilation: &'a [usize],
}

fn window_tokens<'a>(x: &Aval, w: &'a WindowParams) -> Tokens<'a> {
    Tokens {
        shape: x.shape.iter().map(dim_tokens).collect(),
        window: &w.window_dimensions,
        strides: &w.window_strides,
        padding: w
            .padding
            .iter()
            .map(|&(lo, hi)| quote!((#lo, #hi)))
            .collect(),
        base: &w.base_dilation,
        dilation: &w.window_dilation,
    }
}

/// The runtime's windowed reduction with the monoid `fold`
/// (`::jax::__rt::WindowFold::..`).
fn reduce_call(a: KernelArgs<'_>, fold: TokenStream) -> TokenStream {
    let Params::Window(w) = a.params else {
        unreachable!("{}", params_err("a windowed reduction"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let Tokens {
        shape,
        window: win,
        strides,
        padding: pads,
        base,
        dilation: wdil,
    } = window_tokens(&a.avals[0], w);
    let x = (a.bind)(0, Bind::Buffer);
    quote! {
        ::jax::__rt::reduce_window::<#ty>(
            &#x, &[#(#shape),*], &[#(#win),*], &[#(#strides),*], &[#(#pads),*],
            &[#(#base),*], &[#(#wdil),*], ::jax::__rt::WindowFold::#fold,
        )
    }
}

/// Comparisons or additions as XLA counts them: one per window element
/// after the first, per output element.
fn window_flops(ins: &[Aval], outs: &[Aval], p: &Params) -> Option<f64> {
    let w = window_params(p).ok()?;
    let _ = ins;
    let mut n = 1.0;
    for d in &outs[0].shape {
        let Dim::Lit(k) = d else { return None };
        n *= *k as f64;
    }
    let taps: usize = w.window_dimensions.iter().product();
    Some(n * taps.saturating_sub(1) as f64)
}

macro_rules! reduce_window {
    ($static:ident, $name:literal, $fold:ident, $jvp:expr, $transpose:expr) => {
        pub static $static: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| {
                let x = &ops[0];
                Ok(vec![Aval {
                    dtype: x.dtype,
                    shape: window_shape($name, x, window_params(p)?)?,
                    weak: x.weak,
                }])
            },
            print_params: print_reduce,
            parse_params: parse_reduce,
            lowering: Lowering::Kernel,
            kernel: Some(Kernel {
                updates: None,
                unread: &[],
                call: |a| reduce_call(a, quote!($fold)),
            }),
            flops: Some(window_flops),
            jvp: $jvp,
            transpose: $transpose,
            batch: Some(reduce_window_batch),
            ..PrimDef::BASE
        };
    };
}

reduce_window!(
    REDUCE_WINDOW_SUM,
    "reduce_window_sum",
    Sum,
    same_op_jvp!(REDUCE_WINDOW_SUM),
    Some(reduce_window_sum_transpose as TransposeRule)
);
reduce_window!(
    REDUCE_WINDOW_MAX,
    "reduce_window_max",
    Max,
    Some(chooser_jvp::<true> as JvpRule),
    None
);
reduce_window!(
    REDUCE_WINDOW_MIN,
    "reduce_window_min",
    Min,
    Some(chooser_jvp::<false> as JvpRule),
    None
);

/// `_reduce_window_chooser_jvp_rule`: the tangent at each window's chosen
/// element (the first largest for max, `ge`; the first smallest, `le`).
fn chooser_jvp<const LARGEST: bool>(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let Some(t0) = &t[0] else {
        return Ok(vec![None]);
    };
    let w = WindowParams {
        select_ge: Some(LARGEST),
        ..window_params(p)?.clone()
    };
    Ok(vec![Some(ad.bind(
        &SELECT_AND_GATHER_ADD,
        Params::Window(w),
        vec![t0.clone(), ins[0].clone()],
    )?)])
}

/// `_conv_general_vjp_lhs_padding` of one axis, from the operand's size,
/// the window, the stride, the result's size and the low padding.
fn vjp_pad(input: usize, w: &WindowParams, d: usize, out: usize) -> (i64, i64) {
    let lhs = dilate_dim(input, w.base_dilation[d]) as i64;
    let rhs = dilate_dim(w.window_dimensions[d], w.window_dilation[d]) as i64;
    let outd = dilate_dim(out, w.window_strides[d]) as i64;
    let before = rhs - w.padding[d].0 - 1;
    (before, lhs + rhs - 1 - outd - before)
}

/// `_reduce_window_sum_transpose_rule`: the cotangent padded (strides
/// become interior padding), then summed over windows moved by the base
/// dilation.
fn reduce_window_sum_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let w = window_params(p)?;
    let ct_shape = ad.aval(&ct).shape;
    let rank = avals[0].rank();
    let mut config = Vec::with_capacity(rank);
    for (d, ct_dim) in ct_shape.iter().enumerate().take(rank) {
        config.push(match (&avals[0].shape[d], ct_dim) {
            _ if trivial(w, d) => (0, 0, 0),
            (Dim::Lit(i), Dim::Lit(o)) => {
                let (lo, hi) = vjp_pad(*i, w, d, *o);
                (lo, hi, w.window_strides[d] as i64 - 1)
            }
            _ => {
                return Err(format!(
                "the transpose of reduce_window_sum needs the size of axis {d} of {} as a number",
                avals[0]
            ))
            }
        });
    }
    let zero = ad.lit(0.0, &ct);
    let padded = ad.bind(
        &PAD,
        Params::Pad {
            config,
            // JAX computes the edges with NumPy.
            np_ints: (1u32 << rank) - 1,
        },
        vec![ct, zero],
    )?;
    let ones = vec![1; rank];
    let back = WindowParams {
        window_dimensions: w.window_dimensions.clone(),
        window_strides: w.base_dilation.clone(),
        padding: vec![(0, 0); rank],
        base_dilation: ones,
        window_dilation: w.window_dilation.clone(),
        select_ge: None,
    };
    Ok(vec![Some(ad.bind(
        &REDUCE_WINDOW_SUM,
        Params::Window(back),
        vec![padded],
    )?)])
}

/// `w` with a trivial axis inserted at `d`.
fn with_axis(w: &WindowParams, d: usize) -> WindowParams {
    let mut w = w.clone();
    w.window_dimensions.insert(d, 1);
    w.window_strides.insert(d, 1);
    w.padding.insert(d, (0, 0));
    w.base_dilation.insert(d, 1);
    w.window_dilation.insert(d, 1);
    w
}

/// `_reduce_window_batch_rule`: a window of 1 along the batch axis.
fn reduce_window_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let (w, Some(d)) = (window_params(p)?, dims[0]) else {
        return Err(params_err("a windowed reduction"));
    };
    let prim = bx.prim;
    let out = bx.bind(prim, Params::Window(with_axis(w, d)), vec![ins[0].clone()])?;
    Ok(vec![(out, Some(d))])
}

/// Both operands with their lanes first (`bdim_at_front`), and the window
/// with a trivial first axis: the selecting primitives' batching rules.
fn select_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let w = window_params(p)?;
    let size = bx.size.clone();
    let a = bx.at_front(ins[0].clone(), dims[0], size.clone())?;
    let b = bx.at_front(ins[1].clone(), dims[1], size)?;
    let prim = bx.prim;
    let out = bx.bind(prim, Params::Window(with_axis(w, 0)), vec![a, b])?;
    Ok(vec![(out, Some(0))])
}

/// The tangent of max (min) pooling: per window of the operand (second),
/// the tangent (first) at its first largest (smallest) element.
pub static SELECT_AND_GATHER_ADD: PrimDef = PrimDef {
    name: "select_and_gather_add",
    abstract_eval: |ops, p, c| {
        let (t, x) = (&ops[0], &ops[1]);
        let why = format!("select_and_gather_add needs the tangents and the operand of one shape, got {t} and {x}");
        if t.rank() != x.rank()
            || !t
                .shape
                .iter()
                .zip(&x.shape)
                .all(|(a, b)| crate::ir::shapes::same_dim(a, b, &why, c))
        {
            return Err(why);
        }
        Ok(vec![Aval {
            dtype: t.dtype,
            shape: window_shape("select_and_gather_add", x, window_params(p)?)?,
            weak: false,
        }])
    },
    print_params: |_, p| {
        let Params::Window(w) = p else {
            return Vec::new();
        };
        vec![
            ("base_dilation", tuple(&w.base_dilation)),
            ("padding", pairs(&w.padding)),
            ("select_prim", select_prim(w)),
            ("window_dilation", tuple(&w.window_dilation)),
            ("window_dimensions", tuple(&w.window_dimensions)),
            ("window_strides", tuple(&w.window_strides)),
        ]
    },
    parse_params: |r, _, _| {
        Ok(Params::Window(WindowParams {
            select_ge: parse_select(r)?,
            window_dimensions: r.usizes("window_dimensions")?,
            window_strides: r.usizes("window_strides")?,
            padding: read_pairs(r, "padding")?,
            base_dilation: r.usizes("base_dilation")?,
            window_dilation: r.usizes("window_dilation")?,
        }))
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: gather_call,
    }),
    flops: Some(window_flops),
    jvp: same_op_jvp!(SELECT_AND_GATHER_ADD),
    transpose: Some(select_and_gather_add_transpose as TransposeRule),
    batch: Some(select_batch),
    ..PrimDef::BASE
};

fn gather_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Window(w) = a.params else {
        unreachable!("{}", params_err("select_and_gather_add"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let Tokens {
        shape,
        window: win,
        strides,
        padding: pads,
        base,
        dilation: wdil,
    } = window_tokens(&a.avals[1], w);
    let largest = w.select_ge != Some(false);
    let t = (a.bind)(0, Bind::Buffer);
    let x = (a.bind)(1, Bind::Buffer);
    quote! {
        ::jax::__rt::select_and_gather_add::<#ty>(
            &#t, &#x, &[#(#shape),*], &[#(#win),*], &[#(#strides),*], &[#(#pads),*],
            &[#(#base),*], &[#(#wdil),*], #largest,
        )
    }
}

/// `_select_and_gather_add_transpose`: the cotangent scattered to each
/// window's chosen element (an operand with base dilation padded with
/// the identity between its elements first, the result sliced back).
fn select_and_gather_add_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let w = window_params(p)?;
    let Some(x) = ins[1].clone() else {
        return Err("select_and_gather_add is linear in its tangents only".into());
    };
    if w.window_dilation.iter().any(|&d| d != 1) {
        return Err(format!(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got window_dilation={}.",
            tuple(&w.window_dilation)
        ));
    }
    let rank = avals[1].rank();
    let dilated = w.base_dilation.iter().any(|&d| d != 1);
    let x = if dilated {
        let identity = if w.select_ge == Some(false) {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
        let fill = ad.lit(identity, &x);
        let config = w
            .base_dilation
            .iter()
            .map(|&d| (0, 0, d as i64 - 1))
            .collect();
        ad.bind(&PAD, Params::Pad { config, np_ints: 0 }, vec![x, fill])?
    } else {
        x
    };
    let scatter = WindowParams {
        base_dilation: vec![1; rank],
        window_dilation: vec![1; rank],
        ..w.clone()
    };
    let out = ad.bind(
        &SELECT_AND_SCATTER_ADD,
        Params::Window(scatter),
        vec![ct, x],
    )?;
    let out = if dilated {
        let limit = sizes_of(ad, &out)?;
        ad.bind(
            &SLICE,
            Params::Slice {
                start: vec![0; rank],
                limit,
                strides: Some(w.base_dilation.clone()),
            },
            vec![out],
        )?
    } else {
        out
    };
    Ok(vec![Some(out), None])
}

fn sizes_of(cx: &mut Ctx, x: &Atom) -> Res<Vec<usize>> {
    let a = cx.aval(x);
    a.shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(s) => Err(format!(
                "max pooling's gradient with base dilation needs the sizes of {a} as numbers, got `{s}`"
            )),
        })
        .collect()
}

/// The gradient of max (min) pooling: each element of the source (first,
/// one per window) added at its window's first largest (smallest) element
/// of the operand (second).
pub static SELECT_AND_SCATTER_ADD: PrimDef = PrimDef {
    name: "select_and_scatter_add",
    abstract_eval: |ops, p, c| {
        let (s, x) = (&ops[0], &ops[1]);
        let want = window_shape("select_and_scatter_add", x, window_params(p)?)?;
        let why = format!(
            "select_and_scatter_add needs a source of the windows' shape {}, got {s}",
            crate::ir::shapes::fmt(&want)
        );
        if s.rank() != want.len()
            || !s
                .shape
                .iter()
                .zip(&want)
                .all(|(a, b)| crate::ir::shapes::same_dim(a, b, &why, c))
        {
            return Err(why);
        }
        Ok(vec![Aval {
            dtype: s.dtype,
            shape: x.shape.clone(),
            weak: false,
        }])
    },
    print_params: |_, p| {
        let Params::Window(w) = p else {
            return Vec::new();
        };
        vec![
            ("padding", pairs(&w.padding)),
            ("select_prim", select_prim(w)),
            ("window_dimensions", tuple(&w.window_dimensions)),
            ("window_strides", tuple(&w.window_strides)),
        ]
    },
    // No dilations (JAX's has none): ones.
    parse_params: |r, _, _| {
        let window_dimensions = r.usizes("window_dimensions")?;
        let ones = vec![1; window_dimensions.len()];
        Ok(Params::Window(WindowParams {
            select_ge: parse_select(r)?,
            window_strides: r.usizes("window_strides")?,
            padding: read_pairs(r, "padding")?,
            base_dilation: ones.clone(),
            window_dilation: ones,
            window_dimensions,
        }))
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: scatter_call,
    }),
    flops: Some(|ins, _, p| window_flops(ins, &ins[..1], p).map(|f| f * 2.0)),
    jvp: same_op_jvp!(SELECT_AND_SCATTER_ADD),
    transpose: Some(select_and_scatter_add_transpose as TransposeRule),
    batch: Some(select_batch),
    ..PrimDef::BASE
};

fn scatter_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Window(w) = a.params else {
        unreachable!("{}", params_err("select_and_scatter_add"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let Tokens {
        shape,
        window: win,
        strides,
        padding: pads,
        ..
    } = window_tokens(&a.avals[1], w);
    let largest = w.select_ge != Some(false);
    let s = (a.bind)(0, Bind::Buffer);
    let x = (a.bind)(1, Bind::Buffer);
    quote! {
        ::jax::__rt::select_and_scatter_add::<#ty>(
            &#s, &#x, &[#(#shape),*], &[#(#win),*], &[#(#strides),*], &[#(#pads),*],
            #largest,
        )
    }
}

/// `_select_and_scatter_add_transpose`: the cotangent gathered back at
/// each window's chosen element.
fn select_and_scatter_add_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Some(x) = ins[1].clone() else {
        return Err("select_and_scatter_add is linear in its source only".into());
    };
    let rank = avals[1].rank();
    let gather = WindowParams {
        base_dilation: vec![1; rank],
        window_dilation: vec![1; rank],
        ..window_params(p)?.clone()
    };
    Ok(vec![
        Some(ad.bind(&SELECT_AND_GATHER_ADD, Params::Window(gather), vec![ct, x])?),
        None,
    ])
}
