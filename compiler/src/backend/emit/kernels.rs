//! Runtime calls: kernels (the call of the primitive's
//! [`Kernel`](crate::prims::Kernel), on operands bound as it asks) and the
//! effect of `jax::debug::print!`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Aval, Eqn, Var};
use crate::prims::{dim_tokens, Bind, KernelArgs, Params};

impl Emitter<'_> {
    /// A kernel: the result's buffer (starting as an operand's elements when
    /// the kernel updates one), and the call of the primitive's
    /// [`Kernel`](crate::prims::Kernel), which binds the operands it reads.
    pub(super) fn kernel(&mut self, e: &Eqn, out: Var, aval: &Aval) {
        let Some(kernel) = e.prim.kernel else {
            unreachable!("{} has no kernel", e.prim.name)
        };
        let name = Self::name(out);
        let ty = rust_type(aval.dtype);
        if matches!(e.params, Params::Collective(_)) && !self.device {
            let msg = crate::prims::unmapped_collective(&e.params);
            self.stmts.push(quote!(::core::compile_error!(#msg);));
            self.stmts
                .push(quote!(let #name: ::std::vec::Vec<#ty> = ::std::vec::Vec::new();));
            self.finish_buffer(out, aval, name);
            return;
        }
        if let Some(k) = kernel.updates {
            self.start_as(&name, &ty, &e.ins[k]);
        }
        let avals: Vec<Aval> = e.ins.iter().map(|a| self.aval(a).clone()).collect();
        let dispatched = self.dispatched;
        let out_avals: Vec<Aval> = e.outs.iter().map(|v| self.j.aval(*v).clone()).collect();
        let mut bind = |k: usize, how: Bind| -> TokenStream {
            let a = &e.ins[k];
            let aval = self.aval(a).clone();
            match how {
                Bind::Value if aval.rank() == 0 => self.scalar_of(a),
                Bind::Buffer | Bind::Value => {
                    let b = self.buffer_of(a, &aval);
                    quote!(#b)
                }
            }
        };
        let code = (kernel.call)(KernelArgs {
            params: &e.params,
            avals: &avals,
            out: &name,
            out_aval: aval,
            out_avals: &out_avals,
            bind: &mut bind,
            dispatched,
        });
        if e.outs.len() > 1 {
            // Several results: the code is a tuple of their buffers.
            let names: Vec<proc_macro2::Ident> = e.outs.iter().map(|v| Self::name(*v)).collect();
            let tys: Vec<TokenStream> = out_avals.iter().map(|a| rust_type(a.dtype)).collect();
            self.stmts
                .push(quote!(let (#(#names),*): (#(::std::vec::Vec<#tys>),*) = #code;));
            for ((v, a), n) in e.outs.iter().zip(&out_avals).zip(names) {
                self.finish_buffer(*v, a, n);
            }
            return;
        }
        if kernel.updates.is_some() {
            // Nothing when the update is dropped (names count statements).
            if !code.is_empty() {
                self.stmts.push(code);
            }
        } else {
            self.stmts
                .push(quote!(let #name: ::std::vec::Vec<#ty> = #code;));
        }
        self.finish_buffer(out, aval, name);
    }

    /// `jax::debug::print!`: `println!` with the format string as written,
    /// each argument shown as an `Array` of its shape (numpy's `str`, as
    /// JAX's `debug.print` formats).
    pub(super) fn debug_print(&mut self, e: &Eqn) {
        let Params::DebugPrint { format, names } = &e.params else {
            unreachable!("debug_callback holds its format")
        };
        let mut args = Vec::new();
        for (a, name) in e.ins.iter().zip(names) {
            let aval = self.aval(a).clone();
            let ty = rust_type(aval.dtype);
            let dims: Vec<TokenStream> = aval.shape.iter().map(dim_tokens).collect();
            let data = if aval.rank() == 0 {
                let s = self.scalar_of(a);
                quote!(::std::vec![#s])
            } else {
                let b = self.buffer_of(a, &aval);
                quote!(#b[..].to_vec())
            };
            let value =
                quote!(<::jax::Array<#ty #(, #dims)*> as ::jax::ArrayType>::from_data(#data));
            args.push(match name {
                Some(n) => {
                    let n = format_ident!("{}", n);
                    quote!(#n = #value)
                }
                None => value,
            });
        }
        self.stmts
            .push(quote!(::jax::__rt::debug::print(::std::format_args!(#format #(, #args)*));));
        let name = Self::name(e.outs[0]);
        self.stmts.push(quote!(let #name: bool = false;));
        self.locs.insert(e.outs[0], Loc::Scalar(name));
    }
}
