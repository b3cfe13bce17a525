//! Buffers: which the body owns (so it may write over them once dead, or
//! return them without a copy), storing a value, copies into row-major
//! order, declarations hoisted out of a row program's loop, and a row
//! program's output row written in place.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{strides_are_row_major, Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Var};
use crate::prims::{row_major_strides, size_tokens, Lowering};

/// What an [`Emitter`] knows of its buffers.
#[derive(Default)]
pub(super) struct Buffers {
    /// Buffers this body allocated (`Vec`s it may return); the others are
    /// borrowed from the parameters.
    pub(super) owned: Owned,
    /// Buffers already returned: a second output of the same buffer is a copy.
    pub(super) returned: HashSet<String>,
    /// Buffer declarations moved before the row loop, in a row program.
    pub(super) hoisted: Option<Vec<TokenStream>>,
    /// While a loop writes buffer `.1` in place of the dead buffer `.0` it
    /// took over: reads of `.0` read the element about to be overwritten.
    pub(super) reuse: Option<(String, Ident)>,
    /// Buffers moved in as inputs (a scan's carries): those neither written
    /// over nor returned go back to the pool at the end of the body.
    pub(super) owned_inputs: Vec<Ident>,
    /// Buffers given back to the pool once dead.
    pub(super) recycled: HashSet<String>,
    /// Each owned buffer's element type and length, as tokens
    /// (`kind`), when this body made it or took it in.
    pub(super) kinds: std::collections::HashMap<String, String>,
    /// Buffers dead before the equation being emitted: one it allocates of
    /// the same kind takes one over (no trip through the pool); the rest go
    /// back to the pool after it, except small ones ([`SMALL_SPARE_BYTES`]),
    /// which wait for a later equation of the body: in a loop step that
    /// computes scalars (an index) between a dead carry and the new one,
    /// the new one still takes the old one's memory.
    pub(super) spare: Vec<(String, String)>,
    /// How many of `spare` are not small: without them, keeping the small
    /// ones is nothing to do.
    pub(super) spare_large: usize,
    /// While a multi-output loop writes over dead buffers: each one's
    /// output slot in the loop (`__oK`), read at the element before it is
    /// overwritten.
    pub(super) group_reuse: std::collections::HashMap<String, Ident>,
}

/// The buffers a body owns, and those it came to own since
/// [`Emitter::recycle_dead`] last looked: a buffer dies when its last live
/// view does, or when it is owned with none, so those two are all it has
/// to look at, not every owned buffer at every equation.
#[derive(Default)]
pub(super) struct Owned {
    set: HashSet<String>,
    fresh: Vec<String>,
}

impl Owned {
    pub(super) fn insert(&mut self, b: String) {
        if self.set.insert(b.clone()) {
            self.fresh.push(b);
        }
    }

    pub(super) fn remove(&mut self, b: &str) -> bool {
        self.set.remove(b)
    }

    pub(super) fn contains(&self, b: &str) -> bool {
        self.set.contains(b)
    }
}

/// Which buffers values still to be read live in: each variable placed in
/// a buffer (`Loc::View`) that an equation from `cur` on reads, counted
/// against its buffer, and dropped when `cur` passes its last read (or it
/// is placed elsewhere). Kept up to date as equations are emitted, so the
/// questions "is this buffer dead" and "does another live value view it"
/// cost the same whatever the number of live values (a reverse pass keeps
/// every residual of the forward one live).
#[derive(Default)]
pub(super) struct Live {
    /// Each live variable's buffer.
    of: HashMap<Var, String>,
    /// How many live variables view each buffer (absent: none).
    views: HashMap<String, usize>,
    /// The live variables by the equation reading them last, earliest on top.
    expiry: BinaryHeap<Reverse<(usize, Var)>>,
    /// Buffers whose last live view ended since `recycle_dead` last looked.
    freed: Vec<String>,
}

