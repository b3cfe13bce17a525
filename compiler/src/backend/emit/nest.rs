//! [`LoopNest`]: the loops over a shape a value is written in, their row
//! slices (read once per row, so the innermost loop has no bounds checks),
//! flat loops, and the range a parallel chunk covers.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::flat::flat_loop;
use crate::ir::{Dim, Var};
use crate::prims::{dim_tokens, size_tokens};

/// A loop nest over a shape, with loop variables and the body's let-bindings.
///
/// Reads in the innermost loop go through row slices taken once per row
/// (`let r = &buf[base..base + n]`), so the innermost loop has no bounds
/// checks and vectorizes; values that do not vary along it are read before it.
pub(super) struct LoopNest {
    pub(super) dims: Vec<Dim>,
    pub(super) vars: Vec<Ident>,
    /// The axes in loop order, outermost first.
    pub(super) order: Vec<usize>,
    pub(super) body: Vec<TokenStream>,
    /// Statements just before the innermost loop.
    pub(super) pre: Vec<TokenStream>,
    pub(super) memo: HashMap<(Var, Vec<Option<usize>>), Ident>,
    pub(super) rows: HashMap<String, Ident>,
    /// A flat loop's row slices: the index of each one's `let` in `pre`,
    /// its name, buffer, element type, and whether it is written.
    flat_views: Vec<FlatView>,
    /// Sample keys' words, read before the innermost loop.
    pub(super) keys: HashMap<String, Ident>,
    /// One loop over all elements (every array read is whole and row-major).
    pub(super) flat: Option<TokenStream>,
    /// Run the flat loop in parallel chunks through the runtime's driver.
    pub(super) parallel: bool,
    /// The buffer a flat loop writes.
    pub(super) out: Option<Ident>,
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
    pub(super) fn position_along(
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
    pub(super) fn flat_index(&self, shape: &[Dim], index: &[Option<usize>]) -> TokenStream {
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
    pub(super) fn inner(&self) -> Option<usize> {
        self.order.last().copied()
    }

    /// An element of `buf` at `offset + sum(loop var * stride)` (a stride
    /// per loop axis, 0 where it does not move), read or (`write`) written
    /// through a row slice of the innermost loop.
    pub(super) fn row_of(
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
    pub(super) fn flat_loop_in_place(&self, n: &TokenStream, each: &TokenStream) -> TokenStream {
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
    pub(super) fn wrap(&self, inner: TokenStream) -> TokenStream {
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
                        ::jax::__per_level!(for_each_chunk3(&mut #out, ::jax::__rt::par::grain(#cost), #body));
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
