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
//!
//! A gather of single elements (`x[ix, iy]`: every operand axis indexed,
//! no window) is computed in place too, as XLA fuses it: its loop reads
//! the operand at the position its index components give, and the index
//! vector `concatenate` and `broadcast_in_dim` build for it are never
//! stored ([`PointGather`]).

use std::collections::{HashMap, HashSet};

use crate::ir::{Atom, Jaxpr, Var};
use crate::prims::Lowering;

/// The fusion decisions for one jaxpr.
#[derive(Debug, Default)]
pub struct Fusion {
    /// Variables computed inside their consumer's loop.
    pub fused: HashSet<Var>,
    /// Matmul epilogues: a stored elementwise result (the key) whose fused
    /// expression reads a plain matrix product (the value, also in `fused`),
    /// computed as that product's epilogue instead of a loop of its own.
    pub epilogue: HashMap<Var, Var>,
    /// Gathers of single elements computed element by element (the key:
    /// the gather's result), stored or fused like an elementwise result.
    pub gathers: HashMap<Var, PointGather>,
    /// Index vectors of point gathers, and their pieces, that nothing else
    /// reads: folded into the gathers' loops, never emitted.
    pub absorbed: HashSet<Var>,
}

/// A gather whose every result element is one operand element: all the
/// operand's axes collapsed and indexed, windows of one element, no
/// batching axes, and an index vector built from arrays of the result's
/// shape (or scalars) by `broadcast_in_dim` to a trailing axis of one and,
/// for several, `concatenate` along it. Its loop reads those arrays
/// (`components`, in index-vector order) and the operand element they
/// name; the index vector, when nothing else reads it, is never built
/// ([`Fusion::absorbed`]).
#[derive(Clone, Debug)]
pub struct PointGather {
    /// The index component of each entry of the index vector: an array of
    /// the result's shape, or a rank-0 value.
    pub components: Vec<Atom>,
    /// The operand axis each component indexes (`start_index_map`).
    pub index_map: Vec<usize>,
    /// Out-of-bounds components are clamped (`clip`, and XLA's CPU rule for
    /// `promise_in_bounds`) or read the fill value (`fill`).
    pub fill: Option<Option<f64>>,
    /// The index vector and its `broadcast_in_dim` pieces.
    pub pieces: Vec<Var>,
}

/// Work per element of index arithmetic cheap enough to compute again in
/// each gather that reads it rather than store it once: a wrap-around of
/// negative indices, `remainder`, a clamp.
pub const RECOMPUTED_INDEX_WORK: usize = 32;

/// The gather `e` as a [`PointGather`], when it is one.
pub fn point_gather(j: &Jaxpr, e: &crate::ir::Eqn) -> Option<PointGather> {
    use crate::prims::{IndexMode, Params};
    use jax_dtypes::DType;
    let Params::Gather(g) = &e.params else {
        return None;
    };
    let (Atom::Var(x), Atom::Var(idx)) = (&e.ins[0], &e.ins[1]) else {
        return None;
    };
    let rank = j.aval(*x).rank();
    let d = &g.dims;
    let mut collapsed = d.collapsed.clone();
    collapsed.sort_unstable();
    let mut map = d.index_map.clone();
    map.sort_unstable();
    let all: Vec<usize> = (0..rank).collect();
    // Index types whose every value converts to `i64` exactly.
    let exact = matches!(
        j.aval(*idx).dtype,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::U16 | DType::U32
    );
    if rank == 0
        || !exact
        || !d.offset.is_empty()
        || !d.operand_batching.is_empty()
        || collapsed != all
        || map != all
        || g.slice_sizes.iter().any(|&s| s != 1)
    {
        return None;
    }
    let out = &j.aval(e.outs[0]).shape;
    let producer = |v: Var| j.eqns.iter().find(|e| e.outs.contains(&v));
    let idx_eqn = producer(*idx)?;
    let (mut pieces, parts) = match &idx_eqn.params {
        Params::Concatenate { dim } if *dim == out.len() => {
            let parts: Vec<Var> = idx_eqn
                .ins
                .iter()
                .map(|a| match a {
                    Atom::Var(v) => Some(*v),
                    Atom::Lit(_) => None,
                })
                .collect::<Option<_>>()?;
            (vec![*idx], parts)
        }
        Params::BroadcastInDim { .. } => (Vec::new(), vec![*idx]),
        _ => return None,
    };
    let mut components = Vec::new();
    for piece in parts {
        let b = producer(piece)?;
        let Params::BroadcastInDim { dims, .. } = &b.params else {
            return None;
        };
        let c = &b.ins[0];
        let cs = &j.atom_aval(c).shape;
        // `[batch..] -> [batch.., 1]` or a scalar spread over the batch.
        let same = cs == out && dims.iter().copied().eq(0..out.len());
        if !(same || cs.is_empty()) {
            return None;
        }
        pieces.push(piece);
        components.push(c.clone());
    }
    Some(PointGather {
        components,
        index_map: d.index_map.clone(),
        fill: (g.mode == IndexMode::FillOrDrop).then_some(g.fill_value),
        pieces,
    })
}

