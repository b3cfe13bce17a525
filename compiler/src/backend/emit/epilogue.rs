//! The matmul epilogue: a stored elementwise result whose fused expression
//! reads a plain matrix product (see `fuse::plan`'s `epilogue`) is computed
//! by the product's own output write (`__rt::gemm_epilogue`), element by
//! element while each finished block of the product is in cache, instead of
//! a gemm into a buffer and a loop reading it back.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::loops::level_dispatch;
use super::{is_one, scalar_tokens, Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Var};

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
        if self.reusable_operand(v, aval).is_some() {
            // A dead buffer (a donated parameter) the result can be written
            // over: the product's own buffer and a loop over it (the
            // product's output cannot be a buffer its epilogue reads).
            let da = self.j.aval(d).clone();
            self.kernel(e, d, &da);
            self.materialize_plain(v, aval);
            return;
        }
        let (la, ra) = (self.aval(&e.ins[0]).clone(), self.aval(&e.ins[1]).clone());
        let (m, k, n, (ars, acs), (brs, bcs)) = crate::prims::plain_gemm(&e.params, &la, &ra)
            .expect("fuse::plan checked the product is a plain gemm");
        let lb = self.buffer_of(&e.ins[0], &la);
        let rb = self.buffer_of(&e.ins[1], &ra);
        let mut ep = Epilogue::default();
        let value = self.epilogue_value(&mut ep, &Atom::Var(v), d, m);
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
        self.stmts.push(quote! {
            let #name: ::std::vec::Vec<#ty> = ::jax::__rt::gemm_epilogue::<#ty>(
                #m, #k, #n, &#lb, #ars, #acs, &#rb, #brs, #bcs,
                &|__tile| #dispatch,
            );
        });
        self.finish_buffer(v, aval, name);
    }

    /// The value of `a` at element (`__r`, `__c0 + __j`) of the `m`-row
    /// product `d`'s shape, inside the epilogue: `d` is the element `__x`
    /// the product just wrote; stored arrays are read through a row slice
    /// taken once per row (or a value, for an array broadcast along rows).
    fn epilogue_value(&self, ep: &mut Epilogue, a: &Atom, d: Var, m: usize) -> TokenStream {
        let v = match a {
            Atom::Lit(l) => return scalar_tokens(l),
            Atom::Var(v) if *v == d => return quote!(__x),
            Atom::Var(v) => *v,
        };
        if let Some(t) = ep.memo.get(&v) {
            return t.clone();
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
                    // An axis of size one broadcasts along the product's.
                    let along = |axis: usize, len: bool| -> TokenStream {
                        if is_one(&shape[axis]) && len {
                            quote!(0usize)
                        } else {
                            strides[axis].clone()
                        }
                    };
                    let (s0, s1) = (along(0, m != 1), along(1, true));
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
                let args: Vec<TokenStream> = e
                    .ins
                    .iter()
                    .map(|op| self.epilogue_value(ep, op, d, m))
                    .collect();
                let value = e.prim.scalar_call(&e.params, &args);
                let name: Ident = format_ident!("__e{}", ep.memo.len());
                ep.body.push(quote!(let #name: #ty = #value;));
                quote!(#name)
            }
        };
        ep.memo.insert(v, t.clone());
        t
    }
}
