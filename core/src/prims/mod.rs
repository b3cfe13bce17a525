//! Primitives. Each is one [`PrimDef`] holding all of its rules — abstract
//! evaluation (shape and dtype), how jaxprs print its parameters, and how it
//! is lowered — next to each other, as JAX's `lax.py` does. Adding a primitive
//! means adding one definition, not editing match statements across the crate.

// Every definition ends in `..PrimDef::BASE`, even one that sets every
// field today, so that a new rule kind is a field of `BASE`, not an edit of
// each definition.
#![allow(clippy::needless_update)]

// Defined before the modules, so every family's file can use it.
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

mod call;
mod checkpoint;
mod collectives;
mod cond;
mod control;
mod cumulative;
mod debug;
mod elementwise;
mod keys;
pub mod linalg;
mod programs;
mod random;
mod rules;
mod scan;
mod shard_map;
mod sharding;
mod sort;
mod structural;

pub use call::*;
pub use checkpoint::*;
pub use collectives::*;
pub use cond::*;
pub use control::*;
pub use cumulative::*;
pub use debug::*;
pub use elementwise::*;
pub use keys::*;
pub use linalg::*;
pub use random::*;
pub use scan::*;
pub use shard_map::*;
pub use sharding::*;
pub use sort::*;
pub use structural::*;

// What a primitive is, defined below the IR's equations that name one;
// re-exported, as every primitive's definition uses it.
pub use crate::ir::primitive::*;
pub use crate::ir::rules::{Ad, BDim, Batch, Ctx, JvpRule, Res, TransposeRule};

/// Whether `a` has the dtype and shape of `e`'s result.
pub fn same_type(j: &crate::ir::Jaxpr, e: &crate::ir::Eqn, a: &crate::ir::Atom) -> bool {
    let (av, out) = (j.atom_aval(a), j.aval(e.outs[0]));
    av.dtype == out.dtype && av.shape == out.shape
}

