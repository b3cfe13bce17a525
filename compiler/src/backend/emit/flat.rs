//! Flat loops in blocks: the block path that recomputes a block whose
//! fast pass met an edge case, and prefetch hints for loops that stream.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::ir::Dim;

/// The number of elements of a static shape.
pub(super) fn static_size(shape: &[Dim]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, d| match d {
        Dim::Lit(k) => n.checked_mul(*k),
        Dim::Sym(_) => None,
    })
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
