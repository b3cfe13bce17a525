//! Cumulative reductions along one axis (`lax.cumsum_p`, `cumprod_p`,
//! `cummax_p`, `cummin_p`), run by `::jax::__rt::cumulative`, the code eager
//! `jnp::cumsum` etc. use. `cumsum` is linear (its transpose is the reverse
//! cumsum); the others differentiate as JAX does, by the jvp of their
//! associative-scan definition (`_cumulative_jvp_rule`).

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    dim_tokens, Ad, BDim, Batch, JvpRule, Kernel, KernelArgs, Lowering, Params, PrimDef, Res,
    TransposeRule,
};
use crate::ir::rules::single_ct;
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim};

fn cumulative_eval(name: &str, ops: &[Aval], p: &Params) -> Result<Vec<Aval>, String> {
    let Params::Cumulative { axis, .. } = p else {
        return Err(format!("internal error: {name} got the wrong parameters"));
    };
    let x = &ops[0];
    if *axis >= x.rank() {
        return Err(format!(
            "axis {axis} is out of bounds for array of shape {}",
            super::tuple(&x.shape)
        ));
    }
    if x.dtype == jax_dtypes::DType::Bool {
        return Err(format!(
            "{name} does not accept dtype bool. Accepted dtypes are subtypes of number."
        ));
    }
    if x.shape.iter().any(|d| matches!(d, Dim::Sym(_))) {
        return Err(format!(
            "{name} of an array with a symbolic dimension is not supported yet"
        ));
    }
    Ok(vec![x.clone()])
}

fn print_cumulative(_: &[Aval], p: &Params) -> Vec<(&'static str, String)> {
    match p {
        Params::Cumulative { axis, reverse } => vec![
            ("axis", axis.to_string()),
            (
                "reverse",
                if *reverse { "True" } else { "False" }.to_string(),
            ),
        ],
        _ => Vec::new(),
    }
}

fn parse_cumulative(
    r: &mut crate::ir::parse::ParamReader,
    _: &[Aval],
    _: &[Aval],
) -> Result<Params, String> {
    Ok(Params::Cumulative {
        axis: r.usize("axis")?,
        reverse: r.bool("reverse")?,
    })
}

fn cumulative_call(a: KernelArgs<'_>, op: &str) -> TokenStream {
    let Params::Cumulative { axis, reverse } = a.params else {
        unreachable!("cumulative primitives carry Params::Cumulative")
    };
    let ty = rust_type(a.out_aval.dtype);
    let shape: Vec<TokenStream> = a.avals[0].shape.iter().map(dim_tokens).collect();
    let x = (a.bind)(0, super::Bind::Buffer);
    let f = quote::format_ident!("{}", op);
    quote!(::jax::__rt::cumulative::#f::<#ty>(&#x[..], &[#(#shape),*], #axis, #reverse))
}

/// JAX's `_cumred_batch_rule`: the axis shifted past the batch axis.
fn cumulative_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    p: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    let Params::Cumulative { axis, reverse } = p else {
        unreachable!("cumulative primitives carry Params::Cumulative")
    };
    let bdim = dims[0].expect("the one operand is batched");
    let axis = if *axis < bdim { *axis } else { axis + 1 };
    let prim = bx.prim;
    let out = bx.bind(
        prim,
        Params::Cumulative {
            axis,
            reverse: *reverse,
        },
        vec![ins[0].clone()],
    )?;
    Ok(vec![(out, Some(bdim))])
}

macro_rules! cumulative {
    ($id:ident, $name:literal, $call:ident, jvp: $jvp:expr, transpose: $tr:expr) => {
        fn $call(a: KernelArgs<'_>) -> TokenStream {
            cumulative_call(a, $name)
        }
        #[doc = concat!("`lax.", $name, "_p`.")]
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, p, _| cumulative_eval($name, ops, p),
            print_params: print_cumulative,
            parse_params: parse_cumulative,
            lowering: Lowering::Kernel,
            kernel: Some(Kernel {
                updates: None,
                unread: &[],
                call: $call,
            }),
            jvp: $jvp,
            transpose: $tr,
            batch: Some(cumulative_batch),
            ..PrimDef::BASE
        };
    };
}

cumulative!(CUMSUM, "cumsum", cumsum_call, jvp: Some(cumsum_jvp as JvpRule), transpose: Some(cumsum_transpose as TransposeRule));
cumulative!(CUMPROD, "cumprod", cumprod_call, jvp: Some(cumprod_jvp as JvpRule), transpose: None);
cumulative!(CUMMAX, "cummax", cummax_call, jvp: Some(cummax_jvp as JvpRule), transpose: None);
cumulative!(CUMMIN, "cummin", cummin_call, jvp: Some(cummin_jvp as JvpRule), transpose: None);

