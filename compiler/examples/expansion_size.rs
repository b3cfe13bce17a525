//! Prints the size of `#[jax::jit]`'s expansion of a file's first jitted
//! function, item by item: `cargo run -p jax-compiler --release --example expansion_size -- FILE`.
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("a .rs file");
    let src = std::fs::read_to_string(&path).unwrap();
    let file = syn::parse_file(&src).unwrap();
    for item in file.items {
        let syn::Item::Fn(mut f) = item else { continue };
        let Some(k) = f
            .attrs
            .iter()
            .position(|a| a.path().segments.last().unwrap().ident == "jit")
        else {
            continue;
        };
        f.attrs.remove(k);
        let t = Instant::now();
        let out = jax_compiler::expand_jit(Default::default(), quote::quote!(#f));
        let dt = t.elapsed();
        let text = out.to_string();
        if std::env::var("SHOW").is_ok() {
            let f: syn::File = syn::parse2(out.clone()).unwrap();
            println!("{}", prettyplease::unparse(&f));
        }
        println!(
            "{}: expansion {} bytes, {:.1} ms",
            f.sig.ident,
            text.len(),
            dt.as_secs_f64() * 1e3
        );
        let parsed: syn::File = syn::parse2(out).unwrap();
        for it in &parsed.items {
            match it {
                syn::Item::Fn(g) => {
                    let mut sub = Vec::new();
                    for s in &g.block.stmts {
                        if let syn::Stmt::Item(syn::Item::Fn(inner)) = s {
                            sub.push(format!(
                                "{} {}",
                                inner.sig.ident,
                                quote::quote!(#inner).to_string().len()
                            ));
                        }
                    }
                    println!(
                        "  fn {} {} (inner items: {:?})",
                        g.sig.ident,
                        quote::quote!(#g).to_string().len(),
                        sub
                    );
                }
                syn::Item::Mod(m) => {
                    for it in &m.content.as_ref().unwrap().1 {
                        if let syn::Item::Fn(g) = it {
                            println!(
                                "  {}::{} {}",
                                m.ident,
                                g.sig.ident,
                                quote::quote!(#g).to_string().len()
                            );
                        }
                    }
                }
                other => println!("  other {}", quote::quote!(#other).to_string().len()),
            }
        }
    }
}
