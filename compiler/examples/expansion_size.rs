//! What `#[jax::jit]` emits for each jitted function (or `mod`) at the top
//! level of a Rust file, item by item, in bytes of tokens, and how long the
//! expansion took:
//!
//! ```text
//! cargo run -p jax-compiler --release --example expansion_size -- FILE [--show]
//! ```
//!
//! `--show` also prints the expansion, formatted. The items are the function
//! (with its `jax_debug_nans` replay inside), and the companion module's
//! functions (`jaxpr`, `jvp`, `__pullback`, `vjp`, ..., `lowered`).

use std::time::Instant;

use quote::quote;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show = args.iter().any(|a| a == "--show");
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: expansion_size FILE [--show]");
        std::process::exit(2);
    };
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let file = syn::parse_file(&src).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let is_jit = |a: &syn::Attribute| a.path().segments.last().is_some_and(|s| s.ident == "jit");
    for mut item in file.items {
        // A jitted `fn` or `mod`, without its attribute (its arguments kept).
        let (name, attrs) = match &mut item {
            syn::Item::Fn(f) => (f.sig.ident.clone(), &mut f.attrs),
            syn::Item::Mod(m) => (m.ident.clone(), &mut m.attrs),
            _ => continue,
        };
        let Some(k) = attrs.iter().position(is_jit) else {
            continue;
        };
        let attr = match &attrs.remove(k).meta {
            syn::Meta::List(l) => l.tokens.clone(),
            _ => Default::default(),
        };
        let t = Instant::now();
        let out = jax_compiler::expand_jit(attr, quote!(#item));
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let size = |t: &dyn quote::ToTokens| t.to_token_stream().to_string().len();
        println!(
            "{name}: expansion {} bytes, {ms:.1} ms",
            out.to_string().len()
        );
        let parsed: syn::File = syn::parse2(out)
            .unwrap_or_else(|e| fail(&format!("the expansion does not parse: {e}")));
        if show {
            println!("{}", prettyplease::unparse(&parsed));
        }
        for it in &parsed.items {
            match it {
                syn::Item::Fn(g) => {
                    let inner: Vec<String> = g
                        .block
                        .stmts
                        .iter()
                        .filter_map(|s| match s {
                            syn::Stmt::Item(syn::Item::Fn(i)) => {
                                Some(format!("{} {}", i.sig.ident, size(i)))
                            }
                            _ => None,
                        })
                        .collect();
                    println!("  fn {} {} (items inside: {inner:?})", g.sig.ident, size(g));
                }
                syn::Item::Mod(m) => {
                    for it in m.content.iter().flat_map(|(_, items)| items) {
                        match it {
                            syn::Item::Fn(g) => {
                                println!("  {}::{} {}", m.ident, g.sig.ident, size(g))
                            }
                            // A jitted `mod`'s companion modules, one level down.
                            syn::Item::Mod(c) => {
                                for it in c.content.iter().flat_map(|(_, items)| items) {
                                    if let syn::Item::Fn(g) = it {
                                        let name = (&m.ident, &c.ident, &g.sig.ident);
                                        println!(
                                            "  {}::{}::{} {}",
                                            name.0,
                                            name.1,
                                            name.2,
                                            size(g)
                                        );
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                other => println!("  other {}", size(other)),
            }
        }
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(1)
}
