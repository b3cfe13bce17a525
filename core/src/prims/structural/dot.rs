//! `dot_general`, the general contraction, run by the runtime's kernels (a
//! plain matrix product where the operands allow one).

use super::params_err;
use super::views::TRANSPOSE;
use crate::ir::shapes::{fmt, same_dim};
use crate::ir::{Atom, Aval, Dim, Eqn, Jaxpr, Var};
use jax_dtypes::DType;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::rust_type;
use crate::prims::{
    dim_tokens, Ad, BDim, Batch, Bind, JvpRule, Kernel, KernelArgs, Lowering, Params, PrimDef, Res,
    TransposeRule,
};

/// General contraction: batch axes, contracting axes, then the free axes of
/// the left and of the right operand.
pub static DOT_GENERAL: PrimDef = PrimDef {
    name: "dot_general",
    abstract_eval: |ops, p, c| {
        let Params::DotGeneral {
            lhs_contract,
            rhs_contract,
            lhs_batch,
            rhs_batch,
            preferred,
        } = p
        else {
            return Err(params_err("dot_general"));
        };
        let (l, r) = (&ops[0], &ops[1]);
        let picks = |x: &Aval, axes: &[usize]| -> Vec<Dim> {
            axes.iter().map(|&a| x.shape[a].clone()).collect()
        };
        let (lc, rc) = (picks(l, lhs_contract), picks(r, rhs_contract));
        let why = format!(
            "dot_general requires contracting dimensions to have the same shape, got {} and {}",
            fmt(&lc),
            fmt(&rc)
        );
        if lc.len() != rc.len() || !lc.iter().zip(&rc).all(|(a, b)| same_dim(a, b, &why, c)) {
            return Err(format!("{why} (from {l} and {r})"));
        }
        let (lb, rb) = (picks(l, lhs_batch), picks(r, rhs_batch));
        if lb.len() != rb.len()
            || !lb
                .iter()
                .zip(&rb)
                .all(|(a, b)| same_dim(a, b, "batch dims must match", c))
        {
            return Err(format!(
                "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, got {} and {}",
                fmt(&lb),
                fmt(&rb)
            ));
        }
        let free = |x: &Aval, contract: &[usize], batch: &[usize]| -> Vec<Dim> {
            (0..x.rank())
                .filter(|i| !contract.contains(i) && !batch.contains(i))
                .map(|i| x.shape[i].clone())
                .collect()
        };
        let mut shape = lb.clone();
        shape.extend(free(l, lhs_contract, lhs_batch));
        shape.extend(free(r, rhs_contract, rhs_batch));
        Ok(vec![Aval {
            dtype: *preferred,
            shape,
            weak: false,
        }])
    },
    print_params: |_, p| match p {
        Params::DotGeneral {
            lhs_contract,
            rhs_contract,
            lhs_batch,
            rhs_batch,
            preferred,
        } => vec![
            (
                "dimension_numbers",
                format!(
                    "(({}, {}), ({}, {}))",
                    list(lhs_contract),
                    list(rhs_contract),
                    list(lhs_batch),
                    list(rhs_batch)
                ),
            ),
            ("preferred_element_type", preferred.name().into()),
        ],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        let dn = r.req("dimension_numbers")?;
        let parts: Option<Vec<Vec<usize>>> = (|| {
            let [c, b] = dn.items()? else { return None };
            let (c, b) = (c.items()?, b.items()?);
            [&c[0], &c[1], &b[0], &b[1]]
                .iter()
                .map(|v| v.usizes())
                .collect()
        })();
        let Some([lc, rc, lb, rb]) = parts.and_then(|v| <[Vec<usize>; 4]>::try_from(v).ok()) else {
            return Err("`dimension_numbers` should be ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))".into());
        };
        Ok(Params::DotGeneral {
            lhs_contract: lc,
            rhs_contract: rc,
            lhs_batch: lb,
            rhs_batch: rb,
            preferred: r.dtype("preferred_element_type")?,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: dot_general_call,
    }),
    jvp: Some(dot_general_jvp as JvpRule),
    transpose: Some(dot_general_transpose as TransposeRule),
    rewrite: Some(outer_product),
    batch: Some(dot_general_batch),
    ..PrimDef::BASE
};

/// A `dot_general` of static matrices or vectors without batch axes, as
/// one `m×k · k×n` product on the operands' buffers: `a` and `b` are the
/// (row, column) strides of each operand in that product.
struct Gemm {
    m: usize,
    k: usize,
    n: usize,
    a: (usize, usize),
    b: (usize, usize),
}

impl Gemm {
    fn of(la: &Aval, ra: &Aval, lc: &[usize], rc: &[usize], lb: &[usize]) -> Option<Gemm> {
        if !lb.is_empty() || la.rank() > 2 || ra.rank() > 2 || lc.len() > 1 {
            return None;
        }
        let sizes = |a: &Aval| -> Option<Vec<usize>> {
            a.shape
                .iter()
                .map(|d| match d {
                    Dim::Lit(n) => Some(*n),
                    Dim::Sym(_) => None,
                })
                .collect()
        };
        let (ls, rs) = (sizes(la)?, sizes(ra)?);
        let free = |rank: usize, c: &[usize]| -> Vec<usize> {
            (0..rank).filter(|a| !c.contains(a)).collect()
        };
        let (lf, rf) = (free(la.rank(), lc), free(ra.rank(), rc));
        let size = |s: &[usize], axes: &[usize]| axes.iter().map(|&a| s[a]).product::<usize>();
        let (m, k, n) = (size(&ls, &lf), size(&ls, lc), size(&rs, &rf));
        // Strides of an operand whose axes are `first` then `second` in the
        // product, laid out row-major with either order.
        let strides = |first: &[usize], second: &[usize], rows: usize, cols: usize| {
            if first
                .iter()
                .chain(second)
                .copied()
                .eq(0..first.len() + second.len())
            {
                (cols, 1)
            } else {
                (1, rows)
            }
        };
        Some(Gemm {
            m,
            k,
            n,
            a: strides(&lf, lc, m, k),
            b: strides(rc, &rf, k, n),
        })
    }
}

/// The plain matrix product a `dot_general` of these operands emits, as
/// `(m, k, n, (ars, acs), (brs, bcs))`, or `None` when it emits the
/// general kernel: what the matmul epilogue (`backend::emit::epilogue`)
/// calls in its place.
#[allow(clippy::type_complexity)]
pub fn plain_gemm(
    p: &Params,
    la: &Aval,
    ra: &Aval,
) -> Option<(usize, usize, usize, (usize, usize), (usize, usize))> {
    let Params::DotGeneral {
        lhs_contract,
        rhs_contract,
        lhs_batch,
        ..
    } = p
    else {
        return None;
    };
    let g = Gemm::of(la, ra, lhs_contract, rhs_contract, lhs_batch)?;
    Some((g.m, g.k, g.n, g.a, g.b))
}

/// The runtime's `gemm` where the product is one ([`Gemm`]), else its
/// general `dot_general`.
fn dot_general_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::DotGeneral {
        lhs_contract,
        rhs_contract,
        lhs_batch,
        rhs_batch,
        ..
    } = a.params
    else {
        unreachable!("{}", params_err("dot_general"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let (la, ra) = (&a.avals[0], &a.avals[1]);
    let lb = (a.bind)(0, Bind::Buffer);
    let rb = (a.bind)(1, Bind::Buffer);
    if let Some(g) = Gemm::of(la, ra, lhs_contract, rhs_contract, lhs_batch) {
        let Gemm {
            m,
            k,
            n,
            a: sa,
            b: sb,
        } = g;
        let (ars, acs, brs, bcs) = (sa.0, sa.1, sb.0, sb.1);
        // `Wᵀ v` (W row-major `k × m`, contracted along its rows) inside a
        // loop compiled per SIMD level: the runtime's own loop for it
        // (`gemm` takes the same one, so the same sums), inlined there
        // instead of a call that allocates and dispatches every step.
        let small_matvec = n == 1 && ars == 1 && acs == m && brs == 1 && m * k <= 1 << 22;
        if a.dispatched && small_matvec && matches!(a.out_aval.dtype, DType::F32 | DType::F64) {
            let f = format_ident!("matvec_{}", ty.to_string());
            return quote! {{
                let mut __matvec: ::std::vec::Vec<#ty> = ::jax::__rt::buffer::<#ty>(#m);
                ::jax::__rt::ops::#f(&#lb[..#m * #k], &#rb[..#k], &mut __matvec[..]);
                __matvec
            }};
        }
        quote! {
            ::jax::__rt::gemm::<#ty>(
                #m, #k, #n, &#lb, #ars, #acs, &#rb, #brs, #bcs,
            )
        }
    } else {
        let ls: Vec<TokenStream> = la.shape.iter().map(dim_tokens).collect();
        let rs: Vec<TokenStream> = ra.shape.iter().map(dim_tokens).collect();
        quote! {
            ::jax::__rt::dot_general::<#ty>(
                &#lb, &[#(#ls),*], &#rb, &[#(#rs),*],
                &[#(#lhs_contract),*], &[#(#rhs_contract),*],
                &[#(#lhs_batch),*], &[#(#rhs_batch),*],
            )
        }
    }
}

/// A Python list: `[1]`, `[]`, `[0, 1]`.
fn list(items: &[usize]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn dot_general_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    let (x, y) = (ins[0].clone(), ins[1].clone());
    let tx = match &t[0] {
        Some(tx) => Some(ad.bind(&DOT_GENERAL, p.clone(), vec![tx.clone(), y])?),
        None => None,
    };
    let ty = match &t[1] {
        Some(ty) => Some(ad.bind(&DOT_GENERAL, p.clone(), vec![x, ty.clone()])?),
        None => None,
    };
    Ok(vec![ad.sum(vec![tx, ty])?])
}

/// Consecutive index ranges of the given lengths.
fn ranges_like(lens: &[usize]) -> Vec<Vec<usize>> {
    let mut start = 0;
    lens.iter()
        .map(|&n| {
            let r = (start..start + n).collect();
            start += n;
            r
        })
        .collect()
}

/// JAX's `_dot_general_transpose_lhs`: the cotangent of `x` in
/// `dot_general(x, y)`, as a `dot_general` of the output cotangent with `y`
/// followed by a transpose into `x`'s axis order. `swap_ans` for the rhs.
#[allow(clippy::too_many_arguments)]
fn dot_transpose_lhs(
    ad: &mut Ad,
    ct: Atom,
    x_rank: usize,
    y: Atom,
    x_contract: &[usize],
    y_contract: &[usize],
    x_batch: &[usize],
    y_batch: &[usize],
    preferred: jax_dtypes::DType,
    swap_ans: bool,
) -> Res<Atom> {
    let y_rank = ad.aval(&y).rank();
    let remaining = |n: usize, a: &[usize], b: &[usize]| -> Vec<usize> {
        (0..n)
            .filter(|k| !a.contains(k) && !b.contains(k))
            .collect()
    };
    let x_kept = remaining(x_rank, x_contract, x_batch);
    let y_kept = remaining(y_rank, y_contract, y_batch);
    let (ans_batch, ans_y) = if swap_ans {
        let r = ranges_like(&[x_batch.len(), y_kept.len(), x_kept.len()]);
        (r[0].clone(), r[1].clone())
    } else {
        let r = ranges_like(&[x_batch.len(), x_kept.len(), y_kept.len()]);
        (r[0].clone(), r[2].clone())
    };
    let mut order: Vec<usize> = (0..y_contract.len()).collect();
    order.sort_by_key(|&i| y_contract[i]);
    let x_contract_sorted_by_y: Vec<usize> = order.iter().map(|&i| x_contract[i]).collect();
    let mut pre: Vec<usize> = x_batch.to_vec();
    pre.extend(&x_kept);
    pre.extend(&x_contract_sorted_by_y);
    let mut out_axes: Vec<usize> = (0..pre.len()).collect();
    out_axes.sort_by_key(|&i| pre[i]);
    // With the operands the other way round the result comes out as
    // batch, contracted-by-y, kept axes; when that is `x`'s own order, no
    // transpose is needed (a matmul's weight gradient `x^T @ ct`).
    let mut swapped: Vec<usize> = x_batch.to_vec();
    swapped.extend(&x_contract_sorted_by_y);
    swapped.extend(&x_kept);
    if swapped.iter().enumerate().all(|(i, &a)| i == a) {
        return ad.bind(
            &DOT_GENERAL,
            Params::DotGeneral {
                lhs_contract: y_kept,
                rhs_contract: ans_y,
                lhs_batch: y_batch.to_vec(),
                rhs_batch: ans_batch,
                preferred,
            },
            vec![y, ct],
        );
    }
    let d = ad.bind(
        &DOT_GENERAL,
        Params::DotGeneral {
            lhs_contract: ans_y,
            rhs_contract: y_kept,
            lhs_batch: ans_batch,
            rhs_batch: y_batch.to_vec(),
            preferred,
        },
        vec![ct, y],
    )?;
    if out_axes.iter().enumerate().all(|(i, &a)| i == a) {
        Ok(d)
    } else {
        ad.bind(&TRANSPOSE, Params::Transpose { perm: out_axes }, vec![d])
    }
}

fn dot_general_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let Params::DotGeneral {
        lhs_contract,
        rhs_contract,
        lhs_batch,
        rhs_batch,
        ..
    } = p
    else {
        unreachable!()
    };
    let ct_dtype = ad.aval(&ct).dtype;
    match (&ins[0], &ins[1]) {
        (None, Some(y)) => {
            let c = dot_transpose_lhs(
                ad,
                ct,
                avals[0].rank(),
                y.clone(),
                lhs_contract,
                rhs_contract,
                lhs_batch,
                rhs_batch,
                ct_dtype,
                false,
            )?;
            Ok(vec![Some(c), None])
        }
        (Some(x), None) => {
            let c = dot_transpose_lhs(
                ad,
                ct,
                avals[1].rank(),
                x.clone(),
                rhs_contract,
                lhs_contract,
                rhs_batch,
                lhs_batch,
                ct_dtype,
                true,
            )?;
            Ok(vec![None, Some(c)])
        }
        _ => Err("dot_general of two linear values is not linear".into()),
    }
}

/// A `dot_general` that contracts nothing (an outer product, as reverse
/// mode makes for a matrix-vector product's matrix) becomes a product of
/// two broadcasts: elementwise, so it fuses into its consumer (`acc + u
/// v^T` is then one loop) instead of filling a buffer of its own.
fn outer_product<'a>(
    j: &mut Jaxpr,
    e: &Eqn,
    _: &dyn Fn(Var) -> Option<&'a Eqn>,
) -> Option<Vec<Eqn>> {
    let Params::DotGeneral {
        lhs_contract,
        lhs_batch,
        ..
    } = &e.params
    else {
        return None;
    };
    let out = j.aval(e.outs[0]).clone();
    let (x, y) = (
        j.atom_aval(&e.ins[0]).clone(),
        j.atom_aval(&e.ins[1]).clone(),
    );
    if !lhs_contract.is_empty()
        || !lhs_batch.is_empty()
        || x.dtype != out.dtype
        || y.dtype != out.dtype
    {
        return None;
    }
    let (rx, ry) = (x.rank(), y.rank());
    let mut eqns = Vec::new();
    let mut factors = Vec::new();
    for (a, dims) in [(&e.ins[0], 0..rx), (&e.ins[1], rx..rx + ry)] {
        let b = j.new_var(Aval {
            weak: false,
            ..out.clone()
        });
        eqns.push(Eqn {
            prim: &crate::prims::BROADCAST_IN_DIM,
            params: Params::BroadcastInDim {
                shape: out.shape.clone(),
                dims: dims.collect(),
                np_ints: 0,
            },
            ins: vec![a.clone()],
            outs: vec![b],
            span: e.span,
        });
        factors.push(Atom::Var(b));
    }
    eqns.push(Eqn {
        prim: &crate::prims::MUL,
        params: Params::None,
        ins: factors,
        outs: e.outs.clone(),
        span: e.span,
    });
    Some(eqns)
}

/// A contraction with batched operands (`_dot_general_batch_dim_nums`):
/// both batched, the lanes become the first batch dimension; one batched,
/// its lanes become one more free axis of that side.
fn dot_general_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let Params::DotGeneral {
        lhs_contract,
        rhs_contract,
        lhs_batch,
        rhs_batch,
        preferred,
    } = p
    else {
        return Err(params_err("dot_general"));
    };
    let bump = |v: &[usize], b: usize| -> Vec<usize> {
        v.iter().map(|&k| if k >= b { k + 1 } else { k }).collect()
    };
    let (lhs_rank, rhs_rank) = (bx.aval(&ins[0]).rank(), bx.aval(&ins[1]).rank());
    let (lc, rc, lb, rb, out_dim) = match (dims[0], dims[1]) {
        (Some(l), Some(r)) => {
            let mut lb = vec![l];
            lb.extend(bump(lhs_batch, l));
            let mut rb = vec![r];
            rb.extend(bump(rhs_batch, r));
            (bump(lhs_contract, l), bump(rhs_contract, r), lb, rb, 0)
        }
        (Some(l), None) => {
            let free_before = (0..lhs_rank)
                .filter(|k| !lhs_batch.contains(k) && !lhs_contract.contains(k) && *k < l)
                .count();
            (
                bump(lhs_contract, l),
                rhs_contract.clone(),
                bump(lhs_batch, l),
                rhs_batch.clone(),
                lhs_batch.len() + free_before,
            )
        }
        (None, Some(r)) => {
            let free_before = (0..rhs_rank)
                .filter(|k| !rhs_batch.contains(k) && !rhs_contract.contains(k) && *k < r)
                .count();
            (
                lhs_contract.clone(),
                bump(rhs_contract, r),
                lhs_batch.clone(),
                bump(rhs_batch, r),
                lhs_rank - lhs_contract.len() + free_before,
            )
        }
        (None, None) => return Err(params_err("dot_general")),
    };
    let out = bx.bind(
        &DOT_GENERAL,
        Params::DotGeneral {
            lhs_contract: lc,
            rhs_contract: rc,
            lhs_batch: lb,
            rhs_batch: rb,
            preferred: *preferred,
        },
        ins.to_vec(),
    )?;
    Ok(vec![(out, Some(out_dim))])
}
