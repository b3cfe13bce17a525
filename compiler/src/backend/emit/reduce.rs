//! Reductions: folds accumulated in the loop that computes their operand
//! (whole-array folds in fixed chunks and lanes, so results do not depend
//! on threads or SIMD level), and the runtime's argument reductions.
//!
//! The fixed orders of folds (the eager fast paths, `runtime/lax/fast.rs`,
//! use the same, so eager and jitted calls give the same bits):
//! - over every axis: `par::reduce`'s chunks of `REDUCE_CHUNK` elements, each
//!   folded in `par::LANES` lanes (`par::fold_lanes`), partials left to right;
//! - over a contiguous group of trailing axes, into an array: each result as
//!   above over its contiguous row (`__rt::axis::fold_rows`, the order row
//!   programs fold their rows in), results split over threads;
//! - over any other contiguous group of axes: each result left to right,
//!   vectorized across neighbouring results (`__rt::axis::fold_middle`);
//! - over axes that are not contiguous: each result left to right in the
//!   loop computing the operand.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::nest::LoopNest;
use super::per_level::level_dispatch;
use super::{Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Eqn, Var};
use crate::prims::{dim_tokens, row_major_strides, size_tokens, Monoid, Params, Reduction};
use jax_dtypes::DType;

impl Emitter<'_> {
    /// A reduction, as its primitive's [`Reduction`] says.
    pub(super) fn reduce(&mut self, e: &Eqn, out: Var, aval: &Aval) {
        let x = &e.ins[0];
        match e.prim.reduction.expect("a reduction has its rule") {
            Reduction::Fold(m) => self.fold(m, x, &e.params, out, aval),
            Reduction::ArgMax => self.arg_reduce("argmax", x, &e.params, out, aval),
            Reduction::ArgMin => self.arg_reduce("argmin", x, &e.params, out, aval),
        }
    }

    /// The runtime's `argmax`/`argmin` (`f`) on `x`'s buffer.
    fn arg_reduce(&mut self, f: &str, x: &Atom, p: &Params, out: Var, aval: &Aval) {
        let Params::ArgReduce { axis, .. } = p else {
            unreachable!("argument reductions carry Params::ArgReduce")
        };
        let x_aval = self.aval(x).clone();
        let name = Self::name(out);
        let ty = rust_type(aval.dtype);
        let f = format_ident!("{}", f);
        let buf = self.buffer_of(x, &x_aval);
        let shape: Vec<TokenStream> = x_aval.shape.iter().map(dim_tokens).collect();
        let xty = rust_type(x_aval.dtype);
        self.stmts.push(quote! {
            let #name: ::std::vec::Vec<#ty> = ::jax::__rt::#f::<#xty, #ty>(&#buf, &[#(#shape),*], #axis);
        });
        self.finish_buffer(out, aval, name);
    }

    /// A fold of `x` over `Params::Axes` with `monoid`, in the loop nest
    /// computing `x` (reduced axes innermost), or, over every axis, in fixed
    /// chunks of lanes.
    fn fold(&mut self, monoid: Monoid, x: &Atom, p: &Params, out: Var, aval: &Aval) {
        let x_aval = self.aval(x).clone();
        let name = Self::name(out);
        let ty = rust_type(aval.dtype);
        let Params::Axes(axes, _) = p else {
            unreachable!("folds carry Params::Axes")
        };
        let combine_fn = format_ident!("{}", monoid.op());
        let identity = format_ident!("{}", identity(monoid));
        let kept: Vec<usize> = (0..x_aval.rank()).filter(|k| !axes.contains(k)).collect();
        if !kept.is_empty() && !axes.is_empty() {
            if let Some(group) = contiguous(axes) {
                return self.fold_group(monoid, x, &x_aval, group, out, aval);
            }
        }
        let mut l = if kept.is_empty() && self.flat_ok(x, &x_aval.shape) {
            LoopNest::flat(&x_aval.shape)
        } else {
            let mut l = LoopNest::new(&x_aval.shape);
            // Reduced axes run innermost, so each output element has one accumulator.
            l.order = kept.iter().copied().chain(axes.iter().copied()).collect();
            l
        };
        let kept: Vec<usize> = if l.is_flat() { Vec::new() } else { kept };
        let copies = self.simd_copies(&x_aval.shape, x);
        let id = l.identity();
        let value = self.eval(&mut l, x, &id);
        let body = l.body.clone();
        if let Some(n) = l.flat.clone() {
            // A whole-array reduction: fixed chunks (in parallel when allowed),
            // each folded in independent lanes so the loop vectorizes; the
            // order is fixed, so results do not depend on the thread count.
            let pre = &l.pre;
            // `par::fold_lanes`'s order, written out so that each block of
            // LANES elements reads slices re-cut to exactly LANES: the lane
            // index then needs no bounds check and the block vectorizes.
            let mut slices: Vec<&Ident> = l.rows.values().collect();
            // A stable order: the macro's output must not depend on hashing.
            slices.sort_by_key(|i| i.to_string());
            let lanes = |combine: &TokenStream, track_nan: bool| {
                lane_fold(LaneFold {
                    pre,
                    slices: &slices,
                    body: &body,
                    value: &value,
                    ty: &ty,
                    identity: &identity,
                    combine,
                    track_nan,
                    streams: super::flat::streams(&x_aval.shape),
                    work: l.cost,
                })
            };
            let fold = lanes(&quote!(::jax::__rt::ops::#combine_fn), false);
            // A float max or min folds with one `maxps`/`minps` per block and
            // a NaN flag per lane, then refolds exactly when that result could
            // differ (`ops::needs_exact_fold`): the exact `max` is a chain of
            // compares and selects, and was most of a softmax row's time.
            let unordered = match monoid {
                Monoid::Max => Some(format_ident!("max_unordered")),
                Monoid::Min => Some(format_ident!("min_unordered")),
                _ => None,
            };
            let fold = match unordered {
                Some(fast) if matches!(aval.dtype, DType::F32 | DType::F64) => {
                    let fast = lanes(&quote!(::jax::__rt::ops::#fast), true);
                    quote! {{
                        let (__fast, __saw_nan): (#ty, bool) = { #fast };
                        if ::jax::__rt::ops::needs_exact_fold(__fast, __saw_nan) {
                            #fold
                        } else {
                            __fast
                        }
                    }}
                }
                _ => fold,
            };
            let body = quote! {
                |(__start, __end): (usize, usize)| {
                    let __n = __end - __start;
                    #fold
                }
            };
            // Longer than one chunk: worth the three SIMD copies and the
            // threads even when the operand is cheap (a plain `sum(x)`).
            let more_than_a_chunk = x_aval
                .shape
                .iter()
                .try_fold(1usize, |n, d| match d {
                    Dim::Lit(k) => n.checked_mul(*k),
                    Dim::Sym(_) => None,
                })
                .is_none_or(|n| n > REDUCE_CHUNK);
            let value = if self.parallel
                && (copies == 3 || (more_than_a_chunk && self.replay.is_none()))
            {
                quote! {
                    ::jax::__per_level!(reduce3(#n, ::jax::__rt::par::REDUCE_CHUNK, #body, ::jax::__rt::ops::#combine_fn))
                }
            } else if self.parallel && copies == 2 && !more_than_a_chunk {
                level_dispatch(copies, &body, quote!((0usize, #n)))
            } else if !more_than_a_chunk {
                // One chunk of `par::reduce`'s order: its lanes alone.
                quote!({
                    let __start = 0usize;
                    let __n: usize = #n;
                    #fold
                })
            } else {
                // `par::reduce`'s chunks and order, on this thread: the
                // result depends on the length alone, wherever the fold runs.
                quote!({
                    let __total: usize = #n;
                    let mut __start = 0usize;
                    let mut __r: #ty = ::jax::__rt::identity::#identity::<#ty>();
                    loop {
                        let __end = ::core::cmp::min(__start + ::jax::__rt::par::REDUCE_CHUNK, __total);
                        let __n = __end - __start;
                        let __p: #ty = { #fold };
                        __r = if __start == 0 { __p } else { ::jax::__rt::ops::#combine_fn(__r, __p) };
                        __start = __end;
                        if __start >= __total {
                            break;
                        }
                    }
                    __r
                })
            };
            self.stmts.push(quote!(let #name: #ty = #value;));
            self.locs.insert(out, Loc::Scalar(name));
            return;
        }
        let acc_update = quote! { #(#body)* __acc = ::jax::__rt::ops::#combine_fn(__acc, #value); };
        let inner = l.wrap_range(kept.len(), l.order.len(), acc_update);
        if aval.rank() == 0 {
            let outer = quote! {
                let mut __acc: #ty = ::jax::__rt::identity::#identity::<#ty>();
                #inner
                __acc
            };
            self.stmts.push(quote!(let #name: #ty = { #outer };));
            self.locs.insert(out, Loc::Scalar(name));
        } else {
            let out_strides = row_major_strides(&aval.shape);
            let out_index_terms: Vec<TokenStream> = kept
                .iter()
                .zip(&out_strides)
                .map(|(&k, s)| {
                    let var = &l.vars[k];
                    quote!(#var * #s)
                })
                .collect();
            let per_output = quote! {
                let mut __acc: #ty = ::jax::__rt::identity::#identity::<#ty>();
                #inner
                #name[0usize #(+ #out_index_terms)*] = __acc;
            };
            let loops = l.wrap_range(0, kept.len(), per_output);
            let size = size_tokens(&aval.shape);
            self.alloc(&name, &ty, &size);
            self.stmts.push(loops);
            self.finish_buffer(out, aval, name);
        }
    }
}

impl Emitter<'_> {
    /// A fold over the contiguous group of axes `first..last + 1` of `x`
    /// into an array: `x` (materialized once if it is an expression) seen as
    /// `outer × len × inner`, folded by the runtime's `axis::fold_rows`
    /// (trailing axes: each row in lanes, as a row program folds) or
    /// `axis::fold_middle` (left to right, vectorized across the results).
    /// The orders are those of the eager fast paths (`runtime/rt/axis.rs`).
    fn fold_group(
        &mut self,
        monoid: Monoid,
        x: &Atom,
        x_aval: &Aval,
        (first, last): (usize, usize),
        out: Var,
        aval: &Aval,
    ) {
        let name = Self::name(out);
        let ty = rust_type(aval.dtype);
        let combine_fn = format_ident!("{}", monoid.op());
        let identity = format_ident!("{}", identity(monoid));
        let buf = self.buffer_of(x, x_aval);
        let outer = size_tokens(&x_aval.shape[..first]);
        let len = size_tokens(&x_aval.shape[first..=last]);
        let threads = self.parallel;
        let id = quote!(::jax::__rt::identity::#identity::<#ty>());
        let combine = quote!(::jax::__rt::ops::#combine_fn::<#ty>);
        let call = if last + 1 == x_aval.rank() {
            quote!(::jax::__rt::axis::fold_rows::<#ty, _>(&#buf, #outer, #len, #id, #combine, #threads))
        } else {
            let inner = size_tokens(&x_aval.shape[last + 1..]);
            quote!(::jax::__rt::axis::fold_middle::<#ty, _>(&#buf, #outer, #len, #inner, #id, #combine, #threads))
        };
        self.stmts
            .push(quote!(let #name: ::std::vec::Vec<#ty> = #call;));
        self.finish_buffer(out, aval, name);
    }
}

/// `axes` (ascending) as `(first, last)` when they are one contiguous group.
/// What [`lane_fold`] folds: the loop nest's statements before the loop
/// (`pre`), its row slices, the per-element statements and value, the
/// element type, the identity's name in `__rt::identity`, and the combine
/// function's path.
struct LaneFold<'a> {
    pre: &'a [TokenStream],
    slices: &'a [&'a Ident],
    body: &'a [TokenStream],
    value: &'a TokenStream,
    ty: &'a TokenStream,
    identity: &'a Ident,
    combine: &'a TokenStream,
    /// Also fold a NaN flag per lane; the block is then `(result, saw_nan)`.
    track_nan: bool,
    /// Whether the fold streams from memory, and its work per element:
    /// its blocks then ask for their reads ahead where that pays, as a flat
    /// loop's do (`flat::flat_loop`).
    streams: bool,
    work: usize,
}

/// One chunk (`__n` elements at `__start`) folded in `par::fold_lanes`'s
/// order, written out so that each block of LANES elements reads slices
/// re-cut to exactly LANES: the lane index then needs no bounds check and
/// the block vectorizes.
fn lane_fold(f: LaneFold) -> TokenStream {
    let LaneFold {
        pre,
        slices,
        body,
        value,
        ty,
        identity,
        combine,
        ..
    } = f;
    let lanes = quote!(::jax::__rt::par::LANES);
    let (ask, prefetch) = super::flat::prefetch_hints(f.streams, f.work, slices, lanes.clone());
    let (nan_init, nan_block, nan_tail, nan_pair, acc, result) = if f.track_nan {
        (
            quote!(let mut __nan = [false; #lanes];),
            quote!(__nan = ::core::array::from_fn(|__i| __nan[__i] | ::jax::__rt::ops::is_nan(__v[__i]));),
            quote!(__nan[__i] |= ::jax::__rt::ops::is_nan(__x);),
            quote!(__nan[__l] |= __nan[__l + __w];),
            quote!((__acc, __nan)),
            quote!((__acc[0], __nan[0])),
        )
    } else {
        let none = TokenStream::new();
        (
            none.clone(),
            none.clone(),
            none.clone(),
            none,
            quote!(__acc),
            quote!(__acc[0]),
        )
    };
    let acc_mut = if f.track_nan {
        quote!((mut __acc, mut __nan))
    } else {
        quote!(mut __acc)
    };
    quote! {
        #(#pre)*
        #ask
        let mut __b = 0usize;
        // The lanes are rebuilt by value each block (`from_fn`), not updated
        // in place: LLVM then keeps them in registers. With `__acc[__i] = ..`
        // in a loop they lived on the stack, and the store-to-load chain
        // halved a sum of squares' speed.
        let #acc_mut = {
            let mut __acc = [::jax::__rt::identity::#identity::<#ty>(); #lanes];
            #nan_init
            while __b + #lanes <= __n {
                #(#prefetch)*
                #(let #slices = &#slices[__b..__b + #lanes];)*
                let __first = __start + __b;
                // The block's values first, then one combine per lane: with
                // both in one closure, LLVM kept the lanes on the stack in
                // row programs.
                let __v: [#ty; #lanes] = ::core::array::from_fn(|__i| {
                    #(#body)*
                    #value
                });
                __acc = ::core::array::from_fn(|__i| #combine(__acc[__i], __v[__i]));
                #nan_block
                __b += #lanes;
            }
            #acc
        };
        {
            #(let #slices = &#slices[__b..];)*
            let __first = __start + __b;
            for __i in 0..__n - __b {
                #(#body)*
                let __x: #ty = #value;
                __acc[__i] = #combine(__acc[__i], __x);
                #nan_tail
            }
        }
        let mut __w = #lanes / 2;
        while __w > 0 {
            for __l in 0..__w {
                __acc[__l] = #combine(__acc[__l], __acc[__l + __w]);
                #nan_pair
            }
            __w /= 2;
        }
        #result
    }
}

fn contiguous(axes: &[usize]) -> Option<(usize, usize)> {
    let first = *axes.first()?;
    let ok = axes.iter().enumerate().all(|(k, &a)| a == first + k);
    ok.then(|| (first, first + axes.len() - 1))
}

/// `par::REDUCE_CHUNK`: the elements of one partial of a whole-array fold.
const REDUCE_CHUNK: usize = 1 << 14;

/// The runtime's identity of a monoid (`__rt::identity::NAME`, named after
/// the reduction folding with it).
fn identity(m: Monoid) -> &'static str {
    match m {
        Monoid::Add => "reduce_sum",
        Monoid::Mul => "reduce_prod",
        Monoid::Max => "reduce_max",
        Monoid::Min => "reduce_min",
        Monoid::And => "reduce_and",
        Monoid::Or => "reduce_or",
    }
}
