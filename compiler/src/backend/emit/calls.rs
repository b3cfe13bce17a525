//! `jit` calls: a body `prims::inline_calls` kept as a call (called often
//! enough, by programs equal up to their variables' numbers, to be worth a
//! function of its own) is emitted once, as a nested `fn` of the function
//! being emitted, and each call calls it; so an unrolled loop of calls
//! costs rustc one body. Where a nested function cannot stand (a body with
//! symbolic sizes, which name the enclosing function's const generics, or
//! one inside a device's closure, a loop compiled per SIMD level or a row
//! program), the call is emitted in place, as a block. The `jax_debug_nans`
//! replay calls a checked function of its own per body, which returns the
//! first operation it found producing a NaN or infinity beside its results.

use std::cell::RefCell;
use std::rc::Rc;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::Emitter;
use crate::ir::rust_type;
use crate::ir::{Dim, Eqn, Jaxpr};
use crate::prims::JitCall;

/// The functions emitted for `jit` bodies, shared by an emitter and the
/// emitters of the programs nested in it; the one that made it
/// ([`Calls::root`]) writes their definitions into its statements.
#[derive(Default)]
pub(super) struct Calls {
    /// Each body emitted as a function, whether it is the replay's checked
    /// one, and the function's name.
    bodies: Vec<(Jaxpr, bool, Ident)>,
    /// Their definitions.
    items: Vec<TokenStream>,
}

thread_local! {
    /// The registry of the `#[jax::jit] mod` being expanded (see
    /// [`in_module`]).
    static MODULE: RefCell<Option<Rc<RefCell<Calls>>>> = const { RefCell::new(None) };
}

/// The registry an emitter of a whole function starts with, and whether it
/// writes the definitions itself: a fresh one, unless a `#[jax::jit] mod`
/// is being expanded, whose functions and their derivatives share one
/// whose definitions the module holds.
pub(super) fn registry() -> (Rc<RefCell<Calls>>, bool) {
    match MODULE.with(|m| m.borrow().clone()) {
        Some(calls) => (calls, false),
        None => (Rc::new(RefCell::new(Calls::default())), true),
    }
}

/// Runs `f` (the expansion of a `#[jax::jit] mod`'s items) with one
/// registry of bodies for all of them, and returns the definitions of the
/// bodies emitted, which the module holds: its functions, methods and
/// companion modules (`use super::*`) call them by name.
pub(crate) fn in_module<T>(f: impl FnOnce() -> T) -> (T, Vec<TokenStream>) {
    let calls = Rc::new(RefCell::new(Calls::default()));
    let outer = MODULE.with(|m| m.replace(Some(calls.clone())));
    let r = f();
    MODULE.with(|m| *m.borrow_mut() = outer);
    let items = std::mem::take(&mut calls.borrow_mut().items);
    (r, items)
}

