//! The `#[jax::jit]` compiler, as a plain library: tokens in, tokens out.
//!
//! The proc-macro crate `jax-macros` is a thin shim over [`expand_jit`], so
//! that everything here can be unit-tested, fuzzed and benchmarked.
//!
//! The phases are folders, each using only those listed before it
//! (crate-private; `ARCHITECTURE.md` at the repository's root walks through
//! them), above `jax-core`'s `ir` (the jaxpr and the builder), `prims`
//! (every primitive with its rules) and `transform` (differentiation,
//! batching, simplification):
//! - `frontend`: traces a Rust body into a jaxpr, rejecting what cannot be
//!   traced, with spans;
//! - `backend`: fusion, loop nests, views and kernel calls as Rust tokens,
//!   and `f::cost_analysis()`;
//! - `expand`: the entry, the compiled function and its companion module.

pub(crate) mod backend;
pub(crate) mod expand;
pub(crate) mod frontend;
// The documented limits of a body and the stack the expansion runs on:
// every phase checks them, so they stand beside the phases.
pub(crate) mod limits;

// The jaxpr, the primitives and the transformations live in `jax-core`,
// which the runtime can link without a Rust parser; here they keep their
// paths (`crate::ir`, `crate::prims`, `crate::transform`).
pub(crate) use jax_core::{ir, prims, transform};

#[cfg(test)]
mod core_tests;
// The compiler's tests through its public entry points (tokens in, jaxprs
// and tokens out): modules of the unit-test binary, one build and one link
// for all of them. They name the crate as a user would.
#[cfg(test)]
extern crate self as jax_compiler;
#[cfg(test)]
mod integration_tests;

use proc_macro2::TokenStream;

/// Whether JAX_ENABLE_X64 is on for the crate being compiled. The shim
/// (`jax-macros`, whose `x64` feature the `jax` crate's turns on) sets it
/// at each entry point, so that turning x64 on rebuilds the shim and not
/// this crate; this crate's own `x64` feature is the default, for its tests.
static X64_ON: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(cfg!(feature = "x64"));

/// Whether JAX_ENABLE_X64 is on (see [`set_x64`]).
pub fn x64() -> bool {
    X64_ON.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sets JAX_ENABLE_X64 for the expansions that follow: the shim calls it
/// with its `x64` feature before each entry point.
pub fn set_x64(on: bool) {
    X64_ON.store(on, std::sync::atomic::Ordering::Relaxed)
}

/// Traces a function and returns its jaxpr text, or the errors.
pub fn jaxpr_text(f: &syn::ItemFn) -> Result<String, syn::Error> {
    let sig = frontend::parse::signature(f)?;
    let t = frontend::parse::trace_fn(f, &sig, x64())?;
    Ok(ir::print::print_jaxpr(&prims::inline_mod_calls(&t.b.jaxpr)))
}

/// Reads jaxpr text as `jax.make_jaxpr` prints it (what
/// `#[jax::jit(import = ..)]` compiles) and prints the program read, or the
/// error with its line and column. On text this crate printed, the identity.
pub fn reprint_jaxpr(text: &str) -> Result<String, String> {
    let j = ir::parse::parse_jaxpr(
        text,
        &prims::by_name,
        frontend::parse::known_custom_jvp,
        proc_macro2::Span::call_site(),
    )
    .map_err(|e| e.to_string())?;
    Ok(ir::print::print_jaxpr(&j))
}

/// Expands `#[jax::jit]` (its arguments are `attr`) applied to `item`: a
/// function, or an inline module whose functions are all compiled.
///
/// A function is replaced by its compiled form, with a companion module of
/// the same name holding `jaxpr()`. On errors, the errors are reported at
/// the user's tokens and the item is emitted unchanged, so callers and IDEs
/// keep working.
pub fn expand_jit(attr: TokenStream, item: TokenStream) -> TokenStream {
    // A panic would be a bug of ours; the user gets a spanned error asking
    // for a report instead of "proc macro panicked".
    let at = item.clone();
    limits::on_large_stack(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| expand::expand(attr, item)))
    })
    .unwrap_or_else(|_| {
            syn::Error::new_spanned(
                at,
                "internal error in #[jax::jit] (the compiler panicked); please report it with this function",
            )
            .to_compile_error()
        })
}

