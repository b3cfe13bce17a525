//! `#[jax::jit]`: a thin shim; the compiler lives in `jax-compiler`.

use proc_macro::TokenStream;

/// Compiles a pure array function (or an inline module of them) at compile time.
/// See the `jax` crate's documentation.
#[proc_macro_attribute]
pub fn jit(attr: TokenStream, item: TokenStream) -> TokenStream {
    jax_compiler::expand_jit(attr.into(), item.into()).into()
}
