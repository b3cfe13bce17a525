//! `shard_map`: its body emitted once, as a closure that `__rt::spmd` runs
//! on every device of the mesh, concurrently. Each device reads its block
//! of the split operands (a slice when the split axis is the first, a copy
//! otherwise) and the whole of the others; the devices' result blocks are
//! placed along their axes afterwards. The body's collectives call the
//! runtime with the closure's `__dev`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::Emitter;
use crate::ir::rust_type;
use crate::ir::{Dim, Eqn};
use crate::prims::{size_tokens, ShardMap};

/// The sizes before, along and after axis `axis` of one device's block.
fn split(shape: &[Dim], axis: usize, n: usize) -> (TokenStream, usize, TokenStream) {
    let len = match &shape[axis] {
        Dim::Lit(k) => k / n,
        Dim::Sym(_) => unreachable!("shard_map splits axes of known size"),
    };
    (
        size_tokens(&shape[..axis]),
        len,
        size_tokens(&shape[axis + 1..]),
    )
}

impl Emitter<'_> {
    pub(super) fn shard_map(&mut self, e: &Eqn, s: &ShardMap) -> syn::Result<()> {
        if self.device {
            return Err(syn::Error::new(
                e.span,
                "a `jax::pmap` inside another `jax::pmap` is not supported: map one axis over the devices, and `jax::vmap` the other",
            ));
        }
        let k = self.stmts.len();
        let n = s.size;
        let d = format_ident!("__device{}", k);
        let mut inputs = Vec::new();
        for (i, (a, spec)) in e.ins.iter().zip(&s.in_specs).enumerate() {
            let aval = self.aval(a).clone();
            let (expr, scalar) = self.bind_operand(a, &format_ident!("__operand{}_{}", k, i));
            let Some(axis) = *spec else {
                inputs.push((expr, scalar));
                continue;
            };
            let (outer, len, inner) = split(&aval.shape, axis, n);
            inputs.push(if axis == 0 {
                let size = quote!((#len * #inner));
                (quote!(&#expr[#d * #size..(#d + 1) * #size]), false)
            } else {
                (
                    quote!(&::jax::__rt::spmd::block(#expr, #outer, #len, #inner, #d, #n)[..]),
                    false,
                )
            });
        }
        self.device = true;
        let block = self.sub_block(&s.body, &inputs);
        self.device = false;
        let block = block?;
        let shards = format_ident!("__shards{}", k);
        self.stmts.push(quote! {
            let #shards = ::jax::__rt::spmd::shard_map(
                #n,
                &|__dev: &::jax::__rt::spmd::Dev<'_>| {
                    let #d: usize = __dev.index();
                    #block
                },
            );
        });
        let mut names: Vec<Ident> = Vec::new();
        for (j, (out, spec)) in e.outs.iter().zip(&s.out_specs).enumerate() {
            let aval = self.j.aval(*out).clone();
            let ty = rust_type(aval.dtype);
            let name = format_ident!("__shard{}_{}", k, j);
            let field = syn::Index::from(j);
            let piece = if self.j.aval(*out).rank() == 0 {
                quote!(|r| ::std::slice::from_ref(&r.#field))
            } else {
                quote!(|r| &r.#field[..])
            };
            let value = match spec {
                Some(axis) => {
                    let (outer, len, inner) = split(&aval.shape, *axis, n);
                    quote!(::jax::__rt::spmd::stack(&#shards, #piece, #outer, #len, #inner))
                }
                None => quote!(::jax::__rt::spmd::replicated(&#shards, #piece)),
            };
            if aval.rank() == 0 {
                self.stmts.push(quote!(let #name: #ty = #value[0];));
            } else {
                self.stmts
                    .push(quote!(let #name: ::std::vec::Vec<#ty> = #value;));
            }
            names.push(name);
        }
        self.stmts.push(quote!(drop(#shards);));
        self.bind_outputs(&e.outs, &names);
        Ok(())
    }
}