fn var(a: &Atom) -> Option<Var> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Lit(_) => None,
    }
}

/// The index vectors and pieces of point gathers that nothing else reads:
/// never built.
fn absorbed(j: &Jaxpr, gathers: &HashMap<Var, PointGather>) -> HashSet<Var> {
    let mut readers: HashMap<Var, Vec<Var>> = HashMap::new();
    for e in &j.eqns {
        for a in &e.ins {
            if let Atom::Var(v) = a {
                readers.entry(*v).or_default().push(e.outs[0]);
            }
        }
    }
    let outputs: HashSet<Var> = j.outvars.iter().filter_map(var).collect();
    let mut absorbed = HashSet::new();
    // Index vectors first (read by gathers), then pieces (read by index
    // vectors or, alone, by gathers): each list's readers are decided
    // before it.
    let candidates: Vec<Vec<Var>> = {
        let (mut vectors, mut pieces) = (HashSet::new(), HashSet::new());
        for g in gathers.values() {
            for (k, v) in g.pieces.iter().enumerate() {
                if k == 0 && g.pieces.len() > g.components.len() {
                    vectors.insert(*v);
                } else {
                    pieces.insert(*v);
                }
            }
        }
        vec![vectors.into_iter().collect(), pieces.into_iter().collect()]
    };
    for list in candidates {
        for v in list {
            let all_fold = readers.get(&v).is_some_and(|rs| {
                rs.iter()
                    .all(|r| gathers.contains_key(r) || absorbed.contains(r))
            });
            if all_fold && !outputs.contains(&v) {
                absorbed.insert(v);
            }
        }
    }
    absorbed
}

/// The most work per element (in `PrimDef::work` units: 1 per addition, 32 per
/// transcendental) one fused loop computes; a longer chain is stored in
/// pieces of about this size.
pub const MAX_LOOP_WORK: usize = 1024;

/// The most work per element a matmul epilogue holds: a bias add, a
/// `relu`, a scale and a residual add, no transcendental. With its block
/// loop compiled per SIMD level, a `tanh` epilogue measured the same as the
/// product followed by its own vectorized loop (MLP forward 256×784→512,
/// `tanh(x@w1+b1)`, one thread: 2.35 against 2.38 ms), so there is nothing
/// to gain from the longer, costlier-to-compile epilogue.
pub const MAX_EPILOGUE_WORK: usize = crate::prims::TRANSCENDENTAL_WORK - 1;

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
    let gathers: HashMap<Var, PointGather> = j
        .eqns
        .iter()
        .filter_map(|e| Some((e.outs[0], point_gather(j, e)?)))
        .collect();
    let absorbed = absorbed(j, &gathers);
    fused.extend(absorbed.iter().copied());
    // An index component read only through absorbed pieces is read by the
    // loops of the gathers it indexes.
    let mut component_of: HashMap<Var, HashSet<Var>> = HashMap::new();
    for (g, p) in &gathers {
        for c in p.components.iter().filter_map(var) {
            component_of.entry(c).or_default().insert(*g);
        }
    }
    component_of.retain(|c, _| {
        uses.get(c) == Some(&1)
            && !outputs.contains(c)
            && j.eqns
                .iter()
                .find(|e| e.ins.contains(&Atom::Var(*c)))
                .is_some_and(|e| absorbed.contains(&e.outs[0]))
    });
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
        let computed_in_place = matches!(e.prim.lowering, Lowering::Elementwise | Lowering::Sample)
            || is_iota(e)
            || gathers.contains_key(&v);
        if !computed_in_place || aval.rank() == 0 || outputs.contains(&v) {
            continue;
        }
        if let Some(readers) = component_of.get(&v) {
            // Computed in each gather's loop: one, or cheap enough to repeat.
            if readers.len() == 1 || w <= RECOMPUTED_INDEX_WORK {
                fused.insert(v);
            }
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
    let mut epilogue = HashMap::new();
    for e in &j.eqns {
        let root = epilogue_root(j, e, &uses, &consumer, &outputs, &fused, &work);
        // One product per epilogue: a second one into the same result
        // (two cotangents added) stays a gemm of its own.
        if let Some(s) = root.filter(|s| !epilogue.contains_key(s)) {
            fused.insert(e.outs[0]);
            epilogue.insert(s, e.outs[0]);
        }
    }
    Fusion {
        fused,
        epilogue,
        gathers,
        absorbed,
    }
}

