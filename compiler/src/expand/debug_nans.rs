//! `jax_debug_nans` for a compiled function: the check of its outputs and
//! the replay of its program, one operation at a time, on a bad value.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{named, Function};
use crate::backend::body::emit_program;
use crate::backend::emit;
use crate::frontend::parse;
use crate::ir::{Aval, Jaxpr};

/// `jax_debug_nans` for a function: the check of its outputs, run when the
/// flags are on, and the replay it calls on a bad value (`__debug_replay`,
/// an item inside the function, so it sees what the signature names): the
/// traced program again, one operation at a time and unfused, stopping at
/// the first operation that made a NaN (or an infinity) from inputs
/// without one.
pub(super) fn debug_nans(
    f: &Function,
    sig: &parse::Signature,
    traced: &Jaxpr,
    names: &[TokenStream],
    out_avals: &[Aval],
    donating: bool,
) -> syn::Result<(TokenStream, TokenStream, TokenStream)> {
    let fname = &f.sig.ident;
    let outputs: Vec<TokenStream> = names
        .iter()
        .zip(out_avals)
        .filter(|(_, a)| a.dtype.is_float())
        .map(|(n, a)| {
            if a.rank() == 0 {
                quote!(::jax::__rt::debug::bad_scalar(#n))
            } else {
                quote!(::jax::__rt::debug::bad(&#n[..]))
            }
        })
        .collect();
    if outputs.is_empty() {
        return Ok((TokenStream::new(), TokenStream::new(), TokenStream::new()));
    }
    let args: Option<Vec<&syn::Ident>> = f
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) => Some(&i.ident),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let whole = format!("`{fname}` (from its arguments)");
    let Some(args) = args else {
        let check = quote! {
            if ::jax::__rt::debug::active() {
                if let ::std::option::Option::Some(__bad) = ::std::option::Option::None #(.or(#outputs))* {
                    ::jax::__rt::debug::raise(::jax::__rt::debug::error(__bad, "an operation", #whole));
                }
            }
        };
        return Ok((check, TokenStream::new(), TokenStream::new()));
    };
    let replay_found = quote! {
        ::jax::__rt::debug::raise(__found.unwrap_or_else(|| {
            ::jax::__rt::debug::error(__bad, "an argument", #whole)
        }));
    };
    // A size only the result names (`fn f<const B: usize>() -> Array<f32, B>`)
    // cannot be inferred from the arguments.
    let sizes = sig
        .const_generics
        .iter()
        .map(|g| syn::Ident::new(g, proc_macro2::Span::call_site()));
    let turbofish = if sig.const_generics.is_empty() {
        TokenStream::new()
    } else {
        quote!(::<#(#sizes),*>)
    };
    let (check, keep) = if donating {
        // Donated arguments are gone when the outputs are checked: with the
        // flag on, each is cloned first (an `Arc` clone, so donation copies
        // instead of writing over it) for the replay; an argument whose type
        // is not `Clone` leaves the error without the replay.
        let kept: Vec<syn::Ident> = (0..args.len())
            .map(|k| format_ident!("__kept{}", k))
            .collect();
        let keep = quote! {
            let __debug_args = if ::jax::__rt::debug::active() {
                #[allow(unused_imports)]
                use ::jax::__rt::debug::{KeepByClone as _, KeepNothing as _};
                ::std::option::Option::Some((#((&::jax::__rt::debug::Keep(&#args)).keep(),)*))
            } else {
                ::std::option::Option::None
            };
        };
        let check = quote! {
            if ::jax::__rt::debug::active() {
                if let ::std::option::Option::Some(__bad) = ::std::option::Option::None #(.or(#outputs))* {
                    match __debug_args {
                        ::std::option::Option::Some((#(::std::option::Option::Some(#kept),)*)) => {
                            ::jax::__rt::debug::replaying(__bad);
                            let __found = __debug_replay #turbofish (#(#kept),*);
                            #replay_found
                        }
                        _ => ::jax::__rt::debug::raise(::jax::__rt::debug::error(__bad, "an operation", #whole)),
                    }
                }
            }
        };
        (check, keep)
    } else {
        let check = quote! {
            if ::jax::__rt::debug::active() {
                if let ::std::option::Option::Some(__bad) = ::std::option::Option::None #(.or(#outputs))* {
                    ::jax::__rt::debug::replaying(__bad);
                    let __found = __debug_replay #turbofish (#(#args),*);
                    #replay_found
                }
            }
        };
        (check, TokenStream::new())
    };
    let jaxpr = crate::prims::inline_calls(traced);
    let (stmts, _) = emit_program(emit::Emitter::checked(&jaxpr), &jaxpr, named(sig))?;
    let inputs = &f.sig.inputs;
    let (generics, where_clause) = (&f.sig.generics, &f.sig.generics.where_clause);
    let replay = quote! {
        #[doc(hidden)]
        #[cold]
        #[inline(never)]
        #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case, unreachable_code)]
        fn __debug_replay #generics (#inputs) -> ::std::option::Option<::jax::debug::FloatingPointError> #where_clause {
            let __arena = ::jax::__rt::debug::Arena::default();
            let mut __found: ::std::option::Option<::jax::debug::FloatingPointError> = ::std::option::Option::None;
            #(#stmts)*
            __found
        }
    };
    Ok((check, replay, keep))
}
