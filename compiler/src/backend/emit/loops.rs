//! Loop nests: a value computed element by element, fused expressions
//! evaluated at a loop position, row slices read once per row, flat loops,
//! parallel chunks, and copies of a loop per SIMD level where they pay.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{is_one, scalar_tokens, strides_are_row_major, Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Eqn, Var};
use crate::prims::{dim_tokens, row_major_strides, size_tokens, Lowering, Params};

impl Emitter<'_> {
    /// The loops writing every element of `a` into the buffer `name`.
    pub(super) fn write_loops(&mut self, name: &Ident, a: &Atom, aval: &Aval) {
        let flat = self.flat_ok(a, &aval.shape);
        let mut l = if flat {
            LoopNest::flat(&aval.shape)
        } else {
            LoopNest::new(&aval.shape)
        };
        let copies = self.simd_copies(&aval.shape, a);
        // Flat loops split into chunks of elements; nested ones into chunks
        // of rows. A loop too small for one SIMD copy per level is too small
        // for threads too.
        l.parallel = self.parallel && copies == 3 && (flat || aval.rank() >= 2);
        l.out = Some(name.clone());
        let id = l.identity();
        let value = self.eval(&mut l, a, &id);
        let out = l.row_of(
            name,
            rust_type(aval.dtype),
            &quote!(0usize),
            &row_major_strides(&aval.shape),
            true,
        );
        let body = std::mem::take(&mut l.body);
        let mut loops = l.wrap(quote! { #(#body)* #out = #value; });
        if self.outlines(&aval.shape, a) {
            loops = super::sincos::outlined_calls(loops);
        }
        if l.parallel && !flat {
            let row = size_tokens(&aval.shape[1..]);
            let cost = l.cost.max(1);
            let body = quote!(|(__row0, __out)| { #loops });
            loops = quote! {
                ::jax::__rt::par::for_each_rows3(
                    &mut #name,
                    #row,
                    ::jax::__rt::par::rows_per_chunk(#row * #cost),
                    #body, #body, #body,
                );
            };
        } else if !l.parallel && self.bufs.hoisted.is_none() && copies > 1 {
            // Compiled once per SIMD level too (a row program's caller
            // already dispatches).
            let ty = rust_type(aval.dtype);
            let body = quote!(|#name: &mut ::std::vec::Vec<#ty>| { #loops });
            let call = level_dispatch(copies, &body, quote!(&mut #name));
            loops = quote!(#call;);
        }
        self.stmts.push(loops);
    }

    /// How many copies of a loop computing `a` over `shape` to emit, each
    /// compiled for one SIMD level (see `par::dispatch3`). Copies cost
    /// compile time, so they are made only where they pay: none for the
    /// `jax_debug_nans` replay (a cold path) and inside a loop compiled whole
    /// per level (`dispatched`), one for a static loop of little
    /// arithmetic (a few microseconds at the baseline level), two (baseline,
    /// AVX2+FMA) for a short loop with transcendentals, whose fused
    /// multiply-adds are library calls at the baseline level, and three
    /// otherwise, and for every loop of a loop body (run once per step, so
    /// its latency counts: an RNN's 64 `tanh`s, its gradient's updates).
    /// Fewer than three means too small for threads as well.
    pub(super) fn simd_copies(&self, shape: &[Dim], a: &Atom) -> usize {
        if self.replay.is_some() || self.dispatched {
            return 1;
        }
        let Some(elements) = static_size(shape) else {
            return 3;
        };
        if self.repeated {
            return 3;
        }
        let (work, transcendental) = self.fused_work(a, &mut Default::default());
        match (transcendental, elements) {
            (false, n) if n.saturating_mul(work) < SMALL_LOOP_WORK => 1,
            (true, n) if n <= TINY_LOOP => 1,
            (true, n) if n < SMALL_TRANSCENDENTAL_LOOP => 2,
            _ => 3,
        }
    }

    /// Whether the loop computing `a` over `shape` is one copy calling the
    /// runtime's compiled-once transcendentals ([`TINY_LOOP`]).
    fn outlines(&self, shape: &[Dim], a: &Atom) -> bool {
        !(self.replay.is_some() || self.dispatched || self.repeated)
            && static_size(shape).is_some_and(|n| n <= TINY_LOOP)
            && self.fused_work(a, &mut Default::default()).1
    }

    /// The work per element of the fused expression of `a` (see `PrimDef::work`)
    /// and whether it holds a transcendental.
    fn fused_work(&self, a: &Atom, seen: &mut std::collections::HashSet<Var>) -> (usize, bool) {
        let Atom::Var(v) = a else { return (0, false) };
        if !matches!(self.locs.get(v), Some(Loc::Fused) | None) || !seen.insert(*v) {
            return (0, false);
        }
        let Some(e) = self.producer(*v) else {
            return (0, false);
        };
        let cost = match e.prim.lowering {
            Lowering::Sample => crate::prims::TRANSCENDENTAL_WORK,
            _ => e.prim.work,
        };
        e.ins.iter().fold(
            (cost, cost >= crate::prims::TRANSCENDENTAL_WORK),
            |(w, t), op| {
                let (w2, t2) = self.fused_work(op, seen);
                (w + w2, t || t2)
            },
        )
    }

    /// Whether computing `a` over `shape` reads only scalars and whole
    /// row-major arrays of exactly that shape, so one flat loop does it.
    pub(super) fn flat_ok(&self, a: &Atom, shape: &[Dim]) -> bool {
        let v = match a {
            Atom::Lit(_) => return true,
            Atom::Var(v) => *v,
        };
        let aval = self.j.aval(v);
        if aval.rank() == 0 {
            return true;
        }
        if aval.shape != shape {
            return false;
        }
        match self.locs.get(&v) {
            Some(Loc::Scalar(_)) | Some(Loc::Splat(_)) => true,
            Some(Loc::View {
                offset, strides, ..
            }) => offset.to_string() == "0usize" && strides_are_row_major(strides, shape),
            Some(Loc::Fused) | None => {
                let e = self.producer(v).unwrap();
                // A sample reads only its key; its index is the loop's. An
                // iota's position is a loop variable of nested loops, where
                // a flat loop would divide its index on every element.
                if crate::backend::fuse::is_iota(e) {
                    return false;
                }
                e.prim.lowering == Lowering::Sample
                    || e.ins.iter().all(|op| self.flat_ok(op, shape))
            }
        }
    }

    /// The value of `a` at the loop position `index` (for each axis of `a`,
    /// the loop variable that runs along it, or `None` for a broadcast axis).
    pub(super) fn eval(
        &mut self,
        l: &mut LoopNest,
        a: &Atom,
        index: &[Option<usize>],
    ) -> TokenStream {
        let v = match a {
            Atom::Lit(lit) => return scalar_tokens(lit),
            Atom::Var(v) => *v,
        };
        let key = (v, index.to_vec());
        if let Some(n) = l.memo.get(&key) {
            return quote!(#n);
        }
        let loc = self.locs.get(&v).cloned();
        let value = match loc {
            Some(Loc::Scalar(n)) => return quote!(#n),
            Some(Loc::Splat(t)) => return t,
            Some(Loc::View {
                buf,
                offset,
                strides,
            }) => {
                // Map each of the view's axes to its loop variable's axis.
                let mut loop_strides = vec![quote!(0usize); l.vars.len()];
                for (i, s) in index.iter().zip(&strides) {
                    if let Some(i) = i {
                        loop_strides[*i] = s.clone();
                    }
                }
                let ty = rust_type(self.j.aval(v).dtype);
                if let Some(slot) = self.bufs.group_reuse.get(&buf.to_string()) {
                    // A multi-output loop's output over this dead buffer:
                    // its element, read before the loop writes it.
                    return quote!(#slot[__i]);
                }
                if let Some((dead, into)) = &self.bufs.reuse {
                    if buf == dead {
                        // The buffer now being written: the same row, the
                        // same element, read first.
                        return l.row_of(into, ty, &offset, &loop_strides, true);
                    }
                }
                return l.row_of(&buf, ty, &offset, &loop_strides, false);
            }
            Some(Loc::Fused) | None => {
                let e = self
                    .producer(v)
                    .expect("every variable is defined by an equation");
                let my_shape = &self.j.aval(v).shape;
                if let Params::Iota { dimension, .. } = &e.params {
                    let at = l.position_along(my_shape, index, *dimension);
                    let ty = rust_type(self.j.aval(v).dtype);
                    let n = format_ident!("__t{}", l.memo.len());
                    l.body.push(
                        quote!(let #n: #ty = ::jax::__rt::ops::convert::<i64, #ty>(#at as i64);),
                    );
                    l.cost += 1;
                    l.memo.insert(key, n.clone());
                    return quote!(#n);
                }
                if e.prim.lowering == Lowering::Sample {
                    let at = l.flat_index(my_shape, index);
                    // The key's words, read once before the loop.
                    let words = self.key_words(&e.ins[0]);
                    let slot = format!("key {words}");
                    let key_name = match l.keys.get(&slot) {
                        Some(name) => name.clone(),
                        None => {
                            let name = format_ident!("__key{}", l.keys.len());
                            l.pre.push(quote!(let #name: [u32; 2] = #words;));
                            l.keys.insert(slot, name.clone());
                            name
                        }
                    };
                    let value = self.sample_call(e, quote!(#key_name), at);
                    l.cost += 96;
                    let n = format_ident!("__t{}", l.memo.len());
                    let ty = rust_type(self.j.aval(v).dtype);
                    l.body.push(quote!(let #n: #ty = #value;));
                    l.memo.insert(key, n.clone());
                    return quote!(#n);
                }
                let args: Vec<TokenStream> = e
                    .ins
                    .iter()
                    .map(|op| {
                        let op_shape = self.aval(op).shape.clone();
                        // Rank-0 operands are scalars; size-1 axes broadcast.
                        let sub: Vec<Option<usize>> = if op_shape.is_empty() {
                            Vec::new()
                        } else {
                            op_shape
                                .iter()
                                .zip(my_shape)
                                .zip(index)
                                .map(
                                    |((od, md), i)| {
                                        if is_one(od) && !is_one(md) {
                                            None
                                        } else {
                                            *i
                                        }
                                    },
                                )
                                .collect()
                        };
                        self.eval(l, op, &sub)
                    })
                    .collect();
                l.cost += e.prim.work;
                // sin and cos of one value: one shared reduction (sincos.rs).
                if let Some((sin, cos)) = self.sincos_pair(e) {
                    let k = l.memo.len();
                    let (s, c) = (format_ident!("__sin{}", k), format_ident!("__cos{}", k));
                    let dtype = self.j.aval(v).dtype;
                    l.body.push(super::sincos::binding(&s, &c, dtype, &args[0]));
                    l.memo.insert((sin, index.to_vec()), s.clone());
                    l.memo.insert((cos, index.to_vec()), c.clone());
                    return if v == sin { quote!(#s) } else { quote!(#c) };
                }
                e.prim.scalar_call(&e.params, &args)
            }
        };
        let n = format_ident!("__t{}", l.memo.len());
        // Typed, so rustc resolves each call at once instead of carrying
        // an inference variable per element operation through the body.
        let ty = rust_type(self.j.aval(v).dtype);
        l.body.push(quote!(let #n: #ty = #value;));
        l.memo.insert(key, n.clone());
        quote!(#n)
    }

    /// `::jax::__rt::random::NAME::<T>(key, at, bounds..)`: element `at`
    /// (a row-major index) of the sample `e` defines. The key is an input,
    /// read as its two words.
    pub(super) fn sample_call(&self, e: &Eqn, key: TokenStream, at: TokenStream) -> TokenStream {
        let Params::Random { dtype, bounds, .. } = &e.params else {
            unreachable!("samplers carry Params::Random")
        };
        let f = format_ident!("{}", crate::prims::runtime_name(e.prim.name, &e.params));
        let ty = rust_type(*dtype);
        let bounds = bounds.map(|(lo, hi)| quote!(, #lo, #hi));
        quote!(::jax::__rt::random::#f::<#ty>(#key, #at #bounds))
    }

    /// A key operand's two words, `[u32; 2]` (keys are stored: samples never fuse their key).
    pub(super) fn key_words(&self, a: &Atom) -> TokenStream {
        match a {
            Atom::Var(k) => match &self.locs[k] {
                // A lane of a batch of keys may read its words strided.
                Loc::View {
                    buf,
                    offset,
                    strides,
                } => match strides.first() {
                    Some(s) => quote!([#buf[#offset], #buf[#offset + #s]]),
                    None => quote!([#buf[#offset], #buf[#offset + 1usize]]),
                },
                // A key of two equal words (`wrap_key_data` of a filled array).
                Loc::Splat(t) => quote!([#t, #t]),
                other => unreachable!("a key is stored, not {other:?}"),
            },
            Atom::Lit(_) => unreachable!("a key is an input"),
        }
    }
}

/// Element count times work per element (additions) under which one copy
/// of a loop, at the baseline SIMD level, takes a few microseconds.
const SMALL_LOOP_WORK: usize = 1 << 16;

/// Element count up to which a loop with transcendentals is one copy that
/// calls them compiled once (`::jax::__rt::ops::outlined`, each choosing
/// its SIMD level; the same bits) instead of inlining their polynomials
/// into a copy per level, where LLVM unrolls them over the elements: fewer
/// elements than the narrowest f32 vector leave nothing to vectorize, and
/// the inlined bodies were most of the build of long programs over small
/// arrays. 1,000 chained `sin` of an `f32[3]` (release, Intel Xeon): 24.8 s
/// to build and 36 µs a call inlined, 5.1 s and 60–67 µs outlined; two
/// copies calling per-level outlined functions took 11 s and 60 µs (the
/// calls, not the choice of level, cost the time: the inlined elements'
/// chains overlap). At 8 elements inlining is several times faster.
pub(super) const TINY_LOOP: usize = 3;

/// Element count under which AVX-512 gains little over AVX2 on a loop.
const SMALL_TRANSCENDENTAL_LOOP: usize = 4096;

/// The number of elements of a static shape.
fn static_size(shape: &[Dim]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, d| match d {
        Dim::Lit(k) => n.checked_mul(*k),
        Dim::Sym(_) => None,
    })
}

/// `body` (a closure) called on `arg` through one copy per SIMD level, or
/// directly when there is one copy.
pub(super) fn level_dispatch(copies: usize, body: &TokenStream, arg: TokenStream) -> TokenStream {
    match copies {
        3 => {
            quote!(::jax::__rt::par::dispatch3(::jax::__rt::par::Level::current(), &#body, &#body, &#body, #arg))
        }
        2 => {
            quote!(::jax::__rt::par::dispatch2(::jax::__rt::par::Level::current(), &#body, &#body, #arg))
        }
        _ => quote!((#body)(#arg)),
    }
}

/// A loop nest over a shape, with loop variables and the body's let-bindings.
///
/// Reads in the innermost loop go through row slices taken once per row
/// (`let r = &buf[base..base + n]`), so the innermost loop has no bounds
/// checks and vectorizes; values that do not vary along it are read before it.
pub(super) struct LoopNest {
    dims: Vec<Dim>,
    pub(super) vars: Vec<Ident>,
    /// The axes in loop order, outermost first.
    pub(super) order: Vec<usize>,
    pub(super) body: Vec<TokenStream>,
    /// Statements just before the innermost loop.
    pub(super) pre: Vec<TokenStream>,
    memo: HashMap<(Var, Vec<Option<usize>>), Ident>,
    pub(super) rows: HashMap<String, Ident>,
    /// A flat loop's row slices: the index of each one's `let` in `pre`,
    /// its name, buffer, element type, and whether it is written.
    flat_views: Vec<FlatView>,
    /// Sample keys' words, read before the innermost loop.
    keys: HashMap<String, Ident>,
    /// One loop over all elements (every array read is whole and row-major).
    pub(super) flat: Option<TokenStream>,
    /// Run the flat loop in parallel chunks through the runtime's driver.
    parallel: bool,
    /// The buffer a flat loop writes.
    out: Option<Ident>,
    /// Estimated work per element (for the chunk size): each operation's
    /// `PrimDef::work`, 96 per random sample.
    pub(super) cost: usize,
}

impl LoopNest {
    pub(super) fn new(shape: &[Dim]) -> LoopNest {
        LoopNest {
            dims: shape.to_vec(),
            vars: (0..shape.len())
                .map(|k| format_ident!("__i{}", k))
                .collect(),
            order: (0..shape.len()).collect(),
            body: Vec::new(),
            pre: Vec::new(),
            memo: HashMap::new(),
            rows: HashMap::new(),
            flat_views: Vec::new(),
            keys: HashMap::new(),
            flat: None,
            parallel: false,
            out: None,
            cost: 0,
        }
    }

    /// A single loop over the `shape`'s elements.
    pub(super) fn flat(shape: &[Dim]) -> LoopNest {
        let mut l = LoopNest::new(shape);
        l.flat = Some(size_tokens(shape));
        l
    }

    pub(super) fn is_flat(&self) -> bool {
        self.flat.is_some()
    }

    pub(super) fn identity(&self) -> Vec<Option<usize>> {
        (0..self.dims.len()).map(Some).collect()
    }

    /// The position along axis `dimension` of the element of an array of
    /// `shape` at the loop position `index`.
    fn position_along(
        &self,
        shape: &[Dim],
        index: &[Option<usize>],
        dimension: usize,
    ) -> TokenStream {
        if self.is_flat() {
            let stride = size_tokens(&shape[dimension + 1..]);
            let n = dim_tokens(&shape[dimension]);
            return quote!(((__first + __i) / #stride % #n));
        }
        match index[dimension] {
            Some(k) => {
                let var = &self.vars[k];
                quote!(#var)
            }
            None => quote!(0usize),
        }
    }

    /// The row-major index, in an array of `shape`, of the element at the
    /// loop position `index` (the loop axis of each of its axes, `None` for
    /// a broadcast axis of size 1).
    fn flat_index(&self, shape: &[Dim], index: &[Option<usize>]) -> TokenStream {
        if self.is_flat() {
            // `__first` is the index of the loop's element 0 (see `wrap_range`
            // and the reductions' lane blocks).
            return quote!((__first + __i));
        }
        let terms: Vec<TokenStream> = index
            .iter()
            .enumerate()
            .filter_map(|(k, i)| {
                let var = &self.vars[(*i)?];
                let stride = size_tokens(&shape[k + 1..]);
                Some(quote!(#var * #stride))
            })
            .collect();
        if terms.is_empty() {
            quote!(0usize)
        } else {
            quote!((#(#terms)+*))
        }
    }

    /// A flat loop's row slices, `true` for written ones, in a stable order
    /// (the macro's output must not depend on hashing).
    pub(super) fn flat_slices(&self) -> Vec<(Ident, bool)> {
        let mut slices: Vec<(Ident, bool)> = self
            .rows
            .iter()
            .map(|(key, row)| (row.clone(), key.ends_with(" true")))
            .collect();
        slices.sort_by_key(|(row, _)| row.to_string());
        slices
    }

    /// The innermost loop's axis, if any.
    fn inner(&self) -> Option<usize> {
        self.order.last().copied()
    }

    /// An element of `buf` at `offset + sum(loop var * stride)` (a stride
    /// per loop axis, 0 where it does not move), read or (`write`) written
    /// through a row slice of the innermost loop.
    fn row_of(
        &mut self,
        buf: &Ident,
        ty: TokenStream,
        offset: &TokenStream,
        loop_strides: &[TokenStream],
        write: bool,
    ) -> TokenStream {
        if self.flat.is_some() {
            // Flat loops run over `__start..__start + __n` (one chunk, or all).
            if write && self.parallel {
                return quote!(__out[__i]);
            }
            let key = format!("{buf} flat {write}");
            if let Some(row) = self.rows.get(&key) {
                return quote!(#row[__i]);
            }
            let row = format_ident!("__r{}", self.rows.len());
            self.rows.insert(key, row.clone());
            self.flat_views.push(FlatView {
                at: self.pre.len(),
                row: row.clone(),
                buf: buf.clone(),
                ty,
                write,
            });
            self.pre.push(if write {
                quote!(let #row = &mut #buf[__start..__start + __n];)
            } else {
                quote!(let #row = &#buf[__start..__start + __n];)
            });
            return quote!(#row[__i]);
        }
        // In a chunk of rows, the output is the chunk's slice `__out`, whose
        // first row is `__row0`.
        let chunked = write && self.parallel && !self.is_flat();
        let outer_terms: Vec<TokenStream> = self
            .order
            .iter()
            .filter(|&&k| Some(k) != self.inner())
            .filter(|&&k| loop_strides[k].to_string() != "0usize")
            .map(|&k| {
                let (v, s) = (&self.vars[k], &loop_strides[k]);
                if chunked && k == 0 {
                    quote!((#v - __row0) * #s)
                } else {
                    quote!(#v * #s)
                }
            })
            .collect();
        let base = quote!(#offset #(+ #outer_terms)*);
        let buf = &if chunked {
            format_ident!("__out")
        } else {
            buf.clone()
        };
        let Some(inner) = self.inner() else {
            return quote!(#buf[#base]);
        };
        let inner_stride = loop_strides[inner].to_string();
        let key = format!("{buf} {base} {inner_stride} {write}");
        if let Some(r) = self.rows.get(&key) {
            let r = r.clone();
            let iv = &self.vars[inner];
            return if inner_stride == "0usize" {
                quote!(#r)
            } else {
                quote!(#r[#iv])
            };
        }
        let name = format_ident!("__r{}", self.rows.len());
        self.rows.insert(key, name.clone());
        let iv = &self.vars[inner];
        let n = dim_tokens(&self.dims[inner]);
        match (inner_stride.as_str(), write) {
            ("1usize", false) => {
                self.pre.push(quote!(let #name = &#buf[#base..#base + #n];));
                quote!(#name[#iv])
            }
            ("1usize", true) => {
                self.pre
                    .push(quote!(let #name = &mut #buf[#base..#base + #n];));
                quote!(#name[#iv])
            }
            ("0usize", false) => {
                self.pre.push(quote!(let #name = #buf[#base];));
                quote!(#name)
            }
            _ => {
                self.rows
                    .remove(&format!("{buf} {base} {inner_stride} {write}"));
                let s = &loop_strides[inner];
                quote!(#buf[#base + #iv * #s])
            }
        }
    }

    /// A flat loop on the calling thread, its row slices passed to a
    /// closure called at once. Slices that are parameters do not alias,
    /// which LLVM knows once the closure is inlined; as `let`s cut from
    /// the buffers in the same function, a loop writing one in place
    /// (`dh * (1 - h²)` over a carry) stayed scalar.
    fn flat_loop_in_place(&self, n: &TokenStream, each: &TokenStream) -> TokenStream {
        let pre: Vec<&TokenStream> = self
            .pre
            .iter()
            .enumerate()
            .filter(|(k, _)| !self.flat_views.iter().any(|v| v.at == *k))
            .map(|(_, t)| t)
            .collect();
        let mut views: Vec<&FlatView> = self.flat_views.iter().collect();
        views.sort_by_key(|v| v.row.to_string());
        let params = views.iter().map(|v| {
            let (row, ty) = (&v.row, &v.ty);
            if v.write {
                quote!(#row: &mut [#ty])
            } else {
                quote!(#row: &[#ty])
            }
        });
        let args = views.iter().map(|v| {
            let buf = &v.buf;
            if v.write {
                quote!(&mut #buf[..__n])
            } else {
                quote!(&#buf[..__n])
            }
        });
        quote!({
            let __start = 0usize;
            let __first = 0usize;
            let __n = #n;
            #(#pre)*
            (|#(#params),*| { #each })(#(#args),*);
        })
    }

    /// All loops around `inner`.
    fn wrap(&self, inner: TokenStream) -> TokenStream {
        self.wrap_range(0, self.order.len(), inner)
    }

    /// Loops `order[from..to]` around `inner`; the innermost loop gets the
    /// row slices just before it.
    pub(super) fn wrap_range(&self, from: usize, to: usize, inner: TokenStream) -> TokenStream {
        if let Some(n) = &self.flat {
            let pre = &self.pre;
            let mut slices = self.flat_slices();
            if self.out.is_some() && self.parallel {
                slices.push((format_ident!("__out"), true));
            }
            let each = flat_loop(&inner, &slices, &self.dims, self.cost);
            return match (&self.out, self.parallel) {
                (Some(out), true) => {
                    let cost = self.cost.max(1);
                    // The body once per SIMD level (see `par::dispatch3`).
                    let body = quote! {
                        |(__start, __out)| {
                            let __n = __out.len();
                            let __first = __start;
                            #(#pre)*
                            #each
                        }
                    };
                    quote! {
                        ::jax::__rt::par::for_each_chunk3(&mut #out, ::jax::__rt::par::grain(#cost), #body, #body, #body);
                    }
                }
                _ => self.flat_loop_in_place(n, &each),
            };
        }
        let mut t = inner;
        let innermost = to == self.order.len();
        for (pos, &k) in self.order[from..to].iter().enumerate().rev() {
            let var = &self.vars[k];
            let n = dim_tokens(&self.dims[k]);
            t = if self.parallel && k == 0 && from == 0 {
                // The rows of this chunk only.
                let row = size_tokens(&self.dims[1..]);
                quote!(for #var in __row0..__row0 + __out.len() / #row { #t })
            } else {
                quote!(for #var in 0..#n { #t })
            };
            if innermost && pos + from + 1 == self.order.len() {
                let pre = &self.pre;
                t = quote!({ #(#pre)* #t });
            }
        }
        if innermost && from == to {
            let pre = &self.pre;
            t = quote!({ #(#pre)* #t });
        }
        t
    }
}

/// A flat loop's row slice (see [`LoopNest::row_of`]).
struct FlatView {
    at: usize,
    row: Ident,
    buf: Ident,
    ty: TokenStream,
    write: bool,
}

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
            quote!(::jax::__rt::multi::for_each_chunks3(&mut __outs, ::jax::__rt::par::grain(#cost), #closure, #closure, #closure);)
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

/// Elements per block of [`flat_loop`]: a few vectors of every SIMD level,
/// few enough that recomputing a block (see below) costs little.
const FLAT_BLOCK: usize = 64;

/// Flat loops over fewer elements than this get no prefetch hints: their
/// arrays (2 MiB of f32 at most, a core's L2 cache on the Xeon) mostly come
/// from the cache already, and the MLP's 131,072-element loops ran 4 %
/// slower with the blocks.
const PREFETCH_MIN_ELEMENTS: usize = 1 << 19;

/// Whether a flat loop over `shape` streams from memory: it has at least
/// [`PREFETCH_MIN_ELEMENTS`] elements, or a size known only to rustc.
pub(super) fn streams(shape: &[Dim]) -> bool {
    static_size(shape).is_none_or(|n| n >= PREFETCH_MIN_ELEMENTS)
}

/// The prefetch hints of a block loop over `reads` (blocks of `block`
/// elements at `__b`) when it `streams`: the chunk's one question to the
/// runtime (`__pf`, whether this CPU gains from them at `work` per
/// element), and each block's hints, given when it does. Both empty when
/// the loop does not stream.
pub(super) fn prefetch_hints(
    streams: bool,
    work: usize,
    reads: &[&Ident],
    block: TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    if !streams || reads.is_empty() {
        return (TokenStream::new(), Vec::new());
    }
    let ask = quote!(let __pf = ::jax::__rt::par::streams_want_prefetch(#work););
    let hints = reads
        .iter()
        .map(|s| quote!(if __pf { ::jax::__rt::par::prefetch_ahead(#s, __b, #block); }))
        .collect();
    (ask, hints)
}

/// `for __i in 0..__n { inner }`, the body of a flat loop over `__n`
/// elements at `__first` of an array of `shape`, in blocks of
/// [`FLAT_BLOCK`] where that pays:
///
/// - A loop that [`streams`] first asks the cache for each block's read
///   slices a little ahead (`par::prefetch_ahead`): on some machines the
///   hardware prefetcher falls behind a loop that computes much per
///   element (`grad(sin(x) * x)` over 16M f32 took 2.0 times as long
///   without it on an Intel Xeon, `tanh(x * 1.5 + 0.5) * 2` 1.7 times).
///   Whether that pays depends on the CPU and on the loop's `work` per
///   element, so the chunk asks `par::streams_want_prefetch` once.
/// - When `inner` calls `sin`, `cos` or `sincos`, a block runs first with
///   their `_near` forms and, if an argument was too large for those, again
///   with `inner` (elementwise bodies only store, so a second pass
///   overwrites the first; see `sincos`). The last partial block runs
///   `inner` alone.
///
/// Without either, or over a static shape of fewer than [`FLAT_BLOCK`]
/// elements (no block would run), one plain loop; without the second,
/// `inner` once (the last block is shorter), so the expansion does not grow
/// with it.
/// `slices` are the loop's row slices (`true`: written), re-cut to each
/// block so that its indices need no bounds checks.
pub(super) fn flat_loop(
    inner: &TokenStream,
    slices: &[(Ident, bool)],
    shape: &[Dim],
    work: usize,
) -> TokenStream {
    // A static loop shorter than a block never runs the block path.
    let blocks = static_size(shape).is_none_or(|n| n >= FLAT_BLOCK);
    let near = super::sincos::near_calls(inner.clone()).filter(|_| blocks);
    let reads: Vec<&Ident> = slices.iter().filter(|(_, w)| !w).map(|(s, _)| s).collect();
    let (ask, prefetch) = prefetch_hints(streams(shape), work, &reads, quote!(#FLAT_BLOCK));
    if near.is_none() && prefetch.is_empty() {
        return quote!(for __i in 0..__n { #inner });
    }
    let recut = |range: TokenStream| -> Vec<TokenStream> {
        slices
            .iter()
            .map(|(s, written)| {
                if *written {
                    quote!(let #s = &mut #s[#range];)
                } else {
                    quote!(let #s = &#s[#range];)
                }
            })
            .collect()
    };
    let Some(near) = near else {
        let block = recut(quote!(__b..__e));
        return quote! {
            #ask
            let mut __b = 0usize;
            while __b < __n {
                let __e = ::core::cmp::min(__b + #FLAT_BLOCK, __n);
                #(#prefetch)*
                {
                    #(#block)*
                    let __first = __first + __b;
                    for __i in 0..__e - __b { #inner }
                }
                __b = __e;
            }
        };
    };
    let block = recut(quote!(__b..__b + #FLAT_BLOCK));
    let rest = recut(quote!(__b..));
    quote! {
        #ask
        let mut __b = 0usize;
        while __b + #FLAT_BLOCK <= __n {
            #(#prefetch)*
            {
                #(#block)*
                let __first = __first + __b;
                let mut __wide = false;
                for __i in 0..#FLAT_BLOCK { #near }
                if __wide {
                    for __i in 0..#FLAT_BLOCK { #inner }
                }
            }
            __b += #FLAT_BLOCK;
        }
        {
            #(#rest)*
            let __first = __first + __b;
            for __i in 0..__n - __b { #inner }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::emitted;

    /// Checks that `code` holds `hints` prefetch hints, each under the
    /// chunk's `__pf`, and returns the work per element that each of the 3
    /// SIMD copies' chunks hands `par::streams_want_prefetch`.
    fn gated_hints_work(code: &str, hints: usize) -> Vec<usize> {
        let gated = "if __pf { :: jax :: __rt :: par :: prefetch_ahead (__r";
        assert_eq!(code.matches(gated).count(), hints, "{code}");
        let ask = "streams_want_prefetch (";
        let work: Vec<usize> = code
            .match_indices(ask)
            .map(|(i, _)| {
                let rest = &code[i + ask.len()..];
                rest[..rest.find("usize").expect("a usize literal")]
                    .trim()
                    .parse()
                    .expect("a number")
            })
            .collect();
        assert_eq!(work.len(), 3, "{code}");
        work
    }

    #[test]
    fn flat_loops_over_large_arrays_prefetch_their_reads() {
        let code = emitted(
            "fn f(x: Array<f32, 1048576>, y: Array<f32, 1048576>) -> Array<f32, 1048576> { jnp::tanh(x) * y }",
        );
        // Both inputs, in each of the 3 SIMD copies, given when the CPU
        // gains from them at a transcendental's work per element.
        let work = gated_hints_work(&code, 6);
        assert!(
            work.iter().all(|&w| w >= crate::prims::TRANSCENDENTAL_WORK),
            "{work:?}"
        );
        // Arrays the cache holds: one plain loop.
        let code = emitted("fn f(x: Array<f32, 4096>) -> Array<f32, 4096> { jnp::tanh(x) * x }");
        assert!(!code.contains("prefetch_ahead"), "{code}");
        assert!(!code.contains("__e"), "{code}");
    }

    #[test]
    fn whole_array_reductions_of_large_arrays_prefetch_their_reads() {
        let code = emitted("fn f(x: Array<f32, 1048576>) -> Array<f32> { jnp::sum(x * x) }");
        // In each of the 3 SIMD copies of the chunk's fold, which tells the
        // runtime its work per element: a multiply, far below a
        // transcendental's, so CPUs whose hardware keeps up skip the hints.
        let work = gated_hints_work(&code, 3);
        assert!(
            work.iter().all(|&w| w < crate::prims::TRANSCENDENTAL_WORK),
            "{work:?}"
        );
        let code = emitted("fn f(x: Array<f32, 4096>) -> Array<f32> { jnp::sum(x * x) }");
        assert!(!code.contains("prefetch_ahead"), "{code}");
    }

    #[test]
    fn iota_masks_are_computed_in_their_consumers_loop() {
        // `tril`'s mask compares two iotas: no index arrays are stored.
        let code =
            emitted("fn f(x: Array<f32, 64, 32>) -> Array<f32, 64, 32> { jnp::tril(&x, 0) }");
        assert!(!code.contains("__rt :: iota"), "{code}");
        assert!(
            code.contains("convert :: < i64 , i32 > (__i0 as i64)"),
            "{code}"
        );
        assert!(
            code.contains("convert :: < i64 , i32 > (__i1 as i64)"),
            "{code}"
        );
        assert!(!code.contains("__first + __i"), "{code}");
    }

    #[test]
    fn flat_loops_on_the_calling_thread_take_their_slices_as_parameters() {
        // Parameters do not alias, so LLVM vectorizes the loop without
        // checks; slices cut from the buffers in place it left scalar.
        let code =
            emitted("fn f(x: Array<f32, 64>, y: Array<f32, 64>) -> Array<f32, 64> { x * y }");
        let params = "(| __r0 : & [f32] , __r1 : & [f32] , __r2 : & mut [f32] |";
        assert!(code.contains(params), "{code}");
        assert!(
            code.contains("}) (& __v0 [.. __n] , & __v1 [.. __n] , & mut __v"),
            "{code}"
        );
        assert!(!code.contains("let __r0 = & __v0"), "{code}");
    }
}
