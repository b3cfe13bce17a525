//! Reading the macro's expansion in tests.

use proc_macro2::TokenStream;

/// The expansion of `#[jax::jit]` on `src`, without the unfused replay
/// `jax_debug_nans` runs.
pub fn expanded(src: &str) -> String {
    let item: TokenStream = src.parse().unwrap();
    let code = jax_compiler::expand_jit(TokenStream::new(), item).to_string();
    // The replay ends by returning the first error it found.
    let end = "__found }";
    match (code.find("fn __debug_replay"), code.find(end)) {
        (Some(a), Some(b)) => format!("{}{}", &code[..a], &code[b + end.len()..]),
        _ => code,
    }
}

/// How many buffers the code allocates.
pub fn buffers(code: &str) -> usize {
    code.matches(":: jax :: __rt :: buffer").count()
}
