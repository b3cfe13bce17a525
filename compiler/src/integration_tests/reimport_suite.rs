//! Print then read is the identity: every `#[jax::jit]` function of the
//! runtime crate's test suite (`tests/*.rs`, the free functions this test
//! can trace on their own) prints a jaxpr that reads back
//! (`#[jax::jit(import = ..)]`'s parser) and prints the same text; those
//! with a `jax::debug::print!` are refused with the reason.

use std::path::Path;

fn jitted(items: &[syn::Item], out: &mut Vec<syn::ItemFn>) {
    for item in items {
        match item {
            syn::Item::Fn(f) if is_jit(&f.attrs) => out.push(f.clone()),
            syn::Item::Mod(m) if !is_jit(&m.attrs) => {
                if let Some((_, content)) = &m.content {
                    jitted(content, out);
                }
            }
            _ => {}
        }
    }
}

fn is_jit(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let p = a.path();
        p.segments.len() == 2 && p.segments[0].ident == "jax" && p.segments[1].ident == "jit"
    })
}

#[test]
fn every_jitted_function_of_the_suite_reads_back() {
    // The root crate's test binaries: `tests/<binary>/*.rs`.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let (mut read_back, mut untraced, mut refused) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in files {
        let Ok(file) = syn::parse_file(&std::fs::read_to_string(&path).unwrap()) else {
            continue;
        };
        let mut fns = Vec::new();
        jitted(&file.items, &mut fns);
        for f in fns {
            // Attribute arguments (`argnums`, `import`) and functions that
            // need their module's items are not traced alone.
            let plain = f.attrs.iter().all(|a| matches!(a.meta, syn::Meta::Path(_)));
            let Ok(text) = jax_compiler::jaxpr_text(&f).map_err(|_| ()).and_then(|t| {
                if plain {
                    Ok(t)
                } else {
                    Err(())
                }
            }) else {
                untraced += 1;
                continue;
            };
            match jax_compiler::reprint_jaxpr(&text) {
                Ok(t) if t == text => read_back += 1,
                // `jax::debug::print!`'s callback prints without the names
                // of what it prints: refused, saying so.
                Err(e) if text.contains("debug_callback") => {
                    assert!(e.contains("`debug_callback` cannot be imported"), "{e}");
                    refused += 1;
                }
                Ok(t) => failures.push(format!(
                    "{}::{}: printed differently\n{t}\n--- traced\n{text}",
                    path.strip_prefix(&dir).unwrap_or(&path).display(),
                    f.sig.ident
                )),
                Err(e) => failures.push(format!(
                    "{}::{}: {e}\n{text}",
                    path.strip_prefix(&dir).unwrap_or(&path).display(),
                    f.sig.ident
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        failures.len() + read_back,
        failures.join("\n\n")
    );
    // The suite is large: most of it traces alone.
    assert!(
        read_back > 400,
        "only {read_back} functions read back ({untraced} not traced alone)"
    );
    eprintln!("{read_back} jitted functions read back; {refused} refused (debug prints); {untraced} need their context");
}
