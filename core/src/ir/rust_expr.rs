//! What kind of Rust expression a text is: symbolic sizes are Rust
//! expressions of const generics (`N`, `N * 2`), read from imported jaxprs
//! and emitted as tokens.
//!
//! With the `syn` feature (the macro's build) the text is parsed as Rust
//! parses it; without it, as tokens, which is all a build that never reads
//! user source needs.

/// See [`classify`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// A single name: `N`.
    Ident,
    /// A negation: `-N`.
    Negation,
    /// A literal; `int` when it is an integer.
    Literal { int: bool },
    /// Any other expression: `N * 2`.
    Other,
}

/// The kind of expression `text` is, or `None` when it is not one.
#[cfg(feature = "syn")]
pub fn classify(text: &str) -> Option<ExprKind> {
    if syn::parse_str::<proc_macro2::Ident>(text).is_ok() {
        return Some(ExprKind::Ident);
    }
    Some(match syn::parse_str::<syn::Expr>(text).ok()? {
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            ..
        }) => ExprKind::Negation,
        syn::Expr::Lit(l) => ExprKind::Literal {
            int: matches!(l.lit, syn::Lit::Int(_)),
        },
        _ => ExprKind::Other,
    })
}

/// The kind of expression `text` is, or `None` when it is not one.
#[cfg(not(feature = "syn"))]
pub fn classify(text: &str) -> Option<ExprKind> {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = text
        .parse::<proc_macro2::TokenStream>()
        .ok()?
        .into_iter()
        .collect();
    Some(match tokens.as_slice() {
        [] => return None,
        [TokenTree::Ident(_)] => ExprKind::Ident,
        [TokenTree::Literal(l)] => ExprKind::Literal {
            int: l.to_string().starts_with(|c: char| c.is_ascii_digit())
                && !l.to_string().contains(['.', 'e', 'E']),
        },
        [TokenTree::Punct(p), ..] if p.as_char() == '-' => ExprKind::Negation,
        _ => ExprKind::Other,
    })
}

/// `text` as tokens: a name as itself, another expression parenthesized,
/// and text that is no expression as the name `__jax_bad_dim` (rustc then
/// reports it).
pub fn tokens(text: &str) -> proc_macro2::TokenStream {
    let bad = || quote::quote!(__jax_bad_dim);
    let Some(kind) = classify(text) else {
        return bad();
    };
    let Ok(ts) = text.parse::<proc_macro2::TokenStream>() else {
        return bad();
    };
    match kind {
        ExprKind::Ident => ts,
        _ => quote::quote!((#ts)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_classified_as_rust_reads_them() {
        assert_eq!(classify("N"), Some(ExprKind::Ident));
        assert_eq!(classify("-N"), Some(ExprKind::Negation));
        assert_eq!(classify("2.5"), Some(ExprKind::Literal { int: false }));
        assert_eq!(classify("3"), Some(ExprKind::Literal { int: true }));
        assert_eq!(classify("N * 2"), Some(ExprKind::Other));
        assert_eq!(classify("(N"), None);
        assert_eq!(tokens("N * 2").to_string(), "(N * 2)");
        assert_eq!(tokens("N").to_string(), "N");
    }
}