/// A Python-style tuple of numbers: `(0,)`, `(0, 1)`, `()`.
pub fn tuple<T: std::fmt::Display>(items: &[T]) -> String {
    match items {
        [] => "()".into(),
        [x] => format!("({x},)"),
        _ => format!(
            "({})",
            items
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A tuple whose items JAX holds partly as NumPy integers (bit `k` of
/// `np_ints` for `items[k]`), as its jaxprs print it: `(0, np.int64(2))`.
pub fn np_tuple(items: &[usize], np_ints: u32) -> String {
    let shown: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(k, x)| match np_ints >> k & 1 {
            1 => format!("np.int64({x})"),
            _ => x.to_string(),
        })
        .collect();
    tuple(&shown)
}

/// The shape of an equation's only result, as jaxpr text declares it (for
/// the parameters JAX leaves out of the text because the result's type
/// shows them).
pub fn result_shape(outs: &[crate::ir::Aval]) -> Result<crate::ir::Shape, String> {
    match outs {
        [a] => Ok(a.shape.clone()),
        _ => Err(format!(
            "expected one result, the text binds {}",
            outs.len()
        )),
    }
}

/// The primitive jaxprs print as `name` (the collectives, outside
/// [`all`], as [`COLLECTIVES_BY_NAME`] resolves them).
pub fn by_name(name: &str) -> Option<Prim> {
    all()
        .iter()
        .chain(COLLECTIVES_BY_NAME)
        .copied()
        .find(|p| p.name == name)
}

/// Every primitive, family by family.
pub fn all() -> &'static [Prim] {
    static ALL: std::sync::LazyLock<Vec<Prim>> = std::sync::LazyLock::new(|| {
        let mut v: Vec<Prim> = ELEMENTWISE.clone();
        v.extend_from_slice(STRUCTURAL);
        v.extend_from_slice(RANDOM);
        v.extend([&RANDOM_WRAP, &RANDOM_UNWRAP, &RANDOM_SEED]);
        v.extend([&SHARDING_CONSTRAINT, &RESHARD]);
        v.push(&CUSTOM_JVP_CALL);
        v.push(&CUSTOM_VJP_CALL);
        v.push(&CUSTOM_VJP_LIN);
        v.push(&CHECKPOINT);
        v.push(&SHARD_MAP);
        v.push(&JIT);
        v.push(&OPTIMIZATION_BARRIER);
        v.push(&COND);
        v.push(&WHILE);
        v.push(&SCAN);
        v.push(&DEBUG_CALLBACK);
        v.extend_from_slice(SORTING);
        v.extend_from_slice(CUMULATIVE);
        v.extend_from_slice(linalg::LINALG);
        v
    });
    &ALL
}

#[cfg(test)]
mod tests {
    use super::*;
    use jax_dtypes::DType;

    #[test]
    fn names_are_unique() {
        let all = all();
        for (i, p) in all.iter().enumerate() {
            assert!(
                all[i + 1..].iter().all(|q| q.name != p.name),
                "{} defined twice",
                p.name
            );
        }
    }

    #[test]
    fn every_primitive_has_its_rules() {
        // Without a jvp rule, each for its reason; differentiating through
        // one is a compile error naming it.
        const WITHOUT_JVP: &[&str] = &[
            // Its derivative, polygamma(1, x), has no primitive yet.
            "digamma",
            // The linearized custom_vjp function: only ever transposed.
            "custom_vjp_lin",
        ];
        let missing: Vec<&str> = all()
            .iter()
            .filter(|p| p.jvp.is_none())
            .map(|p| p.name)
            .collect();
        assert_eq!(missing, WITHOUT_JVP);
        // Without a batching rule, each for its reason; vmapping through
        // one is a compile error naming it.
        const WITHOUT_BATCH: &[&str] = &[
            // No operands: every lane shares its value, so it is never batched.
            "static_value",
            // The linearized custom_vjp function exists only inside reverse
            // mode, which transposes it away before vmap sees a program.
            "custom_vjp_lin",
        ];
        let unbatched: Vec<&str> = all()
            .iter()
            .filter(|p| p.batch.is_none())
            .map(|p| p.name)
            .collect();
        assert_eq!(unbatched, WITHOUT_BATCH);
        for p in all() {
            assert!(p.work >= 1, "{} has no work", p.name);
            if p.lowering == Lowering::Elementwise {
                let args: Vec<proc_macro2::TokenStream> = (0..3usize)
                    .map(|k| quote::format_ident!("a{}", k))
                    .map(|a| quote::quote!(#a))
                    .collect();
                let params = match p.name {
                    "convert_element_type" | "bitcast_convert_type" => Params::Convert {
                        new_dtype: DType::F32,
                        weak: false,
                    },
                    "integer_pow" => Params::IntegerPow(2),
                    "static_value" => Params::Symbol {
                        expr: "N".into(),
                        dtype: DType::F32,
                    },
                    _ => Params::None,
                };
                let call = p.scalar_call(&params, &args).to_string();
                assert!(
                    call.contains(":: jax :: __rt :: ops ::") || p.name == "static_value",
                    "{}: {call}",
                    p.name
                );
            }
        }
        // Each lowering category's hook: emission asks the definition, not
        // the name. Control flow holds programs (`nested`) the backend emits
        // itself; custom calls are inlined (`inline_calls`) before emission.
        const INLINED: &[&str] = &[
            "custom_jvp_call",
            "custom_vjp_call",
            "custom_vjp_lin",
            "remat2",
            "jit",
        ];
        for p in all() {
            let has = match p.lowering {
                Lowering::IndexMap => p.view.is_some(),
                Lowering::Reduce => p.reduction.is_some(),
                Lowering::Kernel => {
                    p.kernel.is_some() || p.nested.is_some() || INLINED.contains(&p.name)
                }
                Lowering::Elementwise | Lowering::Sample | Lowering::Effect => true,
            };
            assert!(has, "{} ({:?}) has no lowering hook", p.name, p.lowering);
            // And no hook of another category.
            assert!(
                p.view.is_none() || p.lowering == Lowering::IndexMap,
                "{} has a view",
                p.name
            );
            assert!(
                p.reduction.is_none() || p.lowering == Lowering::Reduce,
                "{} has a reduction",
                p.name
            );
            assert!(
                p.kernel.is_none() || p.lowering == Lowering::Kernel && p.nested.is_none(),
                "{} has a kernel",
                p.name
            );
        }
        // The work of a family, set once where the family is defined.
        for (name, work) in [
            ("tanh", TRANSCENDENTAL_WORK),
            ("exp", TRANSCENDENTAL_WORK),
            ("div", 4),
            ("integer_pow", 4),
            ("add", 1),
        ] {
            let p = all().iter().find(|p| p.name == name).unwrap();
            assert_eq!(p.work, work, "{name}");
        }
    }

    #[test]
    fn python_tuples() {
        assert_eq!(tuple::<usize>(&[]), "()");
        assert_eq!(tuple(&[0]), "(0,)");
        assert_eq!(tuple(&[0, 1]), "(0, 1)");
    }
}
