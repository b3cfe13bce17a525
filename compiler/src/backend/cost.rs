//! `f::cost_analysis()`: what one call computes and moves, from the
//! program as it is emitted (simplified, fused), with the keys of XLA's
//! `cost_analysis`: `flops`, `transcendentals` and `bytes accessed`.
//!
//! Counts: one flop per element of each elementwise operation that is not
//! a transcendental (those are counted apart, as XLA does), one per input
//! element of a reduction, `2 m k n` per product; a scan's body times its
//! length, a `while` body once (its trip count is not known), a `cond`'s
//! dearest branch. Bytes: the arguments read and results written, and
//! every stored intermediate written and read once (fused values are never
//! stored).

use crate::ir::{Atom, Dim, Jaxpr};
use crate::prims::{Lowering, Params};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    pub flops: f64,
    pub transcendentals: f64,
    pub bytes: f64,
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, o: Cost) {
        self.flops += o.flops;
        self.transcendentals += o.transcendentals;
        self.bytes += o.bytes;
    }
}

impl std::ops::Mul<f64> for Cost {
    type Output = Cost;
    fn mul(self, k: f64) -> Cost {
        Cost {
            flops: self.flops * k,
            transcendentals: self.transcendentals * k,
            bytes: self.bytes * k,
        }
    }
}

/// The elements of a static shape; `None` for a symbolic one.
fn size(shape: &[Dim]) -> Option<f64> {
    shape.iter().try_fold(1.0, |acc, d| match d {
        Dim::Lit(n) => Some(acc * *n as f64),
        Dim::Sym(_) => None,
    })
}

fn bytes_of(j: &Jaxpr, a: &Atom) -> Option<f64> {
    let aval = j.atom_aval(a);
    Some(size(&aval.shape)? * (aval.dtype.bits() as f64 / 8.0).max(1.0))
}

/// The cost of a call of `j` (a program as emitted), or `None` when a shape
/// is symbolic (a generic function's).
pub fn analyze(j: &Jaxpr) -> Option<Cost> {
    let mut c = Cost::default();
    for v in &j.invars {
        c.bytes += bytes_of(j, &Atom::Var(*v))?;
    }
    for a in &j.outvars {
        c.bytes += bytes_of(j, a)?;
    }
    c += body(j, true)?;
    Some(c)
}