impl Emitter<'_> {
    /// A `jit` call: a call of its body's function, or the body in place.
    pub(super) fn call(&mut self, e: &Eqn, c: &JitCall) -> syn::Result<()> {
        let k = self.stmts.len();
        let mut args = Vec::new();
        for (i, a) in e.ins.iter().enumerate() {
            args.push(self.bind_operand(a, &format_ident!("__arg{}_{}", k, i)));
        }
        let names: Vec<Ident> = (0..e.outs.len())
            .map(|i| format_ident!("__call{}_{}", k, i))
            .collect();
        match self.body_fn(&c.body)? {
            Some(f) if self.replay.is_some() => {
                let args = args.iter().map(|(a, _)| a);
                self.stmts.push(quote! {
                    let (#(#names,)* __first) = #f(#(#args),*);
                    if __found.is_none() {
                        __found = __first;
                    }
                });
            }
            Some(f) => {
                let args = args.iter().map(|(a, _)| a);
                self.stmts.push(quote!(let (#(#names,)*) = #f(#(#args),*);));
            }
            None => {
                let value = self.sub_block(&c.body, &args)?;
                self.stmts.push(quote!(let (#(#names,)*) = #value;));
            }
        }
        self.bind_outputs(&e.outs, &names);
        Ok(())
    }

    /// The function computing `body`, emitted on its first call, or `None`
    /// where the call is emitted in place.
    fn body_fn(&mut self, body: &Jaxpr) -> syn::Result<Option<Ident>> {
        let symbolic = body
            .invars
            .iter()
            .map(|v| body.aval(*v))
            .chain(
                body.eqns
                    .iter()
                    .flat_map(|e| e.outs.iter().map(|v| body.aval(*v))),
            )
            .any(|a| a.shape.iter().any(|d| matches!(d, Dim::Sym(_))));
        if symbolic || self.device || self.dispatched || self.target.is_some() {
            return Ok(None);
        }
        let checked = self.replay.is_some();
        if let Some((_, _, f)) = self
            .calls
            .borrow()
            .bodies
            .iter()
            .find(|(b, c, _)| *c == checked && crate::ir::same_program(b, body))
        {
            return Ok(Some(f.clone()));
        }
        let n = self.calls.borrow().bodies.len();
        let f = format_ident!("__jax_{}{}", if checked { "checked" } else { "body" }, n);
        self.calls
            .borrow_mut()
            .bodies
            .push((body.clone(), checked, f.clone()));
        let mut j = body.clone();
        crate::transform::simplify::simplify(&mut j);
        let mut em = if checked {
            Emitter::checked(&j)
        } else {
            Emitter::new(&j)
        };
        em.calls = self.calls.clone();
        em.root = false;
        for (v, values) in &j.constvars {
            em.constant(*v, values);
        }
        let mut params = Vec::new();
        for (k, v) in j.invars.iter().enumerate() {
            let p = format_ident!("__in{}", k);
            let aval = j.aval(*v);
            let ty = rust_type(aval.dtype);
            if aval.rank() == 0 {
                params.push(quote!(#p: #ty));
                em.input_data(*v, quote!(&[]), Some(quote!(#p)));
            } else {
                params.push(quote!(#p: &[#ty]));
                em.input_data(*v, quote!(#p), None);
            }
        }
        em.eqns()?;
        let (stmts, outs) = em.finish();
        let mut tys: Vec<TokenStream> = j
            .outvars
            .iter()
            .map(|a| {
                let aval = j.atom_aval(a);
                let ty = rust_type(aval.dtype);
                if aval.rank() == 0 {
                    quote!(#ty)
                } else {
                    quote!(::std::vec::Vec<#ty>)
                }
            })
            .collect();
        let (prelude, found) = if checked {
            tys.push(quote!(
                ::std::option::Option<::jax::debug::FloatingPointError>
            ));
            let prelude = quote! {
                let __arena = ::jax::__rt::debug::Arena::default();
                let mut __found: ::std::option::Option<::jax::debug::FloatingPointError> =
                    ::std::option::Option::None;
            };
            (prelude, quote!(__found,))
        } else {
            (TokenStream::new(), TokenStream::new())
        };
        let cold = checked.then(|| quote!(#[cold]));
        self.calls.borrow_mut().items.push(quote! {
            #cold
            #[inline(never)]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case, unreachable_code)]
            fn #f(#(#params),*) -> (#(#tys,)*) {
                #prelude
                #(#stmts)*
                (#(#outs,)* #found)
            }
        });
        Ok(Some(f))
    }

    /// The definitions of the functions emitted for `jit` bodies, for the
    /// emitter that made the registry to write.
    pub(super) fn call_items(&self) -> Vec<TokenStream> {
        if self.root {
            std::mem::take(&mut self.calls.borrow_mut().items)
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    /// A mod whose `run` calls `step` (twenty equations) `n` times in an
    /// unrolled loop, and differentiates it.
    fn expanded(n: usize) -> String {
        let src = format!(
            "mod m {{
                pub fn step(x: Array<f32, 64>) -> Array<f32, 64> {{
                    let mut y = x.clone();
                    for _k in 0..10 {{
                        y = jnp::sin(&y) * 0.5 + &x;
                    }}
                    y
                }}
                pub fn run(x: Array<f32, 64>) -> Array<f32> {{
                    let mut x = x;
                    for _t in 0..{n} {{
                        x = step(x);
                    }}
                    jnp::sum(x)
                }}
                pub fn run_grad(x: Array<f32, 64>) -> Array<f32, 64> {{
                    jax::grad(run)(x)
                }}
            }}"
        );
        let item: proc_macro2::TokenStream = syn::parse_str(&src).unwrap();
        crate::expand_jit(proc_macro2::TokenStream::new(), item).to_string()
    }

    #[test]
    fn an_unrolled_loop_of_calls_emits_one_body_per_program() {
        let (short, long) = (expanded(40), expanded(80));
        assert!(!short.contains("compile_error"), "{short}");
        // One function per program (the step, its derivatives' halves, the
        // replay's checked copies), however long the loop.
        let bodies = |code: &str| code.matches("fn __jax_").count();
        assert!(bodies(&short) > 0);
        assert_eq!(bodies(&short), bodies(&long));
        // `run` calls the step's body once per iteration.
        assert!(long.matches("__jax_body0 (").count() >= 80);
        // Twice the iterations cost their calls, not twice the code: the
        // emitted `sin`s (tokens, not the printed programs' text) are the
        // bodies' alone.
        let sins = |code: &str| code.matches(":: ops :: sin").count();
        assert_eq!(sins(&short), sins(&long));
        // The printed programs show the calls inlined, as JAX traces a
        // Python function's call.
        assert!(!short.contains("jit["), "a call printed as `jit`");
    }
}
