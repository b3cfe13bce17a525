//! `pad` (edges and interior filled with a padding value; negative edges
//! crop), `rev` (axes reversed) and `tile` (the array repeated), run by
//! runtime kernels. All are linear: `pad` in its operand and padding value
//! together, `rev` and `tile` in their operand.

use super::params_err;
use super::reductions::REDUCE_SUM;
use super::views::SLICE;
use crate::ir::{Atom, Aval, Dim};
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::rust_type;
use crate::prims::rules::{bad_param, pval_i64};
use crate::prims::{
    dim_tokens, tuple, Ad, BDim, Batch, Bind, JvpRule, Kernel, KernelArgs, Lowering, Params,
    PrimDef, Res, TransposeRule,
};

/// `lax.pad(x, padding_value, padding_config)`: per axis `(lo, hi,
/// interior)`.
pub static PAD: PrimDef = PrimDef {
    name: "pad",
    abstract_eval: |ops, p, _| {
        let Params::Pad { config, .. } = p else {
            return Err(params_err("pad"));
        };
        let (x, v) = (&ops[0], &ops[1]);
        if x.dtype != v.dtype {
            return Err(format!(
                "pad operand and padding_value must be same dtype: got {} and {}",
                x.dtype.name(),
                v.dtype.name()
            ));
        }
        if v.rank() != 0 {
            return Err(format!("padding_value must be a scalar, got {v}"));
        }
        if config.len() != x.rank() {
            return Err(format!(
                "length of padding_config must equal the number of axes of operand, got padding_config of length {} for operand {x}",
                config.len()
            ));
        }
        let mut shape = Vec::new();
        for (d, &(lo, hi, interior)) in x.shape.iter().zip(config) {
            let Dim::Lit(n) = d else {
                return Err("pad of a symbolic dimension is not supported yet".into());
            };
            if interior < 0 {
                return Err(format!(
                    "interior padding in padding_config must be nonnegative, got padding_config {}",
                    config_text(config, 0)
                ));
            }
            let n = *n as i64;
            let len = lo + hi + n + (n - 1).max(0) * interior;
            if len < 0 {
                return Err(format!(
                    "Dimension size after padding is not at least 0, got result shape with an axis of {len} from padding_config {}",
                    config_text(config, 0)
                ));
            }
            shape.push(Dim::Lit(len as usize));
        }
        Ok(vec![Aval {
            dtype: x.dtype,
            shape,
            weak: x.weak,
        }])
    },
    print_params: |_, p| match p {
        Params::Pad { config, np_ints } => vec![("padding_config", config_text(config, *np_ints))],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        // Each axis' edges and interior, and whether JAX holds its edges
        // as NumPy integers.
        let triple = |item: &crate::ir::parse::PVal| -> Option<((i64, i64, i64), bool)> {
            let [lo, hi, interior] = item.items()? else {
                return None;
            };
            let np = lo.is_np_int() || hi.is_np_int();
            Some(((pval_i64(lo)?, pval_i64(hi)?, pval_i64(interior)?), np))
        };
        let v = r.req("padding_config")?;
        let read: Option<Vec<_>> = v
            .items()
            .and_then(|items| items.iter().map(triple).collect());
        let Some(read) = read else {
            return Err(bad_param(
                r,
                "padding_config",
                "a tuple of `(low, high, interior)` triples",
            ));
        };
        // Printing back checks that both edges of such an axis are.
        let np_ints = read
            .iter()
            .enumerate()
            .filter(|(k, (_, np))| *np && *k < 32)
            .fold(0u32, |m, (k, _)| m | 1 << k);
        Ok(Params::Pad {
            config: read.into_iter().map(|(c, _)| c).collect(),
            np_ints,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: pad_call,
    }),
    jvp: Some(pad_jvp as JvpRule),
    transpose: Some(pad_transpose as TransposeRule),
    batch: Some(pad_batch),
    work: 1,
    ..PrimDef::BASE
};

/// `((lo, hi, interior), ..)`; `jnp.pad` computes the edges with NumPy, so
/// its jaxprs print them `np.int64(k)`.
fn config_text(config: &[(i64, i64, i64)], np_ints: u32) -> String {
    let items: Vec<String> = config
        .iter()
        .enumerate()
        .map(|(k, &(lo, hi, i))| {
            if np_ints >> k & 1 == 1 {
                format!("(np.int64({lo}), np.int64({hi}), {i})")
            } else {
                format!("({lo}, {hi}, {i})")
            }
        })
        .collect();
    tuple(&items)
}

fn pad_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Pad { config, .. } = a.params else {
        unreachable!("{}", params_err("pad"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let shape: Vec<TokenStream> = a.avals[0].shape.iter().map(dim_tokens).collect();
    let x = (a.bind)(0, Bind::Buffer);
    let v = (a.bind)(1, Bind::Value);
    let cfg: Vec<TokenStream> = config
        .iter()
        .map(|&(lo, hi, i)| quote!((#lo, #hi, #i)))
        .collect();
    quote!(::jax::__rt::pad::<#ty>(&#x[..], &[#(#shape),*], &[#(#cfg),*], #v))
}

/// Linear in both operands together: the same pad of the tangents.
fn pad_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    if t.iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let tx = ad.tangent_or_zeros(&t[0], &ins[0])?;
    let tv = ad.tangent_or_zeros(&t[1], &ins[1])?;
    Ok(vec![Some(ad.bind(&PAD, p.clone(), vec![tx, tv])?)])
}

/// JAX's `_pad_transpose`: the operand's cotangent is the cotangent with
/// the edges cropped (a pad by minus the edges) and the interior skipped (a
/// strided slice); the padding value's is the total of the rest.
fn pad_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Pad { config, .. } = p else {
        unreachable!()
    };
    let unpad: Vec<(i64, i64, i64)> = config.iter().map(|&(lo, hi, _)| (-lo, -hi, 0)).collect();
    let zero = ad.lit(0.0, &ct);
    let unpadded = ad.bind(
        &PAD,
        Params::Pad {
            config: unpad,
            np_ints: 0,
        },
        vec![ct.clone(), zero],
    )?;
    let shape: Vec<usize> = ad
        .aval(&unpadded)
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(_) => 0,
        })
        .collect();
    let t_operand = ad.bind(
        &SLICE,
        Params::Slice {
            start: vec![0; shape.len()],
            limit: shape,
            strides: Some(config.iter().map(|&(_, _, i)| i as usize + 1).collect()),
        },
        vec![unpadded],
    )?;
    let t_value = if ins[1].is_none() {
        let all = |ad: &mut Ad, x: Atom| {
            let rank = ad.aval(&x).rank();
            ad.bind(&REDUCE_SUM, Params::Axes((0..rank).collect(), 0), vec![x])
        };
        let total = all(ad, ct)?;
        let inside = all(ad, t_operand.clone())?;
        Some(ad.bin(&crate::prims::SUB, total, inside)?)
    } else {
        None
    };
    let t_operand = if ins[0].is_none() {
        Some(t_operand)
    } else {
        None
    };
    Ok(vec![t_operand, t_value])
}

/// JAX's `_pad_batch_rule` for a padding value shared by the lanes: no
/// padding along the batch axis.
fn pad_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let Params::Pad { config, np_ints } = p else {
        return Err(params_err("pad"));
    };
    if dims[1].is_some() {
        return Err("vmap of pad with a padding value that differs across the batch is not supported yet; pad with a shared value and use jnp::where_".into());
    }
    let Some(d) = dims[0] else {
        return Err(params_err("pad"));
    };
    let mut config = config.clone();
    config.insert(d, (0, 0, 0));
    // The inserted axis's edges are Python integers.
    let low = np_ints & ((1u32 << d) - 1);
    let np_ints = low | (np_ints & !((1u32 << d) - 1)) << 1;
    let out = bx.bind(
        &PAD,
        Params::Pad { config, np_ints },
        vec![ins[0].clone(), ins[1].clone()],
    )?;
    Ok(vec![(out, Some(d))])
}

/// `lax.rev(x, dimensions)`: the order of elements along `dimensions`
/// reversed.
pub static REV: PrimDef = PrimDef {
    name: "rev",
    abstract_eval: |ops, p, _| {
        let Params::Rev { dims } = p else {
            return Err(params_err("rev"));
        };
        let x = &ops[0];
        for (i, &d) in dims.iter().enumerate() {
            if d >= x.rank() || dims[..i].contains(&d) {
                return Err(format!(
                    "rev dimensions must be unique and within the operand's rank, got dimensions {} for operand {x}",
                    tuple(dims)
                ));
            }
        }
        Ok(vec![x.clone()])
    },
    print_params: |_, p| match p {
        Params::Rev { dims } => vec![("dimensions", tuple(dims))],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        Ok(Params::Rev {
            dims: r.usizes("dimensions")?,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: rev_call,
    }),
    jvp: same_op_jvp!(REV),
    transpose: Some(rev_transpose as TransposeRule),
    batch: Some(rev_batch),
    work: 1,
    ..PrimDef::BASE
};

fn rev_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Rev { dims } = a.params else {
        unreachable!("{}", params_err("rev"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let shape: Vec<TokenStream> = a.avals[0].shape.iter().map(dim_tokens).collect();
    let x = (a.bind)(0, Bind::Buffer);
    quote!(::jax::__rt::rev::<#ty>(&#x[..], &[#(#shape),*], &[#(#dims),*]))
}

/// Its own transpose: the cotangent reversed the same way.
fn rev_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    Ok(vec![Some(ad.bind(&REV, p.clone(), vec![ct])?)])
}

/// JAX's `_rev_batch_rule`: the axes after the batch axis move one along.
fn rev_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let (Params::Rev { dims: axes }, Some(d)) = (p, dims[0]) else {
        return Err(params_err("rev"));
    };
    let axes = axes
        .iter()
        .map(|&a| if a >= d { a + 1 } else { a })
        .collect();
    let out = bx.bind(&REV, Params::Rev { dims: axes }, vec![ins[0].clone()])?;
    Ok(vec![(out, Some(d))])
}

/// `lax.tile(x, reps)`: the array repeated `reps[k]` times along axis `k`.
pub static TILE: PrimDef = PrimDef {
    name: "tile",
    abstract_eval: |ops, p, _| {
        let Params::Tile { reps } = p else {
            return Err(params_err("tile"));
        };
        let x = &ops[0];
        if reps.len() != x.rank() {
            return Err(format!(
                "reps length must be equal to the ndim of x, got len(reps)={} and x.ndim={}.",
                reps.len(),
                x.rank()
            ));
        }
        let mut shape = Vec::new();
        for (d, r) in x.shape.iter().zip(reps) {
            let Dim::Lit(n) = d else {
                return Err("tile of a symbolic dimension is not supported yet".into());
            };
            shape.push(Dim::Lit(n * r));
        }
        Ok(vec![Aval {
            dtype: x.dtype,
            shape,
            weak: x.weak,
        }])
    },
    print_params: |_, p| match p {
        Params::Tile { reps } => vec![("reps", tuple(reps))],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        Ok(Params::Tile {
            reps: r.usizes("reps")?,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: tile_call,
    }),
    jvp: same_op_jvp!(TILE),
    transpose: Some(tile_transpose as TransposeRule),
    batch: Some(tile_batch),
    work: 1,
    ..PrimDef::BASE
};

fn tile_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Tile { reps } = a.params else {
        unreachable!("{}", params_err("tile"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let shape: Vec<TokenStream> = a.avals[0].shape.iter().map(dim_tokens).collect();
    let x = (a.bind)(0, Bind::Buffer);
    quote!(::jax::__rt::tile::<#ty>(&#x[..], &[#(#shape),*], &[#(#reps),*]))
}

/// JAX's `_tile_transpose_rule`: the cotangent as `(r0, d0, r1, d1, ..)`,
/// summed over the repetitions.
fn tile_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::Tile { reps } = p else {
        unreachable!()
    };
    let new_sizes: Vec<Dim> = reps
        .iter()
        .zip(&avals[0].shape)
        .flat_map(|(&r, d)| [Dim::Lit(r), d.clone()])
        .collect();
    let wide = ad.bind(
        &super::views::RESHAPE,
        Params::Reshape { new_sizes },
        vec![ct],
    )?;
    let axes = (0..reps.len()).map(|k| 2 * k).collect();
    Ok(vec![Some(ad.bind(
        &REDUCE_SUM,
        Params::Axes(axes, 0),
        vec![wide],
    )?)])
}

/// JAX's `_tile_batch_rule`: one repetition along the batch axis.
fn tile_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let (Params::Tile { reps }, Some(d)) = (p, dims[0]) else {
        return Err(params_err("tile"));
    };
    let mut reps = reps.clone();
    reps.insert(d, 1);
    let out = bx.bind(&TILE, Params::Tile { reps }, vec![ins[0].clone()])?;
    Ok(vec![(out, Some(d))])
}