/// The operations of `j`, and its stored intermediates (not its results
/// when it is the function itself: those are counted once, written).
fn body(j: &Jaxpr, top: bool) -> Option<Cost> {
    let results: std::collections::HashSet<crate::ir::Var> = j
        .outvars
        .iter()
        .filter_map(|a| match a {
            Atom::Var(v) if top => Some(*v),
            _ => None,
        })
        .collect();
    let fusion = crate::backend::fuse::plan(j);
    let mut c = Cost::default();
    for e in &j.eqns {
        let out = &j.aval(e.outs[0]).shape;
        let n = size(out)?;
        match (&e.params, e.prim.lowering) {
            (_, _) if e.prim.flops.is_some() => {
                let ins: Vec<_> = e.ins.iter().map(|a| j.atom_aval(a).clone()).collect();
                let outs: Vec<_> = e.outs.iter().map(|v| j.aval(*v).clone()).collect();
                c.flops += (e.prim.flops.expect("checked"))(&ins, &outs, &e.params)?
            }
            (Params::Scan(s), _) => c += body(&s.0.body, false)? * s.0.length as f64,
            // Every device runs the body once.
            (Params::ShardMap(s), _) => c += body(&s.0.body, false)? * s.0.size as f64,
            (Params::Jit(call), _) => c += body(&call.0.body, false)?,
            (Params::While(w), _) => {
                c += body(&w.0.body, false)?;
                c += body(&w.0.cond, false)?;
            }
            (Params::Cond(k), _) => {
                let mut dearest = Cost::default();
                for b in &k.0.branches {
                    let bc = body(b, false)?;
                    if bc.flops + bc.transcendentals > dearest.flops + dearest.transcendentals {
                        dearest = bc;
                    }
                }
                c += dearest;
            }
            (Params::DotGeneral { lhs_contract, .. }, _) => {
                let lhs = &j.atom_aval(&e.ins[0]).shape;
                let k: f64 = lhs_contract
                    .iter()
                    .map(|&a| size(&lhs[a..a + 1]))
                    .product::<Option<f64>>()?;
                c.flops += 2.0 * n * k;
            }
            // A combining scatter: one operation per update element, as
            // XLA counts it (a gather or a `set` does no arithmetic).
            (Params::Scatter(_), _) if e.prim.name != "scatter" => {
                c.flops += size(&j.atom_aval(&e.ins[2]).shape)?
            }
            (_, Lowering::Elementwise) if e.prim.work >= crate::prims::TRANSCENDENTAL_WORK => {
                c.transcendentals += n
            }
            (_, Lowering::Elementwise | Lowering::Sample) => c.flops += n,
            (_, Lowering::Reduce) => c.flops += size(&j.atom_aval(&e.ins[0]).shape)?,
            _ => {}
        }
        let stored = match e.prim.lowering {
            Lowering::Elementwise | Lowering::Sample => !fusion.fused.contains(&e.outs[0]),
            Lowering::Reduce | Lowering::Kernel => true,
            Lowering::IndexMap | Lowering::Effect => false,
        };
        if stored && !out.is_empty() {
            for o in e.outs.iter().filter(|o| !results.contains(o)) {
                c.bytes += 2.0 * bytes_of(j, &Atom::Var(*o))?;
            }
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(src: &str) -> Cost {
        analyze(&crate::core_tests::simplified_source(src)).unwrap()
    }

    #[test]
    fn a_fused_chain_moves_its_input_and_output() {
        let c = cost(
            "fn f(x: Array<f32, 1000>) -> Array<f32, 1000> { jnp::tanh(x * 1.5 + 0.5) * 2.0 }",
        );
        assert_eq!(
            (c.flops, c.transcendentals, c.bytes),
            (3000.0, 1000.0, 8000.0)
        );
    }

    #[test]
    fn a_scatter_add_counts_its_updates() {
        let add = cost(
            "fn f(x: Array<f32, 50, 3>, i: Array<i32, 8>) -> Array<f32, 50, 3> { x.at(i).add(1.0) }",
        );
        let set = cost(
            "fn f(x: Array<f32, 50, 3>, i: Array<i32, 8>) -> Array<f32, 50, 3> { x.at(i).set(1.0) }",
        );
        // Both normalize the 8 indices (3 operations each); the add adds.
        assert_eq!(set.flops, 8.0 * 3.0);
        assert_eq!(add.flops - set.flops, 8.0 * 3.0);
    }

    #[test]
    fn products_and_loops() {
        let c = cost(
            "fn f(a: Array<f32, 8, 4>, b: Array<f32, 4, 2>) -> Array<f32, 8, 2> { a.matmul(b) }",
        );
        assert_eq!(c.flops, 2.0 * 8.0 * 4.0 * 2.0);
        let c = cost(
            "fn f(w: Array<f32, 4, 4>, h: Array<f32, 4>) -> Array<f32, 4> {
                lax::fori_loop(0, 10, |_i, h| w.matmul(&h) + 1.0, h)
            }",
        );
        // Each step: the product, the add, and the index's increment.
        assert_eq!(c.flops, 10.0 * (32.0 + 4.0 + 1.0));
    }

    #[test]
    fn a_pmap_counts_every_device() {
        let c = cost(
            "fn f(x: Array<f32, 4, 1000>) -> Array<f32, 4, 1000> { jax::pmap(|r| jnp::tanh(r * 2.0), \"i\")(x) }",
        );
        assert_eq!((c.flops, c.transcendentals), (4000.0, 4000.0));
    }
}
