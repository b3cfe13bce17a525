//! The parameter names of a library function, read from the runtime's
//! source when an arity error is reported (`jnp::argmax_axis` takes `x,
//! axis, keepdims`): the eager function is the signature, so no table
//! repeats it. Functions a macro of the same file writes (`reduction! { fn
//! argmax / argmax_axis -> .. }`) are found through the macro's rule: the
//! `pub fn $name(..)` of its body, `$name` matched by position after `fn`.
//! Read only on that error path; `None` when the source is not there.

use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::frontend::lib::call::Module;

/// Where a module's functions are defined, under the runtime's source.
fn sources(module: Module) -> &'static [&'static str] {
    match module {
        Module::Jnp => &["jnp"],
        Module::Lax => &["lax"],
        Module::Random => &["random"],
        Module::Nn => &["nn.rs"],
        Module::Special => &["scipy/special.rs"],
        Module::Norm => &["scipy/stats/norm.rs"],
        Module::Linalg => &["jnp/linalg"],
        Module::ScipyLinalg => &["scipy/linalg"],
        Module::Method => &[],
    }
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            rust_files(&p, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The parameter names of `module::name`'s eager function.
pub(crate) fn params(module: Module, name: &str) -> Option<Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    let mut files = Vec::new();
    for s in sources(module) {
        rust_files(&root.join(s), &mut files);
    }
    files.iter().find_map(|f| {
        let text = std::fs::read_to_string(f).ok()?;
        let file = syn::parse_file(&text).ok()?;
        in_items(&file.items, name).or_else(|| in_macros(&file.items, name))
    })
}

fn pat_name(p: &syn::Pat) -> String {
    match p {
        syn::Pat::Ident(i) => i.ident.to_string(),
        syn::Pat::Type(t) => pat_name(&t.pat),
        _ => "_".into(),
    }
}

fn in_items(items: &[syn::Item], name: &str) -> Option<Vec<String>> {
    items.iter().find_map(|it| match it {
        syn::Item::Fn(f) if f.sig.ident == name && matches!(f.vis, syn::Visibility::Public(_)) => {
            Some(
                f.sig
                    .inputs
                    .iter()
                    .map(|a| match a {
                        syn::FnArg::Typed(t) => pat_name(&t.pat),
                        syn::FnArg::Receiver(_) => "self".into(),
                    })
                    .collect(),
            )
        }
        syn::Item::Mod(m) => m
            .content
            .as_ref()
            .and_then(|(_, items)| in_items(items, name)),
        _ => None,
    })
}

/// A function a `macro_rules!` of the file writes for one of its calls.
fn in_macros(items: &[syn::Item], name: &str) -> Option<Vec<String>> {
    let calls: Vec<(String, TokenStream)> = items
        .iter()
        .filter_map(|it| match it {
            syn::Item::Macro(m) if m.ident.is_none() => Some((
                m.mac.path.segments.last()?.ident.to_string(),
                m.mac.tokens.clone(),
            )),
            _ => None,
        })
        .collect();
    items.iter().find_map(|it| {
        let syn::Item::Macro(m) = it else { return None };
        let rules_name = m.ident.as_ref()?.to_string();
        if !m.mac.path.is_ident("macro_rules") {
            return None;
        }
        let rules: Vec<TokenTree> = m.mac.tokens.clone().into_iter().collect();
        // `(matcher) => { body }`, separated by `;`.
        rules.windows(4).find_map(|w| {
            let (
                TokenTree::Group(matcher),
                TokenTree::Punct(eq),
                TokenTree::Punct(gt),
                TokenTree::Group(body),
            ) = (&w[0], &w[1], &w[2], &w[3])
            else {
                return None;
            };
            if eq.as_char() != '=' || gt.as_char() != '>' || matcher.delimiter() == Delimiter::None
            {
                return None;
            }
            let vars = names_after_fn(matcher.stream(), true);
            calls
                .iter()
                .filter(|(n, _)| *n == rules_name)
                .find_map(|(_, tokens)| {
                    let written = names_after_fn(tokens.clone(), false);
                    let k = written.iter().position(|w| w == name)?;
                    // The same position in the matcher: `$name_axis`.
                    let var = vars.get(k % vars.len().max(1))?;
                    fn_params(body.stream(), var)
                })
        })
    })
}

/// The names after each `fn` (`fn a / b` gives `a, b`); in a matcher, the
/// metavariables (`fn $name:ident / $name_axis:ident` gives `name, name_axis`).
fn names_after_fn(ts: TokenStream, matcher: bool) -> Vec<String> {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            TokenTree::Ident(id) if id == "fn" => {
                i += 1;
                loop {
                    match (toks.get(i), toks.get(i + 1)) {
                        (Some(TokenTree::Punct(d)), Some(TokenTree::Ident(v)))
                            if matcher && d.as_char() == '$' =>
                        {
                            out.push(v.to_string());
                            // `:ident`
                            i += 4;
                        }
                        (Some(TokenTree::Ident(v)), _) if !matcher => {
                            out.push(v.to_string());
                            i += 1;
                        }
                        _ => break,
                    }
                    match toks.get(i) {
                        Some(TokenTree::Punct(p)) if p.as_char() == '/' => i += 1,
                        _ => break,
                    }
                }
            }
            TokenTree::Group(g) => {
                out.extend(names_after_fn(g.stream(), matcher));
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The parameter names of `pub fn $var(..)` in a macro body.
fn fn_params(ts: TokenStream, var: &str) -> Option<Vec<String>> {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    for (i, t) in toks.iter().enumerate() {
        if let TokenTree::Group(g) = t {
            if let Some(p) = fn_params(g.stream(), var) {
                return Some(p);
            }
        }
        let is_fn = matches!(t, TokenTree::Ident(id) if id == "fn");
        let named = matches!(
            (toks.get(i + 1), toks.get(i + 2)),
            (Some(TokenTree::Punct(d)), Some(TokenTree::Ident(v))) if d.as_char() == '$' && v == var
        );
        if !(is_fn && named) {
            continue;
        }
        // The parameter list: the first parenthesized group after the name.
        let list = toks[i + 3..].iter().find_map(|t| match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => Some(g.stream()),
            _ => None,
        })?;
        let mut names = Vec::new();
        let mut depth = 0i32;
        let mut expecting = true;
        let toks: Vec<TokenTree> = list.into_iter().collect();
        for (j, t) in toks.iter().enumerate() {
            match t {
                TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
                TokenTree::Punct(p) if p.as_char() == '>' => depth -= 1,
                TokenTree::Punct(p) if p.as_char() == ',' && depth == 0 => expecting = true,
                TokenTree::Ident(id) if expecting && depth == 0 => {
                    let is_param =
                        matches!(toks.get(j + 1), Some(TokenTree::Punct(c)) if c.as_char() == ':');
                    if id == "self" || is_param {
                        names.push(id.to_string());
                        expecting = false;
                    }
                }
                _ => {}
            }
        }
        return Some(names);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_and_macro_written_signatures() {
        assert_eq!(
            params(Module::Jnp, "argmax_axis").unwrap(),
            ["x", "axis", "keepdims"]
        );
        assert_eq!(
            params(Module::ScipyLinalg, "solve_triangular").unwrap(),
            ["a", "b", "lower"]
        );
        assert_eq!(
            params(Module::Special, "logsumexp").unwrap(),
            ["x", "axis", "keepdims"]
        );
        assert_eq!(params(Module::Jnp, "no_such_function"), None);
    }
}
