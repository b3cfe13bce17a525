//! Loop nests: a value computed element by element, fused expressions
//! evaluated at a loop position, row slices read once per row, flat loops,
//! parallel chunks, and copies of a loop per SIMD level where they pay.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::flat::static_size;
pub(super) use super::nest::LoopNest;
use super::per_level::level_dispatch;
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
                ::jax::__per_level!(for_each_rows3(
                    &mut #name,
                    #row,
                    ::jax::__rt::par::rows_per_chunk(#row * #cost),
                    #body
                ));
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
    /// its latency counts: an RNN's 64 `tanh`s, its gradient's updates)
    /// but one of at most [`TINY_LOOP`] elements without transcendentals.
    /// Fewer than three means too small for threads as well.
    pub(super) fn simd_copies(&self, shape: &[Dim], a: &Atom) -> usize {
        if self.replay.is_some() || self.dispatched {
            return 1;
        }
        let Some(elements) = static_size(shape) else {
            return 3;
        };
        let (work, transcendental) = self.fused_work(a, &mut Default::default());
        if self.repeated {
            // A loop body's loop of fewer elements than the narrowest
            // vector and no transcendental has nothing to vectorize: its
            // three copies were only a level check and an indirect call per
            // step (control's 1×1 matrices, a carry's scalar row).
            return if elements <= TINY_LOOP && !transcendental {
                1
            } else {
                3
            };
        }
        match (transcendental, elements) {
            (false, n) if n.saturating_mul(work) < SMALL_LOOP_WORK => 1,
            (true, n) if n <= TINY_LOOP => 1,
            (true, n) if n < SMALL_TRANSCENDENTAL_LOOP => 2,
            _ => 3,
        }
    }

    /// Whether the loop computing `a` over `shape` is one copy calling the
    /// runtime's compiled-once transcendentals ([`TINY_LOOP`]).
    pub(super) fn outlines(&self, shape: &[Dim], a: &Atom) -> bool {
        !(self.replay.is_some() || self.dispatched || self.repeated)
            && static_size(shape).is_some_and(|n| n <= TINY_LOOP)
            && self.fused_work(a, &mut Default::default()).1
    }

    /// The work per element of the fused expression of `a` (see `PrimDef::work`)
    /// and whether it holds a transcendental.
    pub(super) fn fused_work(
        &self,
        a: &Atom,
        seen: &mut std::collections::HashSet<Var>,
    ) -> (usize, bool) {
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
        self.loop_operands(*v, e).iter().fold(
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
                    || self
                        .loop_operands(v, e)
                        .iter()
                        .all(|op| self.flat_ok(op, shape))
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
                if let Some(g) = self.fusion.gathers.get(&v) {
                    let value = self.point_gather(l, e.ins[0].clone(), g.clone(), index);
                    l.cost += e.prim.work;
                    let n = format_ident!("__t{}", l.memo.len());
                    let ty = rust_type(self.j.aval(v).dtype);
                    l.body.push(quote!(let #n: #ty = #value;));
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

    /// What the loop computing `v` (made by `e`) reads at its own
    /// position: `e`'s operands, or a point gather's index components
    /// (its operand is read at the positions they name).
    pub(super) fn loop_operands(&self, v: Var, e: &'_ Eqn) -> Vec<Atom> {
        match self.fusion.gathers.get(&v) {
            Some(g) => g.components.clone(),
            None => e.ins.clone(),
        }
    }

    /// The element of a point gather (`fuse::PointGather`) at the loop
    /// position `index`: its operand read at the position its index
    /// components give there, each clamped into bounds or, in `fill` mode,
    /// the fill value when one is out of bounds.
    fn point_gather(
        &mut self,
        l: &mut LoopNest,
        x: Atom,
        g: crate::backend::fuse::PointGather,
        index: &[Option<usize>],
    ) -> TokenStream {
        let x_aval = self.aval(&x).clone();
        let ty = rust_type(x_aval.dtype);
        let comps: Vec<TokenStream> = g
            .components
            .iter()
            .map(|c| {
                let sub = if self.aval(c).rank() == 0 {
                    Vec::new()
                } else {
                    index.to_vec()
                };
                let c = self.eval(l, c, &sub);
                quote!((#c as i64))
            })
            .collect();
        let sizes: Vec<TokenStream> = g
            .index_map
            .iter()
            .map(|&d| dim_tokens(&x_aval.shape[d]))
            .collect();
        let Atom::Var(xv) = &x else {
            unreachable!("a gather's operand is an array")
        };
        if matches!(self.locs.get(xv), Some(Loc::Fused) | None) {
            self.materialize(*xv, &x_aval);
        }
        let (read, fill) = match self.locs[xv].clone() {
            Loc::View {
                buf,
                offset,
                strides,
            } => {
                let terms = g
                    .index_map
                    .iter()
                    .zip(&comps)
                    .zip(&sizes)
                    .map(|((&d, c), n)| {
                        let s = &strides[d];
                        match g.fill {
                            None => quote!(::jax::__rt::gather::clamp(#c, #n) * #s),
                            Some(_) => quote!((#c as usize) * #s),
                        }
                    });
                (quote!(#buf[#offset #(+ #terms)*]), g.fill)
            }
            Loc::Splat(t) => (t, g.fill),
            Loc::Scalar(n) => (quote!(#n), g.fill),
            Loc::Fused => unreachable!("stored above"),
        };
        match fill {
            None => read,
            Some(f) => {
                let f = match f {
                    Some(f) => {
                        let bits = f.to_bits();
                        quote!(::core::option::Option::Some(f64::from_bits(#bits)))
                    }
                    None => quote!(::core::option::Option::None),
                };
                quote! {
                    if true #(&& ::jax::__rt::gather::within(#comps, #sizes))* {
                        #read
                    } else {
                        ::jax::__rt::gather::fill_value::<#ty>(#f)
                    }
                }
            }
        }
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

#[cfg(test)]
mod tests {
    use super::super::emitted;

    /// Checks that `code` holds `hints` prefetch hints, each under the
    /// chunk's `__pf`, and returns the work per element that the chunk body
    /// (one text, compiled per SIMD level by `__per_level!`) hands
    /// `par::streams_want_prefetch`.
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
        assert_eq!(work.len(), 1, "{code}");
        work
    }

    #[test]
    fn flat_loops_over_large_arrays_prefetch_their_reads() {
        let code = emitted(
            "fn f(x: Array<f32, 1048576>, y: Array<f32, 1048576>) -> Array<f32, 1048576> { jnp::tanh(x) * y }",
        );
        // Both inputs, given when the CPU gains from them at a
        // transcendental's work per element.
        let work = gated_hints_work(&code, 2);
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
        // In the chunk's fold, which tells the runtime its work per
        // element: a multiply, far below a transcendental's, so CPUs whose
        // hardware keeps up skip the hints.
        let work = gated_hints_work(&code, 1);
        assert!(
            work.iter().all(|&w| w < crate::prims::TRANSCENDENTAL_WORK),
            "{work:?}"
        );
        let code = emitted("fn f(x: Array<f32, 4096>) -> Array<f32> { jnp::sum(x * x) }");
        assert!(!code.contains("prefetch_ahead"), "{code}");
    }

    #[test]
    fn point_gathers_read_their_operand_in_the_readers_loop() {
        let code = emitted(
            "fn f(x: Array<f32, 8, 8>, i: Array<i32, 16>, k: Array<i32, 16>) -> Array<f32, 16> { x.at((i, k)).get() * 2.0 }",
        );
        assert!(code.contains("gather :: clamp"), "{code}");
        assert!(!code.contains("gather :: gather"), "{code}");
        assert!(!code.contains("concatenate"), "{code}");
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
