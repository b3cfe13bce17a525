//! Fusion: which elementwise results are never stored.
//!
//! An elementwise result used once, by an elementwise consumer of the same
//! shape or by a reduction, is computed inside the consumer's loop. A result
//! used more than once is stored, so an expensive producer (`exp`, `tanh`) is
//! never computed twice; so is one that a consumer would broadcast (read
//! several times per element). Outputs are always stored.

use std::collections::{HashMap, HashSet};

use crate::ir::{Atom, Jaxpr, Var};
use crate::prims::Lowering;

/// The fusion decisions for one jaxpr.
#[derive(Debug, Default)]
pub struct Fusion {
    /// Variables computed inside their consumer's loop.
    pub fused: HashSet<Var>,
}

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
    for e in &j.eqns {
        let v = e.outs[0];
        let aval = j.aval(v);
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
        let sig = crate::parse::signature(&f).unwrap();
        let j = crate::parse::trace_fn(&f, &sig, false).unwrap().b.jaxpr;
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
