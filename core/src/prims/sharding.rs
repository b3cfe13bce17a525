//! Where JAX places data on devices: `sharding_constraint` and `reshard`
//! change only a value's sharding, so in one process (the programs this
//! compiler emits; `shard_map` is how they split work) each is its
//! operand. They exist for imported programs, which carry them.

use quote::quote;

use super::{BDim, Batch, Lowering, Params, PrimDef, Res};
use crate::ir::Atom;

fn same_batch(bx: &mut Batch, ins: &[Atom], dims: &[BDim], p: &Params) -> Res<Vec<(Atom, BDim)>> {
    let prim = bx.prim;
    Ok(vec![(bx.bind(prim, p.clone(), ins.to_vec())?, dims[0])])
}

macro_rules! placement {
    ($($id:ident = $name:literal;)*) => {$(
        pub static $id: PrimDef = PrimDef {
            name: $name,
            abstract_eval: |ops, _, _| Ok(vec![ops[0].clone()]),
            // Its shardings and meshes: nothing one process computes.
            parse_params: |r, _, _| {
                r.ignore_rest();
                Ok(Params::None)
            },
            lowering: Lowering::Elementwise,
            scalar: Some(|_, a| quote!(::jax::__rt::ops::copy(#(#a)*))),
            forward: Some(|_, e, _| Some(e.ins[0].clone())),
            // The identity, as `copy`: tangent and cotangent pass through.
            jvp: Some(super::copy_jvp),
            transpose: Some(super::copy_transpose),
            batch: Some(same_batch),
            ..PrimDef::BASE
        };
    )*};
}

placement! {
    SHARDING_CONSTRAINT = "sharding_constraint";
    RESHARD = "reshard";
}
