//! The `#[jax::jit]` compiler, as a plain library: tokens in, tokens out.
//!
//! The proc-macro crate `jax-macros` is a thin shim over [`expand_jit`], so
//! that everything here can be unit-tested, fuzzed and benchmarked.

use proc_macro2::TokenStream;

/// Expands `#[jax::jit]` (its arguments are `attr`) applied to `item`.
///
/// The item must be a function or an inline module. Until the compiler
/// pipeline lands, a function is returned unchanged, so it runs on the eager
/// `jnp`/`lax` operations of the runtime; anything else is a spanned error.
pub fn expand_jit(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Vec::new();
    if !attr.is_empty() {
        errors.push(syn::Error::new_spanned(
            &attr,
            "#[jax::jit] takes no arguments yet; write #[jax::jit]",
        ));
    }
    match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Fn(_)) | Ok(syn::Item::Mod(_)) => {}
        Ok(other) => errors.push(syn::Error::new_spanned(
            other,
            "#[jax::jit] applies to a `fn` or an inline `mod`",
        )),
        Err(e) => errors.push(e),
    }
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote::quote! { #(#errors)* #item }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn functions_pass_through() {
        let f = quote! { fn f(x: f32) -> f32 { x } };
        assert_eq!(expand_jit(quote! {}, f.clone()).to_string(), f.to_string());
    }

    #[test]
    fn other_items_are_errors() {
        let out = expand_jit(quote! {}, quote! { struct S; }).to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("applies to a `fn`"), "{out}");
    }
}
