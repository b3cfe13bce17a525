//! Fusion: which elementwise results are never stored.
//!
//! An elementwise result used once, by an elementwise consumer of the same
//! shape or by a reduction, is computed inside the consumer's loop. A result
//! used more than once is stored, so an expensive producer (`exp`, `tanh`) is
//! never computed twice; so is one that a consumer would broadcast (read
//! several times per element). Outputs are always stored.
//!
//! A fused loop holds at most [`MAX_LOOP_WORK`] of work per element: LLVM's
//! time on one loop body grows faster than the body (a 600-operation loop
//! took 2.5 times as long as two of 300), and past that size one more stored
//! intermediate costs the loop a few percent at most.

use std::collections::{HashMap, HashSet};

use crate::ir::{Atom, Jaxpr, Var};
use crate::prims::Lowering;

/// The fusion decisions for one jaxpr.
#[derive(Debug, Default)]
pub struct Fusion {
    /// Variables computed inside their consumer's loop.
    pub fused: HashSet<Var>,
}

/// The most work per element (in `PrimDef::work` units: 1 per addition, 32 per
/// transcendental) one fused loop computes; a longer chain is stored in
/// pieces of about this size.
pub const MAX_LOOP_WORK: usize = 1024;

/// Decides which elementwise results are fused into their consumers.
pub fn plan(j: &Jaxpr) -> Fusion {
    let mut uses: HashMap<Var, usize> = HashMap::new();
    let mut consumer: HashMap<Var, usize> = HashMap::new();
    for (k, e) in j.eqns.iter().enumerate() {
        for a in &e.ins {
            if let Atom::Var(v) = a {
                *uses.entry(*v).or_insert(0) += 1;
                consumer.insert(*v, k);
            }
        }
    }
    let outputs: HashSet<Var> = j
        .outvars
        .iter()
        .filter_map(|a| if let Atom::Var(v) = a { Some(*v) } else { None })
        .collect();
    let mut fused = HashSet::new();
    // The work per element of each value's fused expression, itself included.
    let mut work: HashMap<Var, usize> = HashMap::new();
    for e in &j.eqns {
        let v = e.outs[0];
        let aval = j.aval(v);
        let w = e.prim.work
            + e.ins
                .iter()
                .filter_map(|a| match a {
                    Atom::Var(u) if fused.contains(u) => work.get(u).copied(),
                    _ => None,
                })
                .sum::<usize>();
        work.insert(v, w);
        if w >= MAX_LOOP_WORK {
            continue;
        }
        let computed_in_place = matches!(e.prim.lowering, Lowering::Elementwise | Lowering::Sample);
        if !computed_in_place || aval.rank() == 0 || outputs.contains(&v) {
            continue;
        }
        if uses.get(&v) != Some(&1) {
            continue;
        }
        let c = &j.eqns[consumer[&v]];
        let ok = match c.prim.lowering {
            Lowering::Elementwise => j.aval(c.outs[0]).shape == aval.shape,
            Lowering::Reduce => true,
            _ => false,
        };
        if ok {
            fused.insert(v);
        }
    }
    Fusion { fused }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(src: &str) -> (Jaxpr, Fusion) {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let sig = crate::frontend::parse::signature(&f).unwrap();
        let j = crate::frontend::parse::trace_fn(&f, &sig, false)
            .unwrap()
            .b
            .jaxpr;
        let p = plan(&j);
        (j, p)
    }

    #[test]
    fn chains_fuse_and_shared_values_are_stored() {
        let (j, p) =
            planned("fn f(x: Array<f32, 8>) -> Array<f32, 8> { jnp::tanh(x * 1.5 + 0.5) * 2.0 }");
        // mul, add, tanh fuse into the final mul, which is stored.
        assert_eq!(p.fused.len(), 3);
        assert!(!p.fused.contains(&j.eqns[3].outs[0]));
        let (j, p) =
            planned("fn f(x: Array<f32, 8>) -> Array<f32, 8> { let e = jnp::exp(x); e * e }");
        assert!(
            !p.fused.contains(&j.eqns[0].outs[0]),
            "exp is used twice: stored once"
        );
    }

    #[test]
    fn long_chains_are_stored_in_pieces() {
        // 100 tanh (32 units each) with an add between: a piece holds at
        // most MAX_LOOP_WORK, so a result is stored about every 31 steps.
        let body = "let h = jnp::tanh(h + x);".repeat(100);
        let (j, p) = planned(&format!(
            "fn f(x: Array<f32, 8>) -> Array<f32, 8> {{ let h = x * 1.0; {body} h }}"
        ));
        let stored: Vec<usize> = j
            .eqns
            .iter()
            .enumerate()
            .filter(|(_, e)| !p.fused.contains(&e.outs[0]))
            .map(|(k, _)| k)
            .collect();
        // 100 * (32 + 1) units in pieces of at most 1024: four loops.
        assert_eq!(stored.len(), 4, "{stored:?}");
        for w in stored.windows(2) {
            // Two equations (tanh, add) per step of 33 units.
            assert!(w[1] - w[0] <= 2 * MAX_LOOP_WORK.div_ceil(33), "{stored:?}");
        }
    }

    #[test]
    fn broadcast_consumers_do_not_fuse() {
        let (j, p) = planned(
            "fn f(b: Array<f32, 3>, x: Array<f32, 4, 3>) -> Array<f32, 4, 3> { x + jnp::exp(b) }",
        );
        assert!(
            !p.fused.contains(&j.eqns[0].outs[0]),
            "exp(b) would be recomputed per row"
        );
    }
}
