//! Loop bodies compiled once per SIMD level. Emitted code hands a body to
//! the runtime's `__per_level!` (`runtime/rt/par.rs`), which passes it to a
//! `par` driver once per level in an optimized build (each copy inlined
//! into its `#[target_feature]` function) and once where `debug_assertions`
//! is on: rustc type-checks and borrow-checks every copy, so emitting the
//! body once keeps a debug build of many jitted functions from paying for
//! three. `f::lowered()` shows the optimized build's form
//! ([`optimized_form`]).

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;

/// `body` (a closure) called on `arg` through one copy per SIMD level, or
/// directly when there is one copy.
pub(super) fn level_dispatch(copies: usize, body: &TokenStream, arg: TokenStream) -> TokenStream {
    match copies {
        3 => {
            quote!(::jax::__per_level!(dispatch3(::jax::__rt::par::Level::current(), #body, #arg)))
        }
        2 => {
            quote!(::jax::__per_level!(dispatch2(::jax::__rt::par::Level::current(), #body, #arg)))
        }
        _ => quote!((#body)(#arg)),
    }
}

/// Each form `__per_level!` takes: the driver, its module, where the
/// body goes among the arguments, whether by reference, and how many
/// copies an optimized build passes.
const FORMS: [(&str, &str, usize, bool, usize); 6] = [
    ("dispatch3", "par", 1, true, 3),
    ("dispatch2", "par", 1, true, 2),
    ("for_each_chunk3", "par", 2, false, 3),
    ("for_each_rows3", "par", 3, false, 3),
    ("reduce3", "par", 2, false, 3),
    ("for_each_chunks3", "multi", 2, false, 3),
];

/// `code` with every `::jax::__per_level!(driver(args))` written as the
/// call an optimized build compiles (`::jax::__rt::par::dispatch3(level,
/// &body, &body, &body, arg)`), so that `f::lowered()` formats the loop
/// bodies and shows the copies.
pub(crate) fn optimized_form(code: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = code.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if let Some(call) = per_level_call(&tokens[i..]) {
            out.extend(call);
            i += 8;
            continue;
        }
        out.push(match &tokens[i] {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), optimized_form(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            t => t.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}

/// The optimized call if `tokens` start with `:: jax :: __per_level ! (..)`.
fn per_level_call(tokens: &[TokenTree]) -> Option<TokenStream> {
    let text: Vec<String> = tokens.iter().take(7).map(|t| t.to_string()).collect();
    if text != [":", ":", "jax", ":", ":", "__per_level", "!"] {
        return None;
    }
    let Some(TokenTree::Group(g)) = tokens.get(7) else {
        return None;
    };
    let mut inner = g.stream().into_iter();
    let (Some(TokenTree::Ident(driver)), Some(TokenTree::Group(args)), None) =
        (inner.next(), inner.next(), inner.next())
    else {
        return None;
    };
    if g.delimiter() != Delimiter::Parenthesis || args.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    let &(_, module, at, by_ref, copies) = FORMS.iter().find(|f| driver == f.0)?;
    let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
    let args = syn::parse::Parser::parse2(parser, optimized_form(args.stream())).ok()?;
    let mut args: Vec<TokenStream> = args.into_iter().map(|a| quote!(#a)).collect();
    let body = args.get(at)?.clone();
    let body = if by_ref { quote!(&#body) } else { body };
    args.splice(at..=at, std::iter::repeat_n(body, copies));
    let module = syn::Ident::new(module, proc_macro2::Span::call_site());
    Some(quote!(::jax::__rt::#module::#driver(#(#args),*)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowered_code_shows_the_optimized_copies() {
        let code = quote! {
            let x = ::jax::__per_level!(dispatch3(::jax::__rt::par::Level::current(), |a: u32| a + 1, 2u32));
            ::jax::__per_level!(for_each_chunks3(&mut __outs, 1024, |(s, o): (usize, &mut [&mut [f32]])| {}));
        };
        let text = optimized_form(code).to_string();
        assert!(!text.contains("__per_level"), "{text}");
        assert_eq!(text.matches("& | a : u32 | a + 1").count(), 3, "{text}");
        assert!(
            text.contains(":: jax :: __rt :: multi :: for_each_chunks3 (& mut __outs , 1024 ,"),
            "{text}"
        );
        assert_eq!(text.matches("| (s , o)").count(), 3, "{text}");
    }
}
