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
    // What it prints is not in the text: JAX's `callback` is a Python
    // function (`<function ..>`), ours the format string without the
    // names of its `name = value` arguments.
    parse_params: |r, _, _| {
        let callback = match r.opt("callback") {
            Some(crate::ir::parse::PVal::Raw(text)) => format!(" (`{text}`)"),
            _ => String::new(),
        };
        Err(format!(
            "`debug_callback` cannot be imported: its printed callback{callback} does not hold what it prints (JAX's is a Python function; this compiler's format string lacks its arguments' names)"
        ))
    },
    // Emitted by `Emitter::debug_print`.
    lowering: Lowering::Effect,
    // Printing has no derivative: tangents pass by.
    jvp: Some(no_tangent as JvpRule),
    transpose: None,
    batch: Some(print_lanes),
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

/// Printing batched values prints each lane in turn, as JAX's
/// `debug_callback_batching_rule` unrolls the callback over the lanes
/// (shared values printed whole in each).
fn print_lanes(
    bx: &mut super::Batch,
    ins: &[crate::ir::Atom],
    dims: &[super::BDim],
    p: &Params,
) -> super::Res<Vec<(crate::ir::Atom, super::BDim)>> {
    let crate::ir::Dim::Lit(n) = bx.size.clone() else {
        return Err("printing inside vmap over a symbolic number of lanes is not supported".into());
    };
    let mut out = None;
    for i in 0..n {
        let mut args = Vec::with_capacity(ins.len());
        for (x, d) in ins.iter().zip(dims) {
            args.push(match d {
                Some(d) => super::index_in_dim(bx, x.clone(), *d, i)?,
                None => x.clone(),
            });
        }
        out = Some(bx.bind(&DEBUG_CALLBACK, p.clone(), args)?);
    }
    let out = match out {
        Some(o) => o,
        // No lanes: nothing is printed; the dummy result of a print.
        None => crate::ir::builder::literal(
            crate::ir::Scalar::Bool(false),
            Aval::scalar(jax_dtypes::DType::Bool, false),
        ),
    };
    Ok(vec![(out, None)])
}
