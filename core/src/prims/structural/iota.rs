//! `iota`: the positions along one axis of a new array (`lax.iota`,
//! `lax.broadcasted_iota`), run by a runtime kernel. JAX builds `eye`,
//! `linspace` and einsum's diagonal masks from it.

use super::params_err;
use crate::ir::{Atom, Aval};
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::rust_type;
use crate::prims::{
    dim_tokens, tuple, Ad, BDim, Batch, JvpRule, Kernel, KernelArgs, Lowering, Params, PrimDef, Res,
};

/// `broadcasted_iota(dtype, shape, dimension)`: element `i` holds its index
/// along `dimension`.
pub static IOTA: PrimDef = PrimDef {
    name: "iota",
    abstract_eval: |ops, p, _| {
        let Params::Iota {
            dtype,
            shape,
            dimension,
        } = p
        else {
            return Err(params_err("iota"));
        };
        if !ops.is_empty() || *dimension >= shape.len() {
            return Err(format!(
                "iota dimension {dimension} is out of bounds for shape {}",
                crate::ir::shapes::fmt(shape)
            ));
        }
        Ok(vec![Aval {
            dtype: *dtype,
            shape: shape.clone(),
            weak: false,
        }])
    },
    print_params: |_, p| match p {
        Params::Iota {
            dtype,
            shape,
            dimension,
        } => vec![
            ("dimension", dimension.to_string()),
            ("dtype", dtype.name().to_string()),
            ("shape", tuple(shape)),
            ("sharding", "None".into()),
        ],
        _ => Vec::new(),
    },
    parse_params: |r, _, _| {
        r.ignore("sharding");
        Ok(Params::Iota {
            dtype: r.dtype("dtype")?,
            shape: r.dims("shape")?,
            dimension: r.usize("dimension")?,
        })
    },
    lowering: Lowering::Kernel,
    kernel: Some(Kernel {
        updates: None,
        unread: &[],
        call: iota_call,
    }),
    jvp: Some(iota_jvp as JvpRule),
    batch: Some(iota_batch),
    work: 1,
    ..PrimDef::BASE
};

fn iota_call(a: KernelArgs<'_>) -> TokenStream {
    let Params::Iota {
        shape, dimension, ..
    } = a.params
    else {
        unreachable!("{}", params_err("iota"))
    };
    let ty = rust_type(a.out_aval.dtype);
    let shape: Vec<TokenStream> = shape.iter().map(dim_tokens).collect();
    quote!(::jax::__rt::iota::<#ty>(&[#(#shape),*], #dimension))
}

/// No operands, so no tangent.
fn iota_jvp(
    _: &mut Ad,
    _: &[Atom],
    _: &[Option<Atom>],
    _: &Params,
    _: &[Atom],
) -> Res<Vec<Option<Atom>>> {
    Ok(vec![None])
}

/// No operands: every lane shares the value (vmap never batches it, as it
/// batches nothing without a batched operand).
fn iota_batch(bx: &mut Batch, _: &[Atom], _: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    Ok(vec![(bx.bind(&IOTA, p.clone(), vec![])?, None)])
}
