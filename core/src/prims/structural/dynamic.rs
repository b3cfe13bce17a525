//! `dynamic_update_slice`: an array with a window written at start indices
//! known only at run time (clamped so the window fits, as XLA), and the
//! transpose of `dynamic_slice`, which is one.

use proc_macro2::TokenStream;
use quote::quote;

use super::params_err;
use super::views::DYNAMIC_SLICE;
use crate::ir::rules::tangent_aval;
use crate::ir::{rust_type, Atom, Aval, Dim};
use crate::prims::{
    dim_tokens, Ad, BDim, Batch, Bind, JvpRule, Kernel, KernelArgs, Lowering, Params, PrimDef, Res,
    TransposeRule,
};

/// A shape as Python prints a tuple: `(2, 3)`, `(4,)`.
fn shape_tuple(a: &Aval) -> String {
    crate::prims::tuple(&a.shape.iter().map(|d| d.to_string()).collect::<Vec<_>>())
}

/// The start indices are integer scalars of one dtype (JAX's dtype rule;
/// `what` is the primitive, as its message names it).
pub fn check_start_indices(what: &str, starts: &[Aval]) -> Res<()> {
    if starts.iter().any(|i| i.rank() != 0) {
        return Err(format!(
            "start_indices arguments to {what} must be scalars, got indices {}",
            starts
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if starts
        .iter()
        .any(|i| i.dtype != starts[0].dtype || !i.dtype.is_integer())
    {
        return Err(format!(
            "index arguments to {what} must be integers of the same type, got: {}",
            starts
                .iter()
                .map(|a| a.dtype.name())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(())
}

/// `operand` with `update` written at one start index per axis (operands:
/// operand, update, starts), each clamped so the update fits.
pub static DYNAMIC_UPDATE_SLICE: PrimDef = PrimDef {
    name: "dynamic_update_slice",
    abstract_eval: |ops, _, _| {
        let (x, u) = (&ops[0], &ops[1]);
        if x.rank() != u.rank() {
            return Err(format!(
                "dynamic_update_slice update must have the same rank as operand, got update shape {} for operand shape {}.",
                shape_tuple(u),
                shape_tuple(x)
            ));
        }
        if ops.len() - 2 != x.rank() {
            return Err(format!(
                "dynamic_update_slice start_indices must have length equal to the rank of operand, got {} indices for operand shape {}.",
                ops.len() - 2,
                shape_tuple(x)
            ));
        }
        let fits = x.shape.iter().zip(&u.shape).all(|(n, s)| match (n, s) {
            (Dim::Lit(n), Dim::Lit(s)) => s <= n,
            (n, s) => n == s,
        });
        if !fits {
            return Err(format!(
                "dynamic_update_slice update shape must be smaller than operand shape, got update shape {} for operand shape {}.",
                shape_tuple(u),
                shape_tuple(x)
            ));
        }
        if x.dtype != u.dtype {
            return Err(format!(
                "lax.dynamic_update_slice requires arguments to have the same dtypes, got {}, {}.",
                x.dtype.name(),
                u.dtype.name()
            ));
        }
        check_start_indices("dynamic_update_slice", &ops[2..])?;
        Ok(vec![Aval {
            weak: x.weak && u.weak,
            ..x.clone()
        }])
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: Some(0),
        unread: &[],
        call: dynamic_update_slice_call,
    }),
    jvp: Some(dynamic_update_slice_jvp as JvpRule),
    transpose: Some(dynamic_update_slice_transpose as TransposeRule),
    batch: Some(dynamic_update_slice_batch),
    ..PrimDef::BASE
};

/// The runtime's in-place write of the update's buffer into the result's
/// (which starts as the operand), at the start scalars.
fn dynamic_update_slice_call(a: KernelArgs<'_>) -> TokenStream {
    let ty = rust_type(a.out_aval.dtype);
    let shape: Vec<TokenStream> = a.avals[0].shape.iter().map(dim_tokens).collect();
    let sizes: Vec<TokenStream> = a.avals[1].shape.iter().map(dim_tokens).collect();
    let update = (a.bind)(1, Bind::Buffer);
    let starts: Vec<TokenStream> = (2..a.avals.len())
        .map(|k| {
            let s = (a.bind)(k, Bind::Value);
            quote!((#s) as i128)
        })
        .collect();
    let out = a.out;
    quote! {
        ::jax::__rt::windows::dynamic_update_slice::<#ty>(
            &mut #out[..],
            &[#(#shape),*],
            &#update[..],
            &[#(#sizes),*],
            &[#(#starts),*],
        );
    }
}

/// Linear in the operand and the update: the tangents written the same
/// way (a missing one as zeros), as JAX's rule.
fn dynamic_update_slice_jvp(
    ad: &mut Ad,
    ins: &[Atom],
    t: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    if t[0].is_none() && t[1].is_none() {
        return Ok(vec![None]);
    }
    let mut args = vec![
        ad.tangent_or_zeros(&t[0], &ins[0])?,
        ad.tangent_or_zeros(&t[1], &ins[1])?,
    ];
    args.extend(ins[2..].iter().cloned());
    Ok(vec![Some(ad.bind(
        &DYNAMIC_UPDATE_SLICE,
        Params::None,
        args,
    )?)])
}

/// Literal sizes of a window (the update's shape), as `dynamic_slice`'s parameter.
fn literal_sizes(a: &Aval) -> Res<Vec<usize>> {
    a.shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(s) => Err(format!(
                "reverse-mode differentiation of a dynamic_update_slice with an update of symbolic size {s} is not supported"
            )),
        })
        .collect()
}

/// The operand's cotangent is the cotangent with zeros where the update
/// went; the update's is the window the update went to (JAX's rule).
fn dynamic_update_slice_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    _: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    let starts: Vec<Atom> = ins[2..]
        .iter()
        .map(|s| {
            s.clone()
                .ok_or("dynamic_update_slice start indices are not linear")
        })
        .collect::<Result<_, _>>()?;
    let operand_ct = if ins[0].is_none() {
        let zeros = ad.zeros(&tangent_aval(&avals[1]))?;
        let mut args = vec![ct.clone(), zeros];
        args.extend(starts.iter().cloned());
        Some(ad.bind(&DYNAMIC_UPDATE_SLICE, Params::None, args)?)
    } else {
        None
    };
    let update_ct = if ins[1].is_none() {
        let mut args = vec![ct];
        args.extend(starts.iter().cloned());
        let sizes = literal_sizes(&avals[1])?;
        Some(ad.bind(&DYNAMIC_SLICE, Params::DynamicSlice { sizes }, args)?)
    } else {
        None
    };
    let mut out = vec![operand_ct, update_ct];
    out.extend(std::iter::repeat_n(None, starts.len()));
    Ok(out)
}

/// `dynamic_slice`'s transpose (JAX's): the cotangent written into zeros
/// of the operand's type at the same starts.
pub fn dynamic_slice_transpose(
    ad: &mut Ad,
    cts: &[Option<Atom>],
    ins: &[Option<Atom>],
    avals: &[Aval],
    p: &Params,
) -> Res<Vec<Option<Atom>>> {
    let ct = crate::ir::rules::single_ct(cts);
    if !matches!(p, Params::DynamicSlice { .. }) {
        return Err(params_err("dynamic_slice"));
    }
    let zeros = ad.zeros(&tangent_aval(&avals[0]))?;
    let mut args = vec![zeros, ct];
    for s in &ins[1..] {
        args.push(
            s.clone()
                .ok_or("dynamic_slice start indices are not linear")?,
        );
    }
    let out = ad.bind(&DYNAMIC_UPDATE_SLICE, Params::None, args)?;
    let mut cts = vec![Some(out)];
    cts.extend(std::iter::repeat_n(None, ins.len() - 1));
    Ok(cts)
}

/// Starts every lane shares: the operand and the update with their lanes
/// first (an unbatched one repeated) and a whole-axis start 0 for the lanes.
/// Starts that differ by lane become a `scatter`, as JAX's rule.
fn dynamic_update_slice_batch(
    bx: &mut Batch,
    ins: &[Atom],
    dims: &[BDim],
    _: &Params,
) -> Res<Vec<(Atom, BDim)>> {
    if dims[2..].iter().any(Option::is_some) {
        return super::scatter::batched_dynamic_update_slice(bx, ins, dims);
    }
    let size = bx.size.clone();
    let x = bx.at_front(ins[0].clone(), dims[0], size.clone())?;
    let u = bx.at_front(ins[1].clone(), dims[1], size)?;
    let index = ins
        .get(2)
        .map_or(jax_dtypes::DType::I32, |i| bx.aval(i).dtype);
    let zero = crate::ir::builder::literal(crate::ir::Scalar::Int(0), Aval::scalar(index, false));
    let mut args = vec![x, u, zero];
    args.extend(ins[2..].iter().cloned());
    let out = bx.bind(&DYNAMIC_UPDATE_SLICE, Params::None, args)?;
    Ok(vec![(out, Some(0))])
}