/// The cumulative primitives.
pub static CUMULATIVE: &[&PrimDef] = &[&CUMSUM, &CUMPROD, &CUMMAX, &CUMMIN];

/// `cumsum` is linear: the same cumsum of the tangent.
fn cumsum_jvp(
    ad: &mut Ad,
    _: &[Atom],
    t: &[Option<Atom>],
    p: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    match &t[0] {
        Some(t) => Ok(vec![Some(ad.bind(&CUMSUM, p.clone(), vec![t.clone()])?)]),
        None => Ok(vec![None]),
    }
}

/// `_cumsum_transpose_rule`: the cumsum in the other direction.
fn cumsum_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    _: &[Option<Atom>],
    _: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let Params::Cumulative { axis, reverse } = p else {
        unreachable!("cumsum carries Params::Cumulative")
    };
    let ct = single_ct(cts);
    let out = ad.bind(
        &CUMSUM,
        Params::Cumulative {
            axis: *axis,
            reverse: !reverse,
        },
        vec![ct],
    )?;
    Ok(vec![Some(out)])
}

/// `cumprod`/`cummax`/`cummin`: JAX differentiates the associative scan
/// they are defined by (`_cumulative_jvp_rule`).
macro_rules! scan_jvp {
    ($f:ident, $combine:expr) => {
        fn $f(
            ad: &mut Ad,
            ins: &[Atom],
            t: &[Option<Atom>],
            p: &Params,
            _: &[Atom],
        ) -> Res<Vec<Option<Atom>>> {
            associative_scan_jvp(ad, &ins[0], &t[0], p, $combine)
        }
    };
}
scan_jvp!(cumprod_jvp, &super::MUL);
scan_jvp!(cummax_jvp, &super::MAX);
scan_jvp!(cummin_jvp, &super::MIN);

/// The tangent of `associative_scan(combine, x)` along `axis` (JAX's
/// `lax.associative_scan`: pairs combined, the half-length scan by
/// recursion, the even positions from the odd ones, interleaved), each
/// combination's tangent by `combine`'s own jvp rule, so that ties and
/// rounding follow JAX's tree.
fn associative_scan_jvp(
    ad: &mut Ad,
    x: &Atom,
    t: &Option<Atom>,
    p: &Params,
    combine: super::Prim,
) -> Res<Vec<Option<Atom>>> {
    let Some(t) = t else {
        return Ok(vec![None]);
    };
    let Params::Cumulative { axis, reverse } = p else {
        unreachable!("cumulative primitives carry Params::Cumulative")
    };
    if *reverse {
        return Err(format!(
            "differentiating a reverse cumulative {} is not supported yet",
            combine.name
        ));
    }
    let (_, dt) = scan_pairs(ad, combine, *axis, (x.clone(), t.clone()))?;
    Ok(vec![Some(dt)])
}

type Dual = (Atom, Atom);

fn len_along(ad: &Ad, x: &Atom, axis: usize) -> usize {
    match ad.aval(x).shape[axis] {
        Dim::Lit(n) => n,
        Dim::Sym(_) => unreachable!("abstract eval rejects symbolic dimensions"),
    }
}

/// `slicing.slice_in_dim(x, start, limit, stride, axis)`, stride 1 or 2.
/// A stride of 2 is written as contiguous slices and reshapes (pairs along
/// a new axis, the first of each), whose transposes reverse mode has; the
/// elements are the strided slice's.
fn slice_in_dim(
    ad: &mut Ad,
    x: &Atom,
    start: usize,
    limit: usize,
    stride: usize,
    axis: usize,
) -> Res<Atom> {
    if stride == 2 && limit > start {
        let pairs = (limit - start) / 2;
        let mut parts = Vec::new();
        if pairs > 0 {
            let run = slice_in_dim(ad, x, start, start + 2 * pairs, 1, axis)?;
            let mut shape = ad.aval(&run).shape;
            shape[axis] = Dim::Lit(pairs);
            shape.insert(axis + 1, Dim::Lit(2));
            let paired = ad.bind(
                &super::RESHAPE,
                Params::Reshape {
                    new_sizes: shape.clone(),
                },
                vec![run],
            )?;
            let firsts = slice_in_dim(ad, &paired, 0, 1, 1, axis + 1)?;
            shape.remove(axis + 1);
            parts.push(ad.bind(
                &super::RESHAPE,
                Params::Reshape { new_sizes: shape },
                vec![firsts],
            )?);
        }
        if (limit - start) % 2 == 1 {
            parts.push(slice_in_dim(ad, x, limit - 1, limit, 1, axis)?);
        }
        return match parts.len() {
            1 => Ok(parts.pop().expect("one part")),
            _ => ad.bind(
                &super::CONCATENATE,
                Params::Concatenate { dim: axis },
                parts,
            ),
        };
    }
    let shape = ad.aval(x).shape;
    let mut lo = vec![0; shape.len()];
    let mut hi: Vec<usize> = shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => *n,
            Dim::Sym(_) => 0,
        })
        .collect();
    lo[axis] = start;
    hi[axis] = limit;
    let strides = (stride != 1 && limit > start).then(|| {
        let mut s = vec![1; shape.len()];
        s[axis] = stride;
        s
    });
    ad.bind(
        &super::SLICE,
        Params::Slice {
            start: lo,
            limit: hi,
            strides,
        },
        vec![x.clone()],
    )
}