/// The stored result whose loop a matrix product `e` is fused into as its
/// epilogue: `e` is a `dot_general` emitting a plain `f32`/`f64` gemm of a
/// matrix or a convolution writing its result as one (features last, no
/// groups), read once, by elementwise work of its own shape that ends in a
/// stored (non-reduced) result of at most [`MAX_EPILOGUE_WORK`] per element
/// and draws no random samples.
fn epilogue_root(
    j: &Jaxpr,
    e: &crate::ir::Eqn,
    uses: &HashMap<Var, usize>,
    consumer: &HashMap<Var, usize>,
    outputs: &HashSet<Var>,
    fused: &HashSet<Var>,
    work: &HashMap<Var, usize>,
) -> Option<Var> {
    if e.outs.len() != 1 {
        return None;
    }
    let d = e.outs[0];
    let aval = j.aval(d);
    let avals: Vec<&crate::ir::Aval> = e.ins.iter().map(|a| j.atom_aval(a)).collect();
    let product = match e.prim.name {
        "dot_general" => {
            aval.rank() == 2 && crate::prims::plain_gemm(&e.params, avals[0], avals[1]).is_some()
        }
        "conv_general_dilated" => crate::prims::conv_writes_rows(&e.params, aval.rank()),
        _ => false,
    };
    let float = matches!(aval.dtype, jax_dtypes::DType::F32 | jax_dtypes::DType::F64);
    if !product
        || !float
        || avals.iter().any(|a| a.dtype != aval.dtype)
        || outputs.contains(&d)
        || uses.get(&d) != Some(&1)
    {
        return None;
    }
    let mut v = d;
    loop {
        let c = &j.eqns[*consumer.get(&v)?];
        if c.prim.lowering != Lowering::Elementwise || j.aval(c.outs[0]).shape != aval.shape {
            return None;
        }
        let o = c.outs[0];
        if !fused.contains(&o) {
            return (j.aval(o).dtype == aval.dtype
                && work.get(&o).copied().unwrap_or(usize::MAX) <= MAX_EPILOGUE_WORK
                && !samples(j, o, fused))
            .then_some(o);
        }
        v = o;
    }
}

/// `iota`: each element's position along an axis, computed in its
/// consumer's loop from the loop's index, as `eye`'s and a Jacobian
/// basis's `iota == iota` masks are, instead of two stored index arrays.
pub fn is_iota(e: &crate::ir::Eqn) -> bool {
    matches!(e.params, crate::prims::Params::Iota { .. })
}