/// `#[derive(jax::Pytree)]`: `impl ::jax::tree::Pytree` for a struct with
/// named fields, and the macro through which `#[jax::jit]` reads its fields
/// where a signature names it.
pub fn derive_pytree(item: TokenStream) -> TokenStream {
    let at = item.clone();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        expand::pytree::derive(item)
    }))
    .unwrap_or_else(|_| {
        syn::Error::new_spanned(
            at,
            "internal error in #[derive(jax::Pytree)]; please report it",
        )
        .to_compile_error()
    })
}

/// The hidden second pass of `#[jax::jit]` on a function whose signature
/// names structs defined elsewhere: their fields, collected by their
/// `#[derive(jax::Pytree)]` macros, then the attribute's arguments and the
/// function.
pub fn jit_with_structs(input: TokenStream) -> TokenStream {
    let at = input.clone();
    limits::on_large_stack(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            expand::expand_with_structs(input)
        }))
    })
    .unwrap_or_else(|_| {
            syn::Error::new_spanned(at, "internal error in #[jax::jit] (the compiler panicked); please report it with this function")
                .to_compile_error()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn functions_get_a_companion_module() {
        let f = quote! { fn f(x: f32) -> f32 { x } };
        let out = expand_jit(quote! {}, f).to_string();
        assert!(out.contains("fn f (x : f32) -> f32"), "{out}");
        assert!(out.contains("mod f"), "{out}");
        assert!(out.contains("{ lambda ; a:f32[]. let  in (a,) }"), "{out}");
    }

    #[test]
    fn errors_keep_the_signature_only() {
        let f = quote! { fn f(x: f32) -> f32 { println!("hi"); x } };
        let out = expand_jit(quote! {}, f).to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("fn f (x : f32) -> f32"), "{out}");
        assert!(!out.contains("println ! (\"hi\")"), "{out}");
    }

    #[test]
    fn expansion_is_deterministic() {
        let f = quote! {
            fn f(x: &Array<f32, 64, 8>, b: &Array<f32, 8>) -> (Array<f32>, Array<f32, 64, 8>) {
                let y = jnp::tanh(x * 1.5 + b);
                (jnp::sum(&y * &y), jnp::softmax(y, -1))
            }
        };
        let first = expand_jit(quote! {}, f.clone()).to_string();
        for _ in 0..5 {
            assert_eq!(expand_jit(quote! {}, f.clone()).to_string(), first);
        }
    }

    #[test]
    fn other_items_are_errors() {
        let out = expand_jit(quote! {}, quote! { struct S; }).to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("applies to a `fn`"), "{out}");
    }
}

#[cfg(test)]
mod robustness {
    use super::*;

    /// Odd and wrong bodies: every one must give errors (or code), never a panic.
    #[test]
    fn odd_input_gives_errors_not_panics() {
        let bodies = [
            "jnp::sum()",
            "jnp::softmax()",
            "x.reshape()",
            "jnp::sum(x, 5, true)",
            "jnp::sum(x, 0)",
            "jnp::transpose(x, (0, 0))",
            "jnp::expand_dims(x, 10)",
            "jnp::concatenate(x, 0)",
            "jnp::concatenate((), 0)",
            "x.at((1, 2, 3, 4)).get()",
            "x.at(0).frobnicate(1.0)",
            "x.at(0)",
            "x.slice(s![1..;0, ..])",
            "[x, x]",
            "jnp::array([[1.0, 2.0], [3.0]])",
            "x.astype()",
            "x.astype::<String>()",
            "x as f32",
            "(|a| a)(x, x)",
            "{ let (a, b) = x; a }",
            "match x { _ => x }",
            "loop { x }",
            "unknown(x)",
            "x.matmul(x)",
            "jnp::where_(x, x)",
            "x.iter()",
            "x[0]",
            "x.at(s![..]).set(1.0)",
            "jnp::argmax(x, 7)",
            "jnp::squeeze(x, 0)",
            "lax::integer_pow(x, x)",
            "jnp::mean(x, 0, 1)",
        ];
        for body in bodies {
            let src = format!("fn f(x: Array<f32, 3, 4>) -> Array<f32, 3, 4> {{ {body} }}");
            let item: proc_macro2::TokenStream = src.parse().unwrap();
            let out = std::panic::catch_unwind(|| expand_jit(TokenStream::new(), item.clone()));
            let out = out.unwrap_or_else(|_| panic!("the compiler panicked on `{body}`"));
            // The output always parses as items.
            syn::parse2::<syn::File>(out)
                .unwrap_or_else(|e| panic!("`{body}`: output does not parse: {e}"));
        }
    }
}
