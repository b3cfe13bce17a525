//! The `#[jax::jit]` compiler, as a plain library: tokens in, tokens out.
//!
//! The proc-macro crate `jax-macros` is a thin shim over [`expand_jit`], so
//! that everything here can be unit-tested, fuzzed and benchmarked.
//!
//! Pipeline, one module per phase:
//! - [`parse`] (with [`lower`] and [`jnp`]): traces the body into a jaxpr
//!   ([`ir`]), rejecting what cannot be traced, with spans;
//! - [`trace`]: binds primitives, running each one's abstract evaluation
//!   ([`prims`], with [`shapes`] for symbolic dimensions): dtype and shape
//!   inference happen at every equation, as in JAX;
//! - [`print`]: renders the traced jaxpr as `jax.make_jaxpr` does;
//! - [`simplify`]: identities, common subexpressions, dead code;
//! - [`fuse`]: which results are computed inside their consumers' loops;
//! - [`emit`]: loop nests, views and kernel calls as Rust tokens.

pub mod emit;
pub mod fuse;
pub mod ir;
pub mod jnp;
pub mod lower;
pub mod parse;
pub mod pretty;
pub mod prims;
pub mod print;
pub mod shapes;
pub mod simplify;
pub mod trace;
pub mod types;

use proc_macro2::TokenStream;
use quote::quote;

/// Whether the `x64` feature (JAX_ENABLE_X64) is on.
pub const X64: bool = cfg!(feature = "x64");

/// Traces a function and returns its jaxpr text, or the errors.
pub fn jaxpr_text(f: &syn::ItemFn) -> Result<String, syn::Error> {
    let sig = parse::signature(f)?;
    let t = parse::trace_fn(f, &sig, X64)?;
    Ok(print::print_jaxpr(&t.b.jaxpr))
}