/// Whether the fused expression of `v` draws a random sample or reads an
/// element's position (`iota`): both need the loop's index, which a
/// matmul epilogue does not give.
fn samples(j: &Jaxpr, v: Var, fused: &HashSet<Var>) -> bool {
    let Some(e) = j.eqns.iter().find(|e| e.outs.contains(&v)) else {
        return false;
    };
    e.prim.lowering == Lowering::Sample
        || is_iota(e)
        || e.ins.iter().any(|a| match a {
            Atom::Var(u) => fused.contains(u) && samples(j, *u, fused),
            Atom::Lit(_) => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(src: &str) -> (Jaxpr, Fusion) {
        let j = crate::core_tests::traced_source(src);
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
    fn point_gathers_are_computed_in_their_readers_loop() {
        let (j, p) = planned(
            "fn f(x: Array<f32, 8, 8>, i: Array<i32, 16>, k: Array<i32, 16>) -> Array<f32, 16> { x.at((i, k)).get() * 2.0 }",
        );
        let out = |name: &str| j.eqns.iter().find(|e| e.prim.name == name).unwrap().outs[0];
        let g = out("gather");
        assert!(p.gathers.contains_key(&g) && p.fused.contains(&g));
        assert_eq!(p.gathers[&g].components.len(), 2);
        // The index vector is never built; the negative-index wrap-around
        // (`select_n`) is computed in the gather's loop.
        assert!(p.absorbed.contains(&out("concatenate")));
        assert!(p.fused.contains(&out("select_n")));
        // A gather of rows (a window) stays a kernel.
        let (j, p) = planned(
            "fn f(x: Array<f32, 8, 8>, i: Array<i32, 16>) -> Array<f32, 16, 8> { x.at(i).get() * 2.0 }",
        );
        let g = j
            .eqns
            .iter()
            .find(|e| e.prim.name == "gather")
            .unwrap()
            .outs[0];
        assert!(p.gathers.is_empty() && !p.fused.contains(&g));
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

    /// [`planned`] after `simplify`, as the emitter plans (custom
    /// derivatives such as `relu`'s inlined).
    fn simplified(src: &str) -> (Jaxpr, Fusion) {
        let (mut j, _) = planned(src);
        crate::transform::simplify::simplify(&mut j);
        let p = plan(&j);
        (j, p)
    }

    #[test]
    fn channels_last_convolutions_take_an_epilogue() {
        let conv = |layout: &str, groups: usize| {
            format!(
                "lax::conv_general_dilated(x, w, &[1, 1], \"SAME\", None, None, Some({layout}), {groups})"
            )
        };
        let sig = "(x: Array<f32, 2, 8, 8, 4>, w: Array<f32, 3, 3, 4, 6>, b: Array<f32, 6>)";
        let nhwc = conv("(\"NHWC\", \"HWIO\", \"NHWC\")", 1);
        let (j, p) = simplified(&format!(
            "fn f{sig} -> Array<f32, 2, 8, 8, 6> {{ nn::relu({nhwc} + b) }}"
        ));
        let c = j
            .eqns
            .iter()
            .find(|e| e.prim.name == "conv_general_dilated")
            .unwrap()
            .outs[0];
        assert_eq!(p.epilogue.values().collect::<Vec<_>>(), [&c]);
        // Features not last, or grouped: the kernel writes another order.
        let nchw = conv("(\"NHWC\", \"HWIO\", \"NCHW\")", 1);
        let grouped = conv("(\"NHWC\", \"HWIO\", \"NHWC\")", 2);
        for (out, body) in [
            ("Array<f32, 2, 6, 8, 8>", format!("nn::relu({nchw})")),
            ("Array<f32, 2, 8, 8, 6>", format!("nn::relu({grouped})")),
        ] {
            let sig = sig.replace(
                "3, 3, 4, 6",
                if body.contains(", 2)") {
                    "3, 3, 2, 6"
                } else {
                    "3, 3, 4, 6"
                },
            );
            let (_, p) = simplified(&format!("fn f{sig} -> {out} {{ {body} }}"));
            assert!(p.epilogue.is_empty(), "{body}");
        }
    }

    #[test]
    fn products_read_by_cheap_elementwise_work_take_an_epilogue() {
        let sig =
            "(x: Array<f32, 8, 4>, w: Array<f32, 4, 16>, b: Array<f32, 16>, r: Array<f32, 8, 16>)";
        let (j, p) = simplified(&format!(
            "fn f{sig} -> Array<f32, 8, 16> {{ nn::relu(x.matmul(w) + b) + r }}"
        ));
        let dot = j
            .eqns
            .iter()
            .find(|e| e.prim.name == "dot_general")
            .unwrap()
            .outs[0];
        assert_eq!(p.epilogue.len(), 1);
        assert_eq!(p.epilogue.values().next(), Some(&dot));
        let root = *p.epilogue.keys().next().unwrap();
        assert!(
            j.outvars.contains(&Atom::Var(root)),
            "the residual add is the epilogue"
        );
        assert!(p.fused.contains(&dot));
        // Returned, reduced, integer, or read by a costly expression: a gemm.
        for body in [
            "-> (Array<f32, 8, 16>, Array<f32, 8, 16>) { let d = x.matmul(w); (jnp::tanh(&d + b), d) }",
            "-> Array<f32> { jnp::sum(jnp::tanh(x.matmul(w) + b)) }",
            "-> Array<f32, 8, 16> { jnp::exp(jnp::tanh(jnp::sin(x.matmul(w)))) }",
        ] {
            let (_, p) = simplified(&format!("fn f{sig} {body}"));
            assert!(p.epilogue.is_empty(), "{body}");
        }
        let (_, p) = simplified(
            "fn f(x: Array<i32, 8, 4>, w: Array<i32, 4, 16>) -> Array<i32, 8, 16> { x.matmul(w) * 2 }",
        );
        assert!(p.epilogue.is_empty(), "integer products keep their kernel");
    }
}
