//! `debug_callback`: `jax::debug::print!` inside jitted code, printing the
//! traced values when the function runs. Its result is a dummy `bool[]`
//! that nothing reads; the `Effect` lowering keeps it (dead code
//! elimination, common subexpressions and loop hoisting leave it alone),
//! and it runs where it was traced, after the values it prints.

use super::JvpRule;
use super::{Lowering, Params, PrimDef};
use crate::ir::Aval;

pub static DEBUG_CALLBACK: PrimDef = PrimDef {
    name: "debug_callback",
    abstract_eval: |_, _, _| Ok(vec![Aval::scalar(jax_dtypes::DType::Bool, false)]),
    print_params: |_, p| match p {
        Params::DebugPrint { format, .. } => vec![
            ("callback", format!("print({format:?})")),
            ("effect", "Debug".into()),
        ],
        _ => Vec::new(),
    },
    // Emitted by `Emitter::debug_print`.
    lowering: Lowering::Effect,
    // Printing has no derivative: tangents pass by.
    jvp: Some(no_tangent as JvpRule),
    transpose: None,
    ..PrimDef::BASE
};

fn no_tangent(
    _: &mut super::Ad,
    _: &[crate::ir::Atom],
    _: &[Option<crate::ir::Atom>],
    _: &Params,
    _: &[crate::ir::Atom],
) -> super::Res<Vec<Option<crate::ir::Atom>>> {
    Ok(vec![None])
}
