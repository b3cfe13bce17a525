//! The `jax_debug_nans` replay: the function run again unfused when it made
//! a NaN or an infinity, each operation that computes floats checked, and
//! the first one that made a bad value from clean inputs reported.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{is_one, scalar_tokens, Emitter, Loc};
use crate::ir::rust_type;
use crate::ir::{Atom, Aval, Eqn, Var};
use crate::prims::{dim_tokens, Lowering};

/// The replay's state.
#[derive(Default)]
pub(super) struct Replay {
    /// The flag of whether the inputs of the equation being emitted were
    /// free of bad values.
    clean: Option<Ident>,
}

impl Emitter<'_> {
    /// The bad value test of a float atom (see `__rt::debug`), if it has one.
    fn bad_test(&self, a: &Atom) -> Option<TokenStream> {
        if !self.aval(a).dtype.is_float() {
            return None;
        }
        Some(match a {
            Atom::Lit(l) => {
                let v = scalar_tokens(l);
                quote!(::jax::__rt::debug::bad_scalar(#v))
            }
            Atom::Var(v) => match &self.locs[v] {
                Loc::Scalar(n) => quote!(::jax::__rt::debug::bad_scalar(#n)),
                Loc::Splat(t) => quote!(::jax::__rt::debug::bad_scalar(#t)),
                Loc::View { buf, .. } => quote!(::jax::__rt::debug::bad(&#buf[..])),
                Loc::Fused => return None,
            },
        })
    }

    /// Whether `e`'s inputs are free of bad values, before `e` runs (it
    /// may update an input's buffer in place).
    pub(super) fn check_inputs(&mut self, e: &Eqn) {
        let clean = format_ident!("__clean{}", self.stmts.len());
        let ins: Vec<TokenStream> = e.ins.iter().filter_map(|a| self.bad_test(a)).collect();
        self.stmts
            .push(quote!(let #clean: bool = true #(&& #ins.is_none())*;));
        self.replay.as_mut().expect("replaying").clean = Some(clean);
    }

    /// Stops the replay at `e` if it made a bad value from clean inputs.
    pub(super) fn check_outputs(&mut self, e: &Eqn) {
        let clean = self
            .replay
            .as_mut()
            .and_then(|r| r.clean.take())
            .expect("inputs checked first");
        let outs: Vec<TokenStream> = e
            .outs
            .iter()
            .filter_map(|v| self.bad_test(&Atom::Var(*v)))
            .collect();
        if outs.is_empty() {
            return;
        }
        let prim = e.prim.name;
        let location = source_location(e.span);
        // The first error is kept and the replay runs on: one exit instead
        // of one per operation, each dropping every live buffer, which made
        // a long replay's compile time grow with the square of its length.
        self.stmts.push(quote! {
            if #clean && __found.is_none() {
                if let ::std::option::Option::Some(__bad) = ::std::option::Option::None #(.or(#outs))* {
                    __found = ::std::option::Option::Some(::jax::__rt::debug::error(__bad, #prim, #location));
                }
            }
        });
    }

    /// Whether `replay_map` can run `e`: an elementwise array operation of
    /// one to three operands, each a literal, a scalar or a view of a buffer.
    pub(super) fn replayable(&self, e: &Eqn) -> bool {
        e.prim.lowering == Lowering::Elementwise
            && self.j.aval(e.outs[0]).rank() > 0
            && (1..=3).contains(&e.ins.len())
            && e.ins.iter().all(|a| match a {
                Atom::Lit(_) => true,
                Atom::Var(v) => !matches!(self.locs.get(v), Some(Loc::Fused) | None),
            })
    }

    /// An elementwise operation in the `jax_debug_nans` replay: one call of
    /// the runtime's `debug::mapN` with the operation as a function pointer
    /// (see there), instead of a loop of its own; it also keeps the error if
    /// the operation made a bad value from clean operands.
    pub(super) fn replay_map(&mut self, e: &Eqn, out: Var, aval: &Aval) {
        let mut operands = Vec::new();
        let mut params = Vec::new();
        let mut args = Vec::new();
        for (k, a) in e.ins.iter().enumerate() {
            let a_aval = self.aval(a).clone();
            let loc = match a {
                Atom::Var(v) => self.locs.get(v),
                Atom::Lit(_) => None,
            };
            let view =
                match (a, loc) {
                    (
                        Atom::Var(_),
                        Some(Loc::View {
                            buf,
                            offset,
                            strides,
                        }),
                    ) if a_aval.rank() > 0 => {
                        // Size-1 axes broadcast, as `eval` reads them.
                        let strides = strides.iter().zip(&a_aval.shape).zip(&aval.shape).map(
                            |((s, od), md)| {
                                if is_one(od) && !is_one(md) {
                                    quote!(0usize)
                                } else {
                                    s.clone()
                                }
                            },
                        );
                        quote!(::jax::__rt::debug::view(&#buf[..], #offset, &[#(#strides),*]))
                    }
                    _ => {
                        let x = self.scalar_of(a);
                        quote!(::jax::__rt::debug::scalar(&#x))
                    }
                };
            operands.push(view);
            let p = format_ident!("__a{}", k);
            let ty = rust_type(a_aval.dtype);
            params.push(quote!(#p: #ty));
            args.push(quote!(#p));
        }
        let map = format_ident!("map{}", e.ins.len());
        let ty = rust_type(aval.dtype);
        // The runtime's function itself where the primitive has no scalar
        // expression of its own, so that operations of one kind and type
        // share one function.
        let f = match e.prim.scalar {
            None => {
                let f = format_ident!("{}", e.prim.name);
                quote!(::jax::__rt::ops::#f)
            }
            Some(_) => {
                let value = e.prim.scalar_call(&e.params, &args);
                quote!(|#(#params),*| -> #ty { #value })
            }
        };
        let shape: Vec<TokenStream> = aval.shape.iter().map(dim_tokens).collect();
        let name = Self::name(out);
        let prim = e.prim.name;
        let location = source_location(e.span);
        let site = quote!((#prim, #location));
        self.stmts.push(quote! {
            let #name: &[#ty] = ::jax::__rt::debug::#map(&__arena, &mut __found, #site, &[#(#shape),*], #(#operands,)* #f);
        });
        // In the arena, not owned: never written over, moved or returned.
        self.bind_buffer(out, aval, name);
    }
}

/// `file:line:column` of the user's expression, as `jax_debug_nans` reports it.
fn source_location(span: proc_macro2::Span) -> String {
    let at = span.start();
    format!("{}:{}:{}", span.file(), at.line, at.column + 1)
}
