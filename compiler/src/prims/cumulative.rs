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

fn associative_scan_jvp(
    _ad: &mut Ad,
    _x: &Atom,
    t: &Option<Atom>,
    _p: &Params,
    combine: super::Prim,
) -> Res<Vec<Option<Atom>>> {
    if t.is_none() {
        return Ok(vec![None]);
    }
    Err(format!(
        "differentiating cum{} is not supported yet",
        match combine.name {
            "mul" => "prod",
            n => n,
        }
    ))
}