fn combine_duals(ad: &mut Ad, prim: super::Prim, a: Dual, b: Dual) -> Res<Dual> {
    let p = ad.bin(prim, a.0.clone(), b.0.clone())?;
    let jvp = prim.jvp.expect("mul, max and min have jvp rules");
    let t = jvp(
        ad,
        &[a.0, b.0],
        &[Some(a.1), Some(b.1)],
        &Params::None,
        std::slice::from_ref(&p),
    )?;
    let t = match t.into_iter().next().flatten() {
        Some(t) => t,
        None => {
            let aval = crate::ir::rules::tangent_aval(&ad.aval(&p));
            ad.zeros(&aval)?
        }
    };
    Ok((p, t))
}

fn map_dual(ad: &mut Ad, x: &Dual, f: impl Fn(&mut Ad, &Atom) -> Res<Atom>) -> Res<Dual> {
    Ok((f(ad, &x.0)?, f(ad, &x.1)?))
}

/// `_scan` of `lax.associative_scan` on a primal and its tangent.
fn scan_pairs(ad: &mut Ad, prim: super::Prim, axis: usize, elems: Dual) -> Res<Dual> {
    let n = len_along(ad, &elems.0, axis);
    if n < 2 {
        return Ok(elems);
    }
    let firsts = map_dual(ad, &elems, |ad, e| slice_in_dim(ad, e, 0, n - 1, 2, axis))?;
    let seconds = map_dual(ad, &elems, |ad, e| slice_in_dim(ad, e, 1, n, 2, axis))?;
    let reduced = combine_duals(ad, prim, firsts, seconds)?;
    let odd = scan_pairs(ad, prim, axis, reduced)?;
    let m = len_along(ad, &odd.0, axis);
    let later = map_dual(ad, &elems, |ad, e| slice_in_dim(ad, e, 2, n, 2, axis))?;
    let even = if n.is_multiple_of(2) {
        let head = map_dual(ad, &odd, |ad, e| slice_in_dim(ad, e, 0, m - 1, 1, axis))?;
        combine_duals(ad, prim, head, later)?
    } else {
        combine_duals(ad, prim, odd.clone(), later)?
    };
    let first = map_dual(ad, &elems, |ad, e| slice_in_dim(ad, e, 0, 1, 1, axis))?;
    let even = (
        ad.bind(
            &super::CONCATENATE,
            Params::Concatenate { dim: axis },
            vec![first.0, even.0],
        )?,
        ad.bind(
            &super::CONCATENATE,
            Params::Concatenate { dim: axis },
            vec![first.1, even.1],
        )?,
    );
    Ok((
        interleave(ad, &even.0, &odd.0, axis)?,
        interleave(ad, &even.1, &odd.1, axis)?,
    ))
}

/// `a0 b0 a1 b1 ..` along `axis` (`a` as long as `b` or one longer). JAX
/// pads both with zeros and adds; stacking along a new axis and merging it
/// gives the same elements without the additions.
fn interleave(ad: &mut Ad, a: &Atom, b: &Atom, axis: usize) -> Res<Atom> {
    let (na, nb) = (len_along(ad, a, axis), len_along(ad, b, axis));
    let a_head = if na > nb {
        slice_in_dim(ad, a, 0, nb, 1, axis)?
    } else {
        a.clone()
    };
    let a2 = ad.expand_dims(a_head, &[axis + 1])?;
    let b2 = ad.expand_dims(b.clone(), &[axis + 1])?;
    let pairs = ad.bind(
        &super::CONCATENATE,
        Params::Concatenate { dim: axis + 1 },
        vec![a2, b2],
    )?;
    let mut shape = ad.aval(b).shape;
    shape[axis] = Dim::Lit(2 * nb);
    let merged = ad.bind(
        &super::RESHAPE,
        Params::Reshape { new_sizes: shape },
        vec![pairs],
    )?;
    if na > nb {
        let last = slice_in_dim(ad, a, nb, na, 1, axis)?;
        ad.bind(
            &super::CONCATENATE,
            Params::Concatenate { dim: axis },
            vec![merged, last],
        )
    } else {
        Ok(merged)
    }
}
