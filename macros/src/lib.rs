//! `#[jax::jit]`: a thin shim; the compiler lives in `jax-compiler`.

use proc_macro::TokenStream;

/// Compiles a pure array function (or an inline module of them) at compile time.
/// See the `jax` crate's documentation.
#[proc_macro_attribute]
pub fn jit(attr: TokenStream, item: TokenStream) -> TokenStream {
    jax_compiler::set_x64(cfg!(feature = "x64"));
    jax_compiler::expand_jit(attr.into(), item.into()).into()
}

/// Makes a struct with named fields a pytree: writes `impl jax::tree::Pytree`
/// (fields in declaration order) and lets `#[jax::jit]` functions elsewhere
/// take and return it. See the `jax` crate's documentation.
#[proc_macro_derive(Pytree)]
pub fn derive_pytree(item: TokenStream) -> TokenStream {
    jax_compiler::set_x64(cfg!(feature = "x64"));
    jax_compiler::derive_pytree(item.into()).into()
}

/// Hidden: the second pass of `#[jax::jit]` once the fields of the structs
/// its signature names are known (called by the macros `#[derive(jax::Pytree)]`
/// writes).
#[doc(hidden)]
#[proc_macro]
pub fn __jit_with_structs(input: TokenStream) -> TokenStream {
    jax_compiler::set_x64(cfg!(feature = "x64"));
    jax_compiler::jit_with_structs(input.into()).into()
}
