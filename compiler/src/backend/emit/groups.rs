//! Multi-output loops: results of one shape stored from one pass over
//! their inputs (XLA's sibling fusion).

use proc_macro2::Ident;
use quote::{format_ident, quote};

use super::flat::flat_loop;
use super::nest::LoopNest;
use super::per_level::level_dispatch;
use super::{strides_are_row_major, Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Var};
use crate::prims::{row_major_strides, size_tokens, Lowering};

/// The most results one multi-output loop stores.
const MAX_GROUP: usize = 8;

/// How many equations past the one being emitted a multi-output loop looks
/// for results to store with it.
const GROUP_LOOKAHEAD: usize = 64;

impl Emitter<'_> {
    /// The stored elementwise results to compute in one loop with `v`
    /// (first): later results of `v`'s shape and dtype, each reading `v` or
    /// another of them, or an array one of them reads, whose every operand
    /// is already computed (or computed in this loop), all read whole and
    /// row-major (one flat loop), within [`crate::backend::fuse::MAX_LOOP_WORK`].
    /// XLA's multi-output (sibling) fusion: each input read once, each
    /// result stored from the same pass, a result the others read kept in a
    /// local instead of read back.
    pub(super) fn group(&self, v: Var, aval: &Aval) -> Vec<Var> {
        let mut group = vec![v];
        if self.replay.is_some()
            || self.bufs.hoisted.is_some()
            || aval.rank() == 0
            || !self.flat_ok(&Atom::Var(v), &aval.shape)
        {
            return group;
        }
        let mut reads = std::collections::HashSet::new();
        if !self.group_ready(&Atom::Var(v), v, &aval.shape, &group, &mut reads) {
            return group;
        }
        reads.insert(format!("{v:?}"));
        let mut work = self.fused_work(&Atom::Var(v), &mut Default::default()).0;
        let end = (self.cur + 1 + GROUP_LOOKAHEAD).min(self.j.eqns.len());
        for e in &self.j.eqns[self.cur + 1..end] {
            if group.len() == MAX_GROUP {
                break;
            }
            let w = e.outs[0];
            let wa = self.j.aval(w);
            if e.prim.lowering != Lowering::Elementwise
                || e.outs.len() != 1
                || wa.shape != aval.shape
                || wa.dtype != aval.dtype
                || self.fusion.fused.contains(&w)
                || self.fusion.epilogue.contains_key(&w)
                || self.unread.contains(&w)
                || self.done.contains(&w)
                || self.target.as_ref().is_some_and(|t| t.var == w)
            {
                continue;
            }
            let mut w_reads = std::collections::HashSet::new();
            if !self.group_ready(&Atom::Var(w), w, &aval.shape, &group, &mut w_reads) {
                continue;
            }
            let related = w_reads.iter().any(|r| reads.contains(r));
            let w_work = self.fused_work(&Atom::Var(w), &mut Default::default()).0;
            if !related || work + w_work > crate::backend::fuse::MAX_LOOP_WORK {
                continue;
            }
            work += w_work;
            reads.extend(w_reads);
            reads.insert(format!("{w:?}"));
            group.push(w);
        }
        group
    }

    /// Whether `a` can be computed now inside a flat loop over `shape` that
    /// also computes `group`; collects the buffers and group members it
    /// reads into `reads`.
    fn group_ready(
        &self,
        a: &Atom,
        root: Var,
        shape: &[Dim],
        group: &[Var],
        reads: &mut std::collections::HashSet<String>,
    ) -> bool {
        let Atom::Var(u) = a else { return true };
        if group.contains(u) && *u != root {
            // Computed earlier in the same loop: its local is read.
            reads.insert(format!("{u:?}"));
            return true;
        }
        let ua = self.j.aval(*u);
        match self.locs.get(u) {
            Some(Loc::Scalar(_)) | Some(Loc::Splat(_)) => return true,
            Some(Loc::View {
                buf,
                offset,
                strides,
            }) => {
                reads.insert(buf.to_string());
                return ua.rank() == 0
                    || (ua.shape == shape
                        && offset.to_string() == "0usize"
                        && strides_are_row_major(strides, shape));
            }
            Some(Loc::Fused) | None => {}
        }
        if ua.rank() == 0 || ua.shape != shape {
            return false;
        }
        // Not yet computed: the result being checked, or a fused value.
        if *u != root && !self.fusion.fused.contains(u) {
            return false;
        }
        let Some(e) = self.producer(*u) else {
            return false;
        };
        e.prim.lowering == Lowering::Elementwise
            && e.ins
                .iter()
                .all(|op| self.group_ready(op, root, shape, group, reads))
    }

    /// One flat loop computing and storing every result of `group` (see
    /// [`Emitter::group`]), in parallel chunks when large.
    pub(super) fn write_group(&mut self, group: &[Var], aval: &Aval) {
        let ty = rust_type(aval.dtype);
        let size = size_tokens(&aval.shape);
        let copies = self.simd_copies(&aval.shape, &Atom::Var(group[0]));
        let parallel = self.parallel && copies == 3;
        // A member only the loop reads (an `exp` used twice) stays a local.
        let mut inside = std::collections::HashSet::new();
        for &m in group {
            self.loop_values(m, group, &mut inside, &mut Vec::new());
        }
        let local = |m: Var| {
            !self.j.outvars.contains(&Atom::Var(m))
                && self
                    .readers(m)
                    .all(|e| e.outs.iter().all(|o| inside.contains(o)))
        };
        let mut stored: Vec<Var> = group.iter().copied().filter(|&m| !local(m)).collect();
        if stored.is_empty() {
            stored = group.to_vec();
        }
        // Dead buffers the loop writes over, as XLA reuses buffers: each
        // element is read before the same iteration writes it.
        let sources = self.group_sources(&stored, aval);
        for (k, source) in sources.iter().enumerate() {
            if let Some(dead) = source {
                self.bufs
                    .group_reuse
                    .insert(dead.to_string(), format_ident!("__o{}", k));
            }
        }
        let mut l = LoopNest::flat(&aval.shape);
        let id = l.identity();
        let mut writes = Vec::new();
        let mut outs = Vec::new();
        for &v in group {
            // Evaluated in order: a later member reads an earlier one's
            // local (the loop's memo), never its buffer.
            let value = self.eval(&mut l, &Atom::Var(v), &id);
            if stored.contains(&v) {
                let o = format_ident!("__o{}", outs.len());
                writes.push(quote!(#o[__i] = #value;));
                outs.push(o);
            }
        }
        let names: Vec<Ident> = stored.iter().map(|v| Self::name(*v)).collect();
        for (name, source) in names.iter().zip(&sources) {
            match source {
                Some(dead) => {
                    self.stmts
                        .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #dead;));
                    self.bufs.owned.remove(&dead.to_string());
                }
                None => self.alloc(name, &ty, &size),
            }
        }
        self.bufs.group_reuse.clear();
        let (pre, body) = (&l.pre, &l.body);
        let mut slices = l.flat_slices();
        slices.extend(outs.iter().map(|o| (o.clone(), true)));
        let mut each = flat_loop(&quote!(#(#body)* #(#writes)*), &slices, &aval.shape, l.cost);
        if self.outlines(&aval.shape, &Atom::Var(group[0])) {
            each = super::sincos::outlined_calls(each);
        }
        let cost = l.cost.max(1);
        let closure = quote! {
            |(__start, __outs): (usize, &mut [&mut [#ty]])| {
                let [#(#outs),*] = __outs else { ::core::unreachable!() };
                let __n = __o0.len();
                let __first = __start;
                #(let #outs = &mut #outs[..__n];)*
                #(#pre)*
                #each
            }
        };
        let count = stored.len();
        let call = if parallel {
            quote!(::jax::__per_level!(for_each_chunks3(&mut __outs, ::jax::__rt::par::grain(#cost), #closure));)
        } else {
            let c = level_dispatch(copies, &closure, quote!((0usize, &mut __outs[..])));
            quote!(#c;)
        };
        self.stmts.push(quote! {
            {
                let mut __outs: [&mut [#ty]; #count] = [#(&mut #names[..]),*];
                #call
            }
        });
        for (v, name) in stored.iter().zip(names) {
            self.finish_buffer(*v, aval, name);
        }
        self.done.extend(group.iter().copied());
    }
}

impl Emitter<'_> {
    /// For each member of `group`, a dead buffer its output may take over:
    /// a whole row-major buffer of the group's shape and dtype this body
    /// owns, that no other live value views, holding a value that only this
    /// loop reads (every reader is computed in it) and that is no output.
    fn group_sources(&self, group: &[Var], aval: &Aval) -> Vec<Option<Ident>> {
        if self.replay.is_some() || self.bufs.hoisted.is_some() {
            return vec![None; group.len()];
        }
        let mut inside = std::collections::HashSet::new();
        let mut leaves = Vec::new();
        for &m in group {
            self.loop_values(m, group, &mut inside, &mut leaves);
        }
        let mut taken: std::collections::HashSet<String> = Default::default();
        let mut sources = Vec::new();
        for &m in group {
            // Its own operands first (a parameter update over the
            // parameter), then any other the loop reads.
            let mut own = Vec::new();
            self.loop_values(m, group, &mut Default::default(), &mut own);
            own.extend(leaves.iter().copied());
            let found = own.iter().find_map(|u: &Var| {
                let Some(Loc::View { buf, .. }) = self.locs.get(u) else {
                    return None;
                };
                let ua = self.j.aval(*u);
                let read_here = self
                    .readers(*u)
                    .all(|e| e.outs.iter().all(|o| inside.contains(o)));
                let key = buf.to_string();
                let shared = self.viewed_by_other(*u, &key);
                (ua.dtype == aval.dtype
                    && ua.shape == aval.shape
                    && read_here
                    && !shared
                    && !taken.contains(&key)
                    && !self.j.outvars.contains(&Atom::Var(*u))
                    && self.owned_whole(*u, &aval.shape))
                .then(|| buf.clone())
            });
            if let Some(b) = &found {
                taken.insert(b.to_string());
            }
            sources.push(found);
        }
        sources
    }

    /// Whether `u` lives in a whole buffer, exactly row-major, that this
    /// body owns and has not returned.
    fn owned_whole(&self, u: Var, shape: &[Dim]) -> bool {
        let Some(Loc::View {
            buf,
            offset,
            strides,
        }) = self.locs.get(&u)
        else {
            return false;
        };
        let key = buf.to_string();
        offset.to_string() == "0usize"
            && strides.len() == shape.len()
            && strides
                .iter()
                .zip(row_major_strides(shape))
                .all(|(a, b)| a.to_string() == b.to_string())
            && self.bufs.owned.contains(&key)
            && !self.bufs.returned.contains(&key)
    }

    /// The values a multi-output loop computes for `v` (itself and the fused
    /// values of its expression) into `inside`, and the stored arrays it
    /// reads into `leaves`.
    fn loop_values(
        &self,
        v: Var,
        group: &[Var],
        inside: &mut std::collections::HashSet<Var>,
        leaves: &mut Vec<Var>,
    ) {
        if !inside.insert(v) {
            return;
        }
        let Some(e) = self.producer(v) else {
            return;
        };
        for op in &e.ins {
            let Atom::Var(u) = op else { continue };
            if group.contains(u) {
                continue;
            }
            match self.locs.get(u) {
                Some(Loc::View { .. }) => {
                    if !leaves.contains(u) {
                        leaves.push(*u);
                    }
                }
                Some(Loc::Scalar(_)) | Some(Loc::Splat(_)) => {}
                Some(Loc::Fused) | None => self.loop_values(*u, group, inside, leaves),
            }
        }
    }
}
