//! Any text that is a token stream goes through `#[jax::jit]`'s entry point:
//! it must not panic, and its output must parse as items.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(item) = text.parse::<proc_macro2::TokenStream>() else {
        return;
    };
    let out = jax_compiler::expand_jit(proc_macro2::TokenStream::new(), item);
    syn::parse2::<syn::File>(out).expect("the macro's output parses");
});
