//! The matmul epilogue: a stored elementwise result whose fused expression
//! reads a plain matrix product (see `fuse::plan`'s `epilogue`) is computed
//! by the product's own output write (`__rt::gemm_epilogue`), element by
//! element while each finished block of the product is in cache, instead of
//! a gemm into a buffer and a loop reading it back.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::per_level::level_dispatch;
use super::{is_one, scalar_tokens, Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Dim, Var};

/// The epilogue closure's code as it is built: per-row reads (`pre`) and
/// the per-element let-bindings (`body`), each value computed once.
#[derive(Default)]
struct Epilogue {
    pre: Vec<TokenStream>,
    body: Vec<TokenStream>,
    memo: HashMap<Var, TokenStream>,
}

impl Emitter<'_> {
    /// Stores `v`, whose fused expression reads the product `d`, through
    /// the product's epilogue.
    pub(super) fn gemm_epilogue(&mut self, v: Var, d: Var, aval: &Aval) {
        let e = self
            .j
            .eqns
            .iter()
            .find(|e| e.outs.contains(&d))
            .expect("the product is an equation's");
        let da = self.j.aval(d).clone();
        // The product as a matrix: rows are all its axes but the last.
        let m = da.shape[..da.rank() - 1]
            .iter()
            .map(|d| match d {
                crate::ir::Dim::Lit(n) => Some(*n),
                crate::ir::Dim::Sym(_) => None,
            })
            .product::<Option<usize>>();
        let mut ep = Epilogue::default();
        let rows = &da.shape[..da.rank() - 1];
        let value = m.and_then(|_| self.epilogue_value(&mut ep, &Atom::Var(v), d, rows));
        let value = match value {
            Some(value) if self.reusable_operand(v, aval).is_none() => value,
            // A dead buffer (a donated parameter) the result can be written
            // over, or an operand whose elements are not evenly spaced along
            // the product's rows: the product's own buffer and a loop over
            // it (the product's output cannot be a buffer its epilogue reads).
            _ => {
                self.kernel(e, d, &da);
                self.materialize_plain(v, aval);
                return;
            }
        };
        let (la, ra) = (self.aval(&e.ins[0]).clone(), self.aval(&e.ins[1]).clone());
        let lb = self.buffer_of(&e.ins[0], &la);
        let rb = self.buffer_of(&e.ins[1], &ra);
        let (pre, body) = (&ep.pre, &ep.body);
        let ty = rust_type(aval.dtype);
        let name = Self::name(v);
        let block = quote! {
            |mut __tile: ::jax::__rt::Tile<'_, #ty>| {
                let __c0 = __tile.c0();
                let __cols = __tile.cols();
                for __i in 0..__tile.rows() {
                    let __r = __tile.r0() + __i;
                    #(#pre)*
                    let __row = &mut __tile.row_mut(__i)[..__cols];
                    for __j in 0..__cols {
                        let __x: #ty = __row[__j];
                        #(#body)*
                        __row[__j] = #value;
                    }
                }
            }
        };
        // The block's loop compiled once per SIMD level: one closure shared
        // by the levels was not inlined into them, so it ran at the baseline
        // level (a `tanh` epilogue called libm's `fmaf` per element).
        let dispatch = level_dispatch(3, &block, quote!(__tile));
        let epilogue = quote!(&|__tile| #dispatch);
        let call = if e.prim.name == "dot_general" {
            let (m, k, n, (ars, acs), (brs, bcs)) = crate::prims::plain_gemm(&e.params, &la, &ra)
                .expect("fuse::plan checked the product is a plain gemm");
            quote! {
                ::jax::__rt::gemm_epilogue::<#ty>(
                    #m, #k, #n, &#lb, #ars, #acs, &#rb, #brs, #bcs, #epilogue,
                )
            }
        } else {
            let (lb, rb) = (quote!(#lb), quote!(#rb));
            crate::prims::conv_call_tokens(&e.params, &ty, [&la, &ra], [&lb, &rb], Some(epilogue))
        };
        self.stmts.push(quote! {
            let #name: ::std::vec::Vec<#ty> = #call;
        });
        self.finish_buffer(v, aval, name);
    }

    /// The value of `a` at element (`__r`, `__c0 + __j`) of the `m`-row
    /// product `d`'s shape, inside the epilogue: `d` is the element `__x`
    /// the product just wrote; stored arrays are read through a row slice
    /// taken once per row (or a value, for an array broadcast along rows).
    fn epilogue_value(
        &self,
        ep: &mut Epilogue,
        a: &Atom,
        d: Var,
        rows: &[Dim],
    ) -> Option<TokenStream> {
        let v = match a {
            Atom::Lit(l) => return Some(scalar_tokens(l)),
            Atom::Var(v) if *v == d => return Some(quote!(__x)),
            Atom::Var(v) => *v,
        };
        if let Some(t) = ep.memo.get(&v) {
            return Some(t.clone());
        }
        let ty = rust_type(self.j.aval(v).dtype);
        let shape = self.j.aval(v).shape.clone();
        let t = match self.locs.get(&v).cloned() {
            Some(Loc::Scalar(n)) => quote!(#n),
            Some(Loc::Splat(t)) => t,
            Some(Loc::View {
                buf,
                offset,
                strides,
            }) => {
                let name = format_ident!("__e{}", ep.memo.len());
                if shape.is_empty() {
                    ep.pre.push(quote!(let #name: #ty = #buf[#offset];));
                    quote!(#name)
                } else {
                    let last = shape.len() - 1;
                    // An axis of size one broadcasts along the product's.
                    let s0 = row_stride(rows, &shape[..last], &strides[..last])?;
                    let s1 = if is_one(&shape[last]) {
                        quote!(0usize)
                    } else {
                        strides[last].clone()
                    };
                    let base = quote!(#offset + __r * #s0);
                    match s1.to_string().as_str() {
                        "0usize" => {
                            ep.pre.push(quote!(let #name: #ty = #buf[#base];));
                            quote!(#name)
                        }
                        "1usize" => {
                            ep.pre.push(
                                quote!(let #name = &#buf[#base + __c0..#base + __c0 + __cols];),
                            );
                            quote!(#name[__j])
                        }
                        _ => quote!(#buf[#base + (__c0 + __j) * #s1]),
                    }
                }
            }
            Some(Loc::Fused) | None => {
                let e = self
                    .j
                    .eqns
                    .iter()
                    .find(|e| e.outs.contains(&v))
                    .expect("every variable is defined by an equation");
                let mut args = Vec::with_capacity(e.ins.len());
                for op in &e.ins {
                    args.push(self.epilogue_value(ep, op, d, rows)?);
                }
                let value = e.prim.scalar_call(&e.params, &args);
                let name: Ident = format_ident!("__e{}", ep.memo.len());
                ep.body.push(quote!(let #name: #ty = #value;));
                quote!(#name)
            }
        };
        ep.memo.insert(v, t.clone());
        Some(t)
    }
}

/// The distance between consecutive rows of the product (its axes but the
/// last, `rows`, flattened) in a view with these `strides` over `shape`'s
/// leading axes (each the product's length, or one where it broadcasts):
/// zero when every row reads the same elements, or `None` when the rows
/// are not evenly spaced (a broadcast along some of the axes only, or a
/// transposed view).
fn row_stride(rows: &[Dim], shape: &[Dim], strides: &[TokenStream]) -> Option<TokenStream> {
    let axes: Vec<usize> = (0..rows.len()).filter(|&a| !is_one(&rows[a])).collect();
    let broadcast = |a: usize| is_one(&shape[a]);
    if axes.iter().all(|&a| broadcast(a)) {
        return Some(quote!(0usize));
    }
    if let [a] = axes.as_slice() {
        return Some(strides[*a].clone());
    }
    let lit = |t: &TokenStream| -> Option<usize> {
        t.to_string().strip_suffix("usize")?.trim().parse().ok()
    };
    let mut s = Vec::with_capacity(axes.len());
    for &a in &axes {
        s.push(if broadcast(a) { 0 } else { lit(&strides[a])? });
    }
    for (w, pair) in axes.windows(2).zip(s.windows(2)) {
        let Dim::Lit(len) = rows[w[1]] else {
            return None;
        };
        if pair[0] != pair[1] * len {
            return None;
        }
    }
    Some(strides[*axes.last()?].clone())
}
