//! Primitives that move, select or combine elements, by family: index maps
//! (broadcasts, reshapes, transposes, slices), reductions, arrays assembled
//! from pieces (concatenation, scatters), and contractions. Each family's
//! file holds its definitions with their rules, their derivatives included.
//! Every structural primitive but the reductions by max/min/prod and the
//! argument reductions is linear in its array operand.

/// The jvp of a primitive linear in its first operand: the same primitive on
/// the tangent (other operands, such as indices, stay primal).
macro_rules! same_op_jvp {
    ($prim:ident) => {{
        fn rule(
            ad: &mut Ad,
            ins: &[Atom],
            t: &[Option<Atom>],
            p: &Params,
            _: &[Atom],
        ) -> Res<Vec<Option<Atom>>> {
            let Some(t0) = &t[0] else {
                return Ok(vec![None]);
            };
            let mut args = vec![t0.clone()];
            args.extend(ins[1..].iter().cloned());
            Ok(vec![Some(ad.bind(&$prim, p.clone(), args)?)])
        }
        Some(rule as JvpRule)
    }};
}

mod assemble;
mod dot;
mod reductions;
mod views;

pub use assemble::*;
pub use dot::*;
pub use reductions::*;
pub use views::*;

fn params_err(name: &str) -> String {
    format!("internal error: {name} got the wrong parameters")
}

/// All structural primitives.
#[cfg(test)]
pub static STRUCTURAL: &[&super::PrimDef] = &[
    &BROADCAST_IN_DIM,
    &RESHAPE,
    &TRANSPOSE,
    &SQUEEZE,
    &SLICE,
    &REDUCE_SUM,
    &REDUCE_MAX,
    &REDUCE_MIN,
    &REDUCE_PROD,
    &REDUCE_AND,
    &REDUCE_OR,
    &ARGMAX,
    &ARGMIN,
    &CONCATENATE,
    &DOT_GENERAL,
    &DYNAMIC_SLICE,
    &SCATTER,
    &SCATTER_ADD,
    &SCATTER_MUL,
    &SCATTER_MIN,
    &SCATTER_MAX,
];
