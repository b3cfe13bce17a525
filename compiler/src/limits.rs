//! How deep and how long a body may be, and the stack the expansion runs on.
//!
//! rustc runs a proc macro on its main thread, with an 8 MiB stack; the
//! tracer, the transformations and the emitter recurse over nested syntax
//! and nested programs, so a deep body (500 nested blocks, a 3000-term sum,
//! 500 nested `lax::cond`) overflowed it and killed rustc. The expansion
//! now runs on a stack of [`EXPANSION_STACK`] bytes, grown on the same
//! thread (the proc macro bridge is thread-local), and the tracer grows it
//! further on demand ([`deeper`]). Past the documented limits a body is a
//! compile error at the user's tokens, never a crash:
//!
//! - [`MAX_GROUP_NESTING`] nested delimiters (`(`, `[`, `{`) in the item,
//!   checked before it is parsed;
//! - [`MAX_EXPR_NESTING`] nested expressions while tracing (a sum of `n`
//!   terms nests `n` deep: `((x + x) + x) + ..`);
//! - [`MAX_PROGRAM_NESTING`] nested programs (the functions of control
//!   flow and transformations inside each other's);
//! - [`MAX_UNROLLED_EQUATIONS`] equations from one static `for` loop,
//!   which the tracer unrolls as JAX unrolls a Python loop.

use proc_macro2::{TokenStream, TokenTree};

/// The stack the whole expansion runs on (reserved address space; pages
/// are only touched as deep as the expansion goes).
pub(crate) const EXPANSION_STACK: usize = 256 << 20;

/// Nested delimiters an item may hold: deeper than rustc's own parser
/// takes in source (it overflows its stack near 2,000 nested parentheses),
/// so this guards tokens that other macros build, within what `syn`'s
/// recursion takes on [`EXPANSION_STACK`].
pub(crate) const MAX_GROUP_NESTING: usize = 2048;

/// Nested expressions the tracer follows (each operand of a binary
/// operator, a call's argument, a block's tail, a closure's body is one
/// level deeper).
pub(crate) const MAX_EXPR_NESTING: usize = 20_000;

/// Programs nested in each other (a `lax::cond` in a branch of a
/// `lax::cond`, a loop in a loop, `jax::grad` of a function calling
/// `jax::vmap`): their transformations and emission grow faster than
/// linearly with the depth.
pub(crate) const MAX_PROGRAM_NESTING: usize = 64;

/// Equations one static `for` loop may unroll into (nested loops and the
/// programs of control flow inside it included): past this, the loop is a
/// compile error pointing to `lax::fori_loop` / `lax::scan`.
pub(crate) const MAX_UNROLLED_EQUATIONS: usize = 10_000;

/// Runs the expansion on [`EXPANSION_STACK`].
pub(crate) fn on_large_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::grow(EXPANSION_STACK, f)
}

/// Runs one level of a deep recursion, first growing the stack when less
/// than a megabyte of it is left.
pub(crate) fn deeper<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(1 << 20, 64 << 20, f)
}

/// An error at the first delimiter nested [`MAX_GROUP_NESTING`] deep, found
/// without recursion (the parser would recurse once per level).
pub(crate) fn check_group_nesting(tokens: &TokenStream) -> syn::Result<()> {
    let mut stack: Vec<proc_macro2::token_stream::IntoIter> = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Group(g)) => {
                if stack.len() >= MAX_GROUP_NESTING {
                    return Err(syn::Error::new(
                        g.span_open(),
                        format!(
                            "#[jax::jit] bodies nest at most {MAX_GROUP_NESTING} delimiters deep; \
                             this one nests deeper: bind inner parts to `let` variables, or write \
                             the repetition as `lax::fori_loop` or `lax::scan`"
                        ),
                    ));
                }
                stack.push(g.stream().into_iter());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    Ok(())
}

/// The error when the tracer goes [`MAX_EXPR_NESTING`] expressions deep.
pub(crate) fn too_deep(at: &syn::Expr) -> syn::Error {
    syn::Error::new(
        syn::spanned::Spanned::span(at),
        format!(
            "#[jax::jit] traces expressions nested at most {MAX_EXPR_NESTING} deep \
             (a sum of n terms nests n deep); this one nests deeper: bind partial results \
             to `let` variables, or write the repetition as `lax::fori_loop` or `lax::scan`"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_groups_are_found_without_recursion() {
        let deep = 1_000_000;
        let src = format!("{}x{}", "(".repeat(deep), ")".repeat(deep));
        let tokens: TokenStream = src.parse().unwrap();
        let e = check_group_nesting(&tokens).unwrap_err();
        assert!(e.to_string().contains("at most 2048 delimiters"), "{e}");
        // Dropping a million nested groups recurses too: on the large stack.
        on_large_stack(move || drop(tokens));
    }

    #[test]
    fn shallow_groups_pass() {
        let src = format!("{}x{}", "(".repeat(500), ")".repeat(500));
        let tokens: TokenStream = src.parse().unwrap();
        assert!(check_group_nesting(&tokens).is_ok());
    }
}