impl Live {
    fn forget(&mut self, w: Var) {
        if let Some(b) = self.of.remove(&w) {
            let n = self
                .views
                .get_mut(&b)
                .expect("a live variable's buffer is counted");
            *n -= 1;
            if *n == 0 {
                self.views.remove(&b);
                self.freed.push(b);
            }
        }
    }

    fn count(&self, b: &str) -> usize {
        self.views.get(b).copied().unwrap_or(0)
    }
}

/// A row program's output, written straight into the output row `row` (a
/// `&mut [T]` in scope) instead of a scratch buffer.
pub(super) struct RowTarget {
    pub(super) var: Var,
    pub(super) row: Ident,
    /// Whether it was (the output may be computed elsewhere, a view).
    pub(super) written: bool,
    /// Whether a temporary already lives in the row (see
    /// [`Emitter::row_host`]): the output's loop then writes over it.
    pub(super) hosts: bool,
}

impl Emitter<'_> {
    /// Stores `v` (its defining equation is elementwise) in a buffer.
    pub(super) fn materialize(&mut self, v: Var, aval: &Aval) {
        if let Some(&d) = self.fusion.epilogue.get(&v) {
            self.gemm_epilogue(v, d, aval);
            return;
        }
        self.materialize_plain(v, aval);
    }

    /// [`Emitter::materialize`] by a loop of its own (or with later results).
    pub(super) fn materialize_plain(&mut self, v: Var, aval: &Aval) {
        let target = self.target.as_ref().filter(|t| t.var == v);
        if let Some((name, hosts)) = target.map(|t| (t.row.clone(), t.hosts)) {
            // The row program's output row: written where it belongs (over
            // the temporary it hosts, each element read before it is written).
            if hosts {
                self.bufs.reuse = Some((name.to_string(), name.clone()));
            }
            self.write_loops(&name, &Atom::Var(v), aval);
            self.bufs.reuse = None;
            if let Some(t) = &mut self.target {
                t.written = true;
            }
            self.locs.insert(
                v,
                Loc::View {
                    buf: name,
                    offset: quote!(0usize),
                    strides: row_major_strides(&aval.shape),
                },
            );
            return;
        }
        let group = self.group(v, aval);
        if group.len() > 1 {
            // Stored with later results of its shape in one loop.
            self.write_group(&group, aval);
            return;
        }
        if let Some(row) = self.row_host(v, aval) {
            // Kept in the output row, which the output's loop then writes
            // over: one buffer fewer, and the output row is brought into
            // cache while the row is computed rather than in a last pass.
            self.write_loops(&row, &Atom::Var(v), aval);
            if let Some(t) = &mut self.target {
                t.hosts = true;
            }
            self.bind_buffer(v, aval, row);
            return;
        }
        let name = Self::name(v);
        if let Some(dead) = self.reusable_operand(v, aval) {
            // Written over a dead operand's buffer, as XLA reuses buffers:
            // each element is read before it is overwritten.
            let ty = rust_type(aval.dtype);
            self.stmts
                .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #dead;));
            self.bufs.reuse = Some((dead.to_string(), name.clone()));
            self.write_loops(&name, &Atom::Var(v), aval);
            self.bufs.reuse = None;
            self.bufs.owned.remove(&dead.to_string());
            self.finish_buffer(v, aval, name);
            return;
        }
        self.write_buffer(&name, &Atom::Var(v), aval);
        self.finish_buffer(v, aval, name);
    }

    /// A buffer `v` can be written over: an operand, in the fused
    /// elementwise expression of `v`, read at `v`'s own index (same shape
    /// and dtype all the way up), held in a whole row-major buffer this body
    /// owns that no other view shares, and read by nothing else.
    pub(super) fn reusable_operand(&self, v: Var, aval: &Aval) -> Option<Ident> {
        if self.replay.is_some() || self.bufs.hoisted.is_some() {
            return None;
        }
        let dead = self.reusable_in(v, aval)?;
        // A point gather in the loop reads its operand at other positions
        // than the one being written.
        let mut gathered = Vec::new();
        self.gathered(v, &mut Default::default(), &mut gathered);
        (!gathered.contains(&dead.to_string())).then_some(dead)
    }

    /// The buffers of the operands of the point gathers (`fuse::PointGather`)
    /// computed in the loop of `v`.
    fn gathered(&self, v: Var, seen: &mut HashSet<Var>, out: &mut Vec<String>) {
        if !seen.insert(v) {
            return;
        }
        let Some(e) = self.producer(v) else { return };
        if self.fusion.gathers.contains_key(&v) {
            if let Atom::Var(x) = &e.ins[0] {
                if let Some(Loc::View { buf, .. }) = self.locs.get(x) {
                    out.push(buf.to_string());
                }
            }
        }
        for a in self.loop_operands(v, e) {
            if let Atom::Var(u) = a {
                if matches!(self.locs.get(&u), Some(Loc::Fused) | None) {
                    self.gathered(u, seen, out);
                }
            }
        }
    }

    fn reusable_in(&self, v: Var, aval: &Aval) -> Option<Ident> {
        let e = self.producer(v)?;
        if e.prim.lowering != Lowering::Elementwise {
            return None;
        }
        e.ins.iter().find_map(|a| {
            let Atom::Var(u) = a else { return None };
            let ua = self.j.aval(*u);
            if ua.shape != aval.shape {
                return None;
            }
            if let Some(Loc::View { .. }) = self.locs.get(u) {
                return (ua.dtype == aval.dtype)
                    .then(|| self.dead_buffer(*u, &aval.shape))
                    .flatten();
            }
            // A fused operand that only this loop computes (a fused value
            // read twice is recomputed in each reader's loop, which would
            // read the buffer again): look inside it.
            let fused = matches!(self.locs.get(u), Some(Loc::Fused) | None);
            (fused && self.read_once(*u))
                .then(|| self.reusable_in(*u, aval))
                .flatten()
        })
    }

    /// The output row of a row program, when the temporary `v` can live in
    /// it until the output is written: same shape and type, not an output
    /// itself, read by the output's own (elementwise) loop at the element
    /// that loop writes, and otherwise only by reductions emitted before it.
    pub(super) fn row_host(&self, v: Var, aval: &Aval) -> Option<Ident> {
        let t = self.target.as_ref()?;
        if self.replay.is_some()
            || self.bufs.hoisted.is_none()
            || t.written
            || t.hosts
            || t.var == v
        {
            return None;
        }
        let ta = self.j.aval(t.var);
        if ta.shape != aval.shape
            || ta.dtype != aval.dtype
            || self.j.outvars.contains(&Atom::Var(v))
        {
            return None;
        }
        let at = self.producer_index(t.var)?;
        let mut chain = Vec::new();
        if !self.reads_at_own_index(t.var, v, &aval.shape, &mut chain) {
            return None;
        }
        let others_fold_first = self.j.eqns.iter().enumerate().all(|(i, e)| {
            !e.ins.contains(&Atom::Var(v))
                || chain.contains(&i)
                || (i < at && e.prim.lowering == Lowering::Reduce)
        });
        others_fold_first.then(|| t.row.clone())
    }

    /// Whether `w`'s elementwise expression reads `v` at `w`'s own index:
    /// directly, or through operands of the same shape that only it reads
    /// and that are not stored yet. `chain` gets the equations on the way.
    fn reads_at_own_index(&self, w: Var, v: Var, shape: &[Dim], chain: &mut Vec<usize>) -> bool {
        let Some(i) = self.producer_index(w) else {
            return false;
        };
        let e = &self.j.eqns[i];
        if e.prim.lowering != Lowering::Elementwise || self.j.aval(w).shape != shape {
            return false;
        }
        chain.push(i);
        e.ins.iter().any(|a| match a {
            Atom::Var(u) if *u == v => true,
            Atom::Var(u) => {
                matches!(self.locs.get(u), Some(Loc::Fused) | None)
                    && self.read_once(*u)
                    && self.reads_at_own_index(*u, v, shape, chain)
            }
            Atom::Lit(_) => false,
        })
    }

    /// Whether one operand slot of one equation reads `v`, and it is not
    /// an output: after that read, `v` is dead.
    fn read_once(&self, v: Var) -> bool {
        self.uses.get(&v) == Some(&1) && !self.j.outvars.contains(&Atom::Var(v))
    }

    /// `v`'s buffer, when the equation being emitted reads it last and the
    /// buffer may then be written over: a whole row-major buffer this body
    /// owns and has not returned, that no value read now or later views.
    fn dead_buffer(&self, v: Var, shape: &[Dim]) -> Option<Ident> {
        let Some(Loc::View {
            buf,
            offset,
            strides,
        }) = self.locs.get(&v)
        else {
            return None;
        };
        let key = buf.to_string();
        let shared = self.viewed_by_other(v, &key);
        // Strides exactly row-major, size-one axes included: the loop writing
        // over the buffer reads it at the very index it writes.
        let exact = strides.len() == shape.len()
            && strides
                .iter()
                .zip(row_major_strides(shape))
                .all(|(a, b)| a.to_string() == b.to_string());
        (offset.to_string() == "0usize"
            && exact
            && self.bufs.owned.contains(&key)
            && !self.bufs.returned.contains(&key)
            && !shared
            && self.last_read(v) == self.cur)
            .then(|| buf.clone())
    }

    /// The equation reading `v` last (see `Emitter::last`); a value never
    /// read is dead where it is made.
    pub(super) fn last_read(&self, v: Var) -> usize {
        self.last.get(&v).copied().unwrap_or(0)
    }

    /// Brings [`Live`] up to `cur`: takes in the variables placed since
    /// the last call (where they live now), then drops those `cur` has
    /// passed the last read of.
    fn refresh_live(&mut self) {
        for w in std::mem::take(&mut self.locs.placed) {
            self.live.forget(w);
            if let Some(Loc::View { buf, .. }) = self.locs.get(&w) {
                let last = self.last_read(w);
                if last >= self.cur {
                    let b = buf.to_string();
                    *self.live.views.entry(b.clone()).or_insert(0) += 1;
                    self.live.of.insert(w, b);
                    self.live.expiry.push(Reverse((last, w)));
                }
            }
        }
        while let Some(&Reverse((last, w))) = self.live.expiry.peek() {
            if last >= self.cur {
                break;
            }
            self.live.expiry.pop();
            // A variable placed twice has two entries: the first drops it.
            self.live.forget(w);
        }
    }

    /// Whether a value other than `x` that an equation from `cur` on reads
    /// lives in buffer `key`. Exact between refreshes too: the variables
    /// placed since the last one are looked at where they live now.
    pub(super) fn viewed_by_other(&self, x: Var, key: &str) -> bool {
        let placed: HashSet<Var> = self.locs.placed.iter().copied().collect();
        let counted = |w: &Var| self.live.of.get(w).is_some_and(|b| b == key);
        let mut n = self.live.count(key);
        if counted(&x) {
            n -= 1;
        }
        for w in placed.iter().filter(|w| **w != x) {
            if counted(w) {
                n -= 1;
            }
            if let Some(Loc::View { buf, .. }) = self.locs.get(w) {
                if self.last_read(*w) >= self.cur && *buf == key {
                    n += 1;
                }
            }
        }
        n > 0
    }

    /// Before the equation being emitted: gives each owned buffer that no
    /// value still to be read lives in back to the pool (or this thread's
    /// recycled buffers), so later equations, and the next call, take it
    /// instead of new memory; what is live at once is what the program needs.
    /// Looks only at buffers whose last live view just ended and buffers
    /// owned since the last call (see [`Owned`], [`Live`]).
    pub(super) fn recycle_dead(&mut self) {
        if self.replay.is_some() || self.bufs.hoisted.is_some() {
            return;
        }
        self.refresh_live();
        let mut dead: Vec<String> = std::mem::take(&mut self.live.freed);
        dead.append(&mut self.bufs.owned.fresh);
        dead.sort();
        dead.dedup();
        dead.retain(|b| {
            self.bufs.owned.contains(b)
                && self.live.count(b) == 0
                && !self.bufs.returned.contains(b)
        });
        for b in dead {
            self.bufs.owned.remove(&b);
            match self.bufs.kinds.get(&b) {
                Some(kind) => {
                    let kind = kind.clone();
                    if !small_kind(&kind) {
                        self.bufs.spare_large += 1;
                    }
                    self.bufs.spare.push((b, kind));
                }
                None => self.recycle_buffer(b),
            }
        }
    }

    /// Gives the spare buffers no allocation took back to the pool: all of
    /// them, or with `keep_small` those above [`SMALL_SPARE_BYTES`].
    pub(super) fn flush_spare(&mut self, keep_small: bool) {
        if keep_small && self.bufs.spare_large == 0 {
            return;
        }
        self.bufs.spare_large = 0;
        for (b, kind) in std::mem::take(&mut self.bufs.spare) {
            if keep_small && small_kind(&kind) {
                self.bufs.spare.push((b, kind));
            } else {
                self.recycle_buffer(b);
            }
        }
    }

    fn recycle_buffer(&mut self, b: String) {
        self.bufs.recycled.insert(b.clone());
        let name = format_ident!("{}", b);
        self.stmts.push(quote!(::jax::__rt::recycle(#name);));
    }

    /// How a buffer of `ty` elements, `size` of them, is known in
    /// [`Buffers::kinds`] (`"f32; 64usize"`: see [`small_kind`]).
    pub(super) fn kind(ty: &TokenStream, size: &TokenStream) -> String {
        format!("{ty}; {size}")
    }

    /// Writes the output variable `v` of a row program straight into the
    /// output row `target` (a `&mut [T]` in scope) instead of a scratch buffer.
    pub fn write_output_into(&mut self, v: Var, target: Ident) {
        self.target = Some(RowTarget {
            var: v,
            row: target,
            written: false,
            hosts: false,
        });
    }

    /// Whether the output was written into its target directly.
    pub fn wrote_target(&self) -> bool {
        self.target.as_ref().is_some_and(|t| t.written)
    }

    /// Emits `let mut name = buffer; loops { name[..] = value of a }`.
    fn write_buffer(&mut self, name: &Ident, a: &Atom, aval: &Aval) {
        let ty = rust_type(aval.dtype);
        let size = size_tokens(&aval.shape);
        self.alloc(name, &ty, &size);
        self.write_loops(name, a, aval);
        self.bufs.owned.insert(name.to_string());
    }

    /// Declares a fresh buffer: here, or once before the row loop when
    /// emitting a row program (every row overwrites it).
    pub(super) fn alloc(&mut self, name: &Ident, ty: &TokenStream, size: &TokenStream) {
        let kind = Self::kind(ty, size);
        if self.bufs.hoisted.is_none() {
            // A dead buffer of the same kind, if the equation has one: its
            // stale contents are as good as the pool's.
            if let Some(i) = self.bufs.spare.iter().position(|(_, k)| *k == kind) {
                let (dead, _) = self.bufs.spare.swap_remove(i);
                if !small_kind(&kind) {
                    self.bufs.spare_large -= 1;
                }
                let dead = format_ident!("{}", dead);
                self.stmts
                    .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #dead;));
                self.bufs.kinds.insert(name.to_string(), kind);
                return;
            }
            self.bufs.kinds.insert(name.to_string(), kind);
        }
        let decl = quote!(let mut #name: ::std::vec::Vec<#ty> = ::jax::__rt::buffer::<#ty>(#size););
        match &mut self.bufs.hoisted {
            Some(h) => h.push(decl),
            None => self.stmts.push(decl),
        }
    }

    /// Emit buffers once, outside the loop the statements will run in, and
    /// run every loop sequentially (the caller parallelizes that outer loop).
    pub fn hoist_buffers(&mut self) {
        self.bufs.hoisted = Some(Vec::new());
        self.parallel = false;
    }

    /// The buffer declarations to put before the row loop.
    pub fn take_hoisted(&mut self) -> Vec<TokenStream> {
        self.bufs.hoisted.take().unwrap_or_default()
    }

    /// Copies any array value into a fresh row-major buffer.
    pub(super) fn copy_view(&mut self, x: &Atom, aval: &Aval) -> Ident {
        let name = format_ident!("__copy{}", self.stmts.len());
        self.write_buffer(&name, x, aval);
        name
    }

    /// Declares the buffer `name` holding `x`'s elements, to be updated in
    /// place: `x`'s own buffer when this is its last read and this body owns
    /// it, else a copy.
    pub(super) fn start_as(&mut self, name: &Ident, ty: &TokenStream, x: &Atom) {
        let x_aval = self.aval(x).clone();
        let in_place = match x {
            Atom::Var(v) => self.dead_buffer(*v, &x_aval.shape),
            Atom::Lit(_) => None,
        };
        match in_place {
            Some(buf) => {
                // Moved into the result: no longer this body's to recycle.
                self.bufs.owned.remove(&buf.to_string());
                self.stmts
                    .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #buf;))
            }
            None => {
                let copy = self.copy_view(x, &x_aval);
                self.bufs.owned.remove(&copy.to_string());
                self.stmts
                    .push(quote!(let mut #name: ::std::vec::Vec<#ty> = #copy;));
            }
        }
    }

    /// `out` lives in the buffer `name`, which this body owns.
    pub(super) fn finish_buffer(&mut self, out: Var, aval: &Aval, name: Ident) {
        self.bufs.owned.insert(name.to_string());
        self.bind_buffer(out, aval, name);
    }

    /// `out` is read from the whole row-major buffer `name`.
    pub(super) fn bind_buffer(&mut self, out: Var, aval: &Aval, name: Ident) {
        self.locs.insert(
            out,
            Loc::View {
                buf: name,
                offset: quote!(0usize),
                strides: row_major_strides(&aval.shape),
            },
        );
    }

    /// A contiguous row-major buffer holding `x` (copying views that are not).
    pub(super) fn buffer_of(&mut self, x: &Atom, aval: &Aval) -> Ident {
        if let Atom::Var(v) = x {
            if let Some(Loc::View {
                buf,
                offset,
                strides,
            }) = self.locs.get(v)
            {
                if offset.to_string() == "0usize" && strides_are_row_major(strides, &aval.shape) {
                    return buf.clone();
                }
            }
        }
        self.copy_view(x, aval)
    }
}

/// Spare buffers up to this size stay spare until the end of the body: the
/// pool does not keep them (`__rt::pool::MIN_BYTES`), so holding one a few
/// equations longer costs nothing a later allocation does not win back.
const SMALL_SPARE_BYTES: usize = 4096;

/// Whether a buffer kind (`"f32; 64usize"`, see [`Emitter::kind`]) has a
/// static size of at most [`SMALL_SPARE_BYTES`].
fn small_kind(kind: &str) -> bool {
    let Some((ty, size)) = kind.split_once("; ") else {
        return false;
    };
    let Ok(n) = size.trim_end_matches("usize").trim().parse::<usize>() else {
        return false;
    };
    // The widest element (complex128) where the type is not a plain one.
    let width = match ty {
        "bool" | "u8" | "i8" => 1,
        "f32" | "i32" | "u32" => 4,
        "f64" | "i64" | "u64" => 8,
        _ => 16,
    };
    n.saturating_mul(width) <= SMALL_SPARE_BYTES
}