/// Compiles a function: the new function (same signature, a fused body)
/// and its jaxpr text.
pub fn compile_fn(f: &syn::ItemFn) -> Result<(TokenStream, String), syn::Error> {
    let sig = parse::signature(f)?;
    let t = parse::trace_fn(f, &sig, X64)?;
    let text = print::print_jaxpr(&t.b.jaxpr);
    let mut simplified = t.b.jaxpr.clone();
    simplify::simplify(&mut simplified);
    let jaxpr = &simplified;
    let mut em = emit::Emitter::new(jaxpr);
    let mut next = 0;
    for (name, spec) in &sig.params {
        bind_inputs(&mut em, jaxpr, quote!(#name), spec, &mut next);
    }
    em.eqns()?;
    let (stmts, outs) = em.finish();
    let syn::ReturnType::Type(_, ret_ty) = &f.sig.output else {
        unreachable!("signature() requires a return type")
    };
    let out_avals: Vec<ir::Aval> = jaxpr
        .outvars
        .iter()
        .map(|a| jaxpr.atom_aval(a).clone())
        .collect();
    let mut k = 0;
    let result = build_result(ret_ty, &sig.ret, &outs, &out_avals, &mut k);
    let checks = t.b.constraints.equal.iter().map(|(a, b, msg)| {
        let (a, b) = (emit::dim_tokens(a), emit::dim_tokens(b));
        quote!(const { ::std::assert!(#a == #b, #msg) };)
    });
    let attrs = &f.attrs;
    let vis = &f.vis;
    let fsig = &f.sig;
    let body = quote! {
        #(#attrs)*
        #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
        #vis #fsig {
            #(#checks)*
            #(#stmts)*
            #result
        }
    };
    Ok((body, text))
}

/// Binds each array leaf of a parameter to its input variable.
fn bind_inputs(
    em: &mut emit::Emitter,
    j: &ir::Jaxpr,
    expr: TokenStream,
    spec: &types::TypeSpec,
    next: &mut usize,
) {
    match spec {
        types::TypeSpec::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                let idx = syn::Index::from(i);
                bind_inputs(em, j, quote!(#expr.#idx), item, next);
            }
        }
        types::TypeSpec::Scalar(_) => {
            em.input(j.invars[*next], expr, true);
            *next += 1;
        }
        types::TypeSpec::Array { .. } => {
            em.input(j.invars[*next], expr, false);
            *next += 1;
        }
    }
}

/// The function's result from the output expressions, in the written type.
fn build_result(
    ty: &syn::Type,
    spec: &types::TypeSpec,
    outs: &[TokenStream],
    avals: &[ir::Aval],
    k: &mut usize,
) -> TokenStream {
    match (spec, ty) {
        (types::TypeSpec::Tuple(items), syn::Type::Tuple(t)) => {
            let parts: Vec<TokenStream> = items
                .iter()
                .zip(&t.elems)
                .map(|(s, ty)| build_result(ty, s, outs, avals, k))
                .collect();
            quote!((#(#parts,)*))
        }
        (_, syn::Type::Paren(p)) => build_result(&p.elem, spec, outs, avals, k),
        (types::TypeSpec::Scalar(_), _) => {
            let o = &outs[*k];
            *k += 1;
            quote!(#o)
        }
        _ => {
            let (o, aval) = (&outs[*k], &avals[*k]);
            *k += 1;
            let data = if aval.rank() == 0 {
                quote!(::std::vec![#o])
            } else {
                quote!(#o)
            };
            let weak = aval.weak;
            quote!(<#ty as ::jax::ArrayType>::set_weak(<#ty as ::jax::ArrayType>::from_data(#data), #weak))
        }
    }
}

/// Expands `#[jax::jit]` (its arguments are `attr`) applied to `item`.
///
/// A function is replaced by its compiled form, with a companion module of
/// the same name holding `jaxpr()`. On errors, the errors are reported at
/// the user's tokens and the function is emitted unchanged, so callers and
/// IDEs keep working.
pub fn expand_jit(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Vec::new();
    if !attr.is_empty() {
        errors.push(syn::Error::new_spanned(
            &attr,
            "#[jax::jit] takes no arguments yet; write #[jax::jit]",
        ));
    }
    let output = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Fn(f)) => match compile_fn(&f) {
            Ok((compiled, text)) => {
                let name = &f.sig.ident;
                let vis = &f.vis;
                let doc = format!("Transformations of [`{name}`], generated by `#[jax::jit]`.");
                quote! {
                    #compiled
                    #[doc = #doc]
                    #[allow(non_snake_case)]
                    #vis mod #name {
                        /// The traced program, printed like `jax.make_jaxpr`.
                        #[allow(dead_code)]
                        pub fn jaxpr() -> ::jax::Jaxpr {
                            ::jax::Jaxpr::from_text(#text)
                        }
                    }
                }
            }
            Err(e) => {
                errors.push(e);
                item
            }
        },
        Ok(syn::Item::Mod(_)) => item,
        Ok(other) => {
            errors.push(syn::Error::new_spanned(
                other,
                "#[jax::jit] applies to a `fn` or an inline `mod`",
            ));
            item
        }
        Err(e) => {
            errors.push(e);
            item
        }
    };
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote! { #(#errors)* #output }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_get_a_companion_module() {
        let f = quote! { fn f(x: f32) -> f32 { x } };
        let out = expand_jit(quote! {}, f).to_string();
        assert!(out.contains("fn f (x : f32) -> f32"), "{out}");
        assert!(out.contains("mod f"), "{out}");
        assert!(out.contains("{ lambda ; a:f32[]. let  in (a,) }"), "{out}");
    }

    #[test]
    fn errors_keep_the_original_function() {
        let f = quote! { fn f(x: f32) -> f32 { println!("hi"); x } };
        let out = expand_jit(quote! {}, f).to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("println"), "{out}");
    }

    #[test]
    fn other_items_are_errors() {
        let out = expand_jit(quote! {}, quote! { struct S; }).to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("applies to a `fn`"), "{out}");
    }
}
