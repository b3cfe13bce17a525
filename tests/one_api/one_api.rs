//! One API, eager and jitted: every public function a user can call as
//! `jnp::NAME`, `lax::NAME`, `random::NAME`, `nn::NAME` or `scipy::..::NAME`
//! is either called inside a `#[jax::jit]` function of one of the files
//! `tests/one_api/one_api_*.rs` (each compares the jitted result with the eager
//! call on the same inputs), or listed in the guide's chapter on
//! `#[jax::jit]` (`runtime/guide/jit.md`) under a heading starting
//! `Eager only`, with the reason.
//!
//! The functions are read from the runtime's source with `syn`, not from a
//! hand-kept list: `pub fn` items (also those written by a macro of the same
//! file, `name! { fn a / b; c: ..; }`), through `mod`, `pub mod` and
//! `pub use` re-exports, leaving out `#[doc(hidden)]` ones.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::visit::Visit;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The modules users call functions of, and where their source is.
const MODULES: &[(&str, &str)] = &[
    ("jnp", "runtime/jnp"),
    ("lax", "runtime/lax"),
    ("random", "runtime/random"),
    ("nn", "runtime/nn"),
    ("scipy", "runtime/scipy"),
];

/// A public function: its path as users write it after `jax::`
/// (`jnp::exp`, `scipy::special::erf`) and the file defining it.
type Functions = BTreeMap<String, PathBuf>;

fn parse(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The file of module `name` declared in `dir` (`dir/name.rs` or
/// `dir/name/mod.rs`), and the directory its own submodules live in.
fn module_file(dir: &Path, name: &str) -> Option<(PathBuf, PathBuf)> {
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() {
        return Some((flat, dir.join(name)));
    }
    let nested = dir.join(name).join("mod.rs");
    nested.exists().then(|| (nested, dir.join(name)))
}

fn hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string().contains("hidden"))
    }) || attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream_string().contains("test"))
}

trait MetaString {
    fn to_token_stream_string(&self) -> String;
}

impl MetaString for syn::Meta {
    fn to_token_stream_string(&self) -> String {
        match self {
            syn::Meta::List(l) => l.tokens.to_string(),
            _ => String::new(),
        }
    }
}

fn is_pub(v: &syn::Visibility) -> bool {
    matches!(v, syn::Visibility::Public(_))
}

/// The public functions of a module (its items, in file `file`, its
/// submodules in `dir`), keyed by name relative to the module.
fn module_functions(items: &[syn::Item], file: &Path, dir: &Path) -> Functions {
    let macros = local_macros(items);
    // Every submodule, public or not, for `pub use`.
    let mut subs: HashMap<String, (Functions, bool)> = HashMap::new();
    for item in items {
        if let syn::Item::Mod(m) = item {
            if hidden(&m.attrs) {
                continue;
            }
            let name = m.ident.to_string();
            let fns = match &m.content {
                Some((_, inner)) => module_functions(inner, file, &dir.join(&name)),
                None => match module_file(dir, &name) {
                    Some((f, d)) => module_functions(&parse(&f).items, &f, &d),
                    None => continue,
                },
            };
            subs.insert(name, (fns, is_pub(&m.vis)));
        }
    }
    let mut out = Functions::new();
    for item in items {
        match item {
            syn::Item::Fn(f) if is_pub(&f.vis) && !hidden(&f.attrs) => {
                out.insert(f.sig.ident.to_string(), file.to_path_buf());
            }
            syn::Item::Macro(m) if !hidden(&m.attrs) => {
                let Some(name) = m.mac.path.get_ident() else {
                    continue;
                };
                if macros.contains(&name.to_string()) {
                    for f in macro_functions(m.mac.tokens.clone()) {
                        out.insert(f, file.to_path_buf());
                    }
                }
            }
            syn::Item::Use(u) if is_pub(&u.vis) && !hidden(&u.attrs) => {
                re_exports(&u.tree, &subs, file, &mut out);
            }
            _ => {}
        }
    }
    for (name, (fns, public)) in &subs {
        if *public {
            for (f, file) in fns {
                out.insert(format!("{name}::{f}"), file.clone());
            }
        }
    }
    out
}

/// `pub use sub::*`, `pub use sub::{a, b as c}`: the functions named, from
/// the submodule that defines them. A re-export from elsewhere in the
/// crate (`crate::math::erf`) counts when its name is a function's
/// (lower case).
fn re_exports(
    tree: &syn::UseTree,
    subs: &HashMap<String, (Functions, bool)>,
    file: &Path,
    out: &mut Functions,
) {
    fn walk(
        tree: &syn::UseTree,
        sub: Option<&Functions>,
        subs: &HashMap<String, (Functions, bool)>,
        file: &Path,
        out: &mut Functions,
    ) {
        match tree {
            syn::UseTree::Path(p) => {
                let name = p.ident.to_string();
                match sub {
                    None if subs.contains_key(&name) => {
                        walk(&p.tree, Some(&subs[&name].0), subs, file, out)
                    }
                    // `self::`, `super::`, `crate::`: outside this module's tree.
                    None => walk(&p.tree, None, subs, file, out),
                    Some(fns) => {
                        // `sub::inner::name`: the functions under `inner::`.
                        let prefix = format!("{name}::");
                        let inner: Functions = fns
                            .iter()
                            .filter_map(|(f, file)| {
                                f.strip_prefix(&prefix)
                                    .map(|f| (f.to_string(), file.clone()))
                            })
                            .collect();
                        walk(&p.tree, Some(&inner), subs, file, out);
                    }
                }
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, sub, subs, file, out)),
            syn::UseTree::Glob(_) => {
                if let Some(fns) = sub {
                    out.extend(
                        fns.iter()
                            .filter(|(f, _)| !f.contains("::"))
                            .map(|(f, p)| (f.clone(), p.clone())),
                    );
                }
            }
            syn::UseTree::Name(n) => add(&n.ident, &n.ident, sub, file, out),
            syn::UseTree::Rename(r) => add(&r.ident, &r.rename, sub, file, out),
        }
    }
    fn add(
        from: &syn::Ident,
        to: &syn::Ident,
        sub: Option<&Functions>,
        file: &Path,
        out: &mut Functions,
    ) {
        let name = from.to_string();
        match sub {
            Some(fns) => {
                if let Some(p) = fns.get(&name) {
                    out.insert(to.to_string(), p.clone());
                }
            }
            None if name.starts_with(|c: char| c.is_ascii_lowercase()) => {
                out.insert(to.to_string(), file.to_path_buf());
            }
            None => {}
        }
    }
    walk(tree, None, subs, file, out)
}

/// The `macro_rules!` of a file that write public free functions: their
/// expansion has `pub fn $name` and no `impl` (a macro writing methods
/// in an `impl` block defines no `jnp::NAME`).
fn local_macros(items: &[syn::Item]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for item in items {
        let syn::Item::Macro(m) = item else { continue };
        if !m.mac.path.is_ident("macro_rules") {
            continue;
        }
        let Some(name) = &m.ident else { continue };
        let body: Vec<String> = flatten(m.mac.tokens.clone())
            .into_iter()
            .map(|t| t.to_string())
            .collect();
        let writes_fn = body
            .windows(4)
            .any(|w| w[0] == "pub" && w[1] == "fn" && w[2] == "$");
        if writes_fn && !body.iter().any(|t| t == "impl") {
            out.insert(name.to_string());
        }
    }
    out
}

/// Every token, groups opened (their delimiters dropped).
fn flatten(ts: TokenStream) -> Vec<TokenTree> {
    let mut out = Vec::new();
    for t in ts {
        match t {
            TokenTree::Group(g) => out.extend(flatten(g.stream())),
            t => out.push(t),
        }
    }
    out
}

/// The functions a macro invocation writes: its entries are separated by
/// `;`, attributes first (`#[doc(hidden)]` hides the entry); an entry is
/// `fn a / b ...` (both names) or starts with its name (`exp;`,
/// `add: Arith => ..;`, `less <;`).
fn macro_functions(ts: TokenStream) -> Vec<String> {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::new();
    for entry in tokens.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';')) {
        let mut i = 0;
        let mut is_hidden = false;
        // Attributes: `#` then `[..]`.
        while i + 1 < entry.len() {
            match (&entry[i], &entry[i + 1]) {
                (TokenTree::Punct(p), TokenTree::Group(g))
                    if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket =>
                {
                    let s = g.stream().to_string();
                    is_hidden |= s.starts_with("doc") && s.contains("hidden");
                    i += 2;
                }
                _ => break,
            }
        }
        let rest = &entry[i..];
        if is_hidden || rest.is_empty() {
            continue;
        }
        let ident = |t: Option<&TokenTree>| match t {
            Some(TokenTree::Ident(id)) => Some(id.to_string()),
            _ => None,
        };
        if ident(rest.first()).as_deref() == Some("fn") {
            out.extend(ident(rest.get(1)));
            if matches!(rest.get(2), Some(TokenTree::Punct(p)) if p.as_char() == '/') {
                out.extend(ident(rest.get(3)));
            }
        } else {
            out.extend(ident(rest.first()));
        }
    }
    out
}

/// Every public function of the modules users call, as `module::path`.
fn public_functions() -> Functions {
    let root = Path::new(ROOT);
    let mut out = Functions::new();
    for (module, dir) in MODULES {
        let dir = root.join(dir);
        let Some((file, sub_dir)) = module_file(dir.parent().unwrap(), module) else {
            continue; // not written yet (nn, scipy)
        };
        debug_assert_eq!(sub_dir, dir);
        for (f, p) in module_functions(&parse(&file).items, &file, &sub_dir) {
            out.insert(format!("{module}::{f}"), p);
        }
    }
    out
}

/// The functions called inside `#[jax::jit]` functions (and `#[jax::jit]
/// mod`s) of `tests/one_api/one_api_*.rs`, as paths (`jnp::exp`, and with `jax::`
/// stripped), with the file calling each.
fn jitted_calls() -> BTreeMap<String, String> {
    struct Calls<'a> {
        out: &'a mut BTreeMap<String, String>,
        file: String,
    }
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                let mut segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                if segs.first().map(String::as_str) == Some("jax") {
                    segs.remove(0);
                }
                if segs.len() >= 2 {
                    self.out
                        .entry(segs.join("::"))
                        .or_insert_with(|| self.file.clone());
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    fn is_jit(attrs: &[syn::Attribute]) -> bool {
        attrs
            .iter()
            .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "jit"))
    }
    fn items(list: &[syn::Item], in_jit_mod: bool, v: &mut Calls) {
        for item in list {
            match item {
                syn::Item::Fn(f) if in_jit_mod || is_jit(&f.attrs) => v.visit_item_fn(f),
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        items(inner, in_jit_mod || is_jit(&m.attrs), v);
                    }
                }
                syn::Item::Impl(i) if in_jit_mod => v.visit_item_impl(i),
                _ => {}
            }
        }
    }
    let mut out = BTreeMap::new();
    for file in one_api_files() {
        let name = file
            .strip_prefix(ROOT)
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        let mut v = Calls {
            out: &mut out,
            file: name,
        };
        items(&parse(&file).items, false, &mut v);
    }
    out
}

/// `tests/one_api/one_api_*.rs`.
fn one_api_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("tests/one_api"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("one_api_") && n.ends_with(".rs")
        })
        .collect();
    files.sort();
    files
}

/// The guide's chapter that lists the functions that are eager only.
const EAGER_ONLY: &str = "runtime/guide/jit.md";

/// The rows of [`EAGER_ONLY`] under the headings starting `Eager only` (of
/// any level): for each function named in a row's first cell
/// (`` `random::key` ``, several separated by commas), its reason and
/// heading.
fn eager_only_rows() -> BTreeMap<String, (String, String)> {
    let chapter = std::fs::read_to_string(Path::new(ROOT).join(EAGER_ONLY)).unwrap();
    let mut out = BTreeMap::new();
    let mut heading: Option<String> = None;
    let mut in_code = false;
    for line in chapter.lines() {
        // A `#` line inside a code block is a hidden doctest line.
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if line.starts_with('#') {
            let title = line.trim_start_matches('#').trim();
            heading = title.starts_with("Eager only").then(|| title.to_string());
            continue;
        }
        let Some(h) = &heading else { continue };
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if !line.trim_start().starts_with('|')
            || cells.len() < 2
            || cells[0].starts_with("---")
            || cells[0] == "function"
        {
            continue;
        }
        for name in cells[0].split(',') {
            let name = name
                .trim()
                .trim_matches('`')
                .trim_start_matches("jax::")
                .to_string();
            out.insert(name, (cells[1].to_string(), h.clone()));
        }
    }
    out
}

/// The file to add a check of `f` to: the `tests/one_api/one_api_*.rs` file already
/// checking another function of the same source file, else the current
/// branch's own `tests/one_api/one_api_<branch>.rs`.
fn file_for(
    f: &str,
    source: &Path,
    functions: &Functions,
    calls: &BTreeMap<String, String>,
) -> String {
    let sibling = functions
        .iter()
        .filter(|(g, p)| *g != f && *p == source)
        .find_map(|(g, _)| calls.get(g));
    if let Some(file) = sibling {
        return file.clone();
    }
    let branch = std::process::Command::new("git")
        .args(["-C", ROOT, "branch", "--show-current"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|b| !b.is_empty() && b != "main")
        .unwrap_or_else(|| "<your branch>".into());
    format!(
        "tests/one_api/one_api_{}.rs (a `mod` of tests/one_api/main.rs)",
        branch.replace(['/', '-'], "_")
    )
}

/// The file calling `f` (`scipy::stats::norm::pdf`) in jit, written in
/// full or by its trailing path after a `use` (`norm::pdf`, `special::erf`).
fn called_as<'a>(f: &str, calls: &'a BTreeMap<String, String>) -> Option<&'a String> {
    calls.get(f).or_else(|| {
        calls
            .iter()
            .find(|(c, _)| f.ends_with(&format!("::{c}")))
            .map(|(_, file)| file)
    })
}

#[test]
fn every_public_function_is_jitted_or_listed_as_eager_only() {
    let functions = public_functions();
    let calls = jitted_calls();
    let rows = eager_only_rows();
    let mut problems = Vec::new();
    for (f, source) in &functions {
        let jitted = called_as(f, &calls);
        match rows.get(f) {
            None if jitted.is_none() => problems.push(format!(
                "`{f}` ({}) is neither checked in jit nor listed as eager only: add a `#[jax::jit]` function calling `{f}(..)` to {}, with a test comparing it with the eager call on the same inputs; or, if it cannot be jitted, a row `| \\`{f}\\` | why |` to {EAGER_ONLY} under `## Eager only`",
                source.strip_prefix(ROOT).unwrap_or(source).display(),
                file_for(f, source, &functions, &calls),
            )),
            Some((_, heading)) if jitted.is_some() => problems.push(format!(
                "`{f}` is checked in jit ({}) and still listed in {EAGER_ONLY} under `{heading}`: delete its row",
                jitted.unwrap()
            )),
            Some((reason, _)) if reason.is_empty() => problems.push(format!(
                "{EAGER_ONLY}'s `Eager only` row for `{f}` gives no reason: say why it cannot be jitted"
            )),
            _ => {}
        }
    }
    for name in rows.keys() {
        if !functions.contains_key(name) {
            problems.push(format!(
                "{EAGER_ONLY}'s `Eager only` row names `{name}`, which is not a public function of {}: fix or delete the row",
                MODULES.iter().map(|(m, _)| format!("{m}::")).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} public functions need attention (one API, eager and jitted):\n  - {}",
        problems.len(),
        functions.len(),
        problems.join("\n  - ")
    );
}

/// The reader itself: functions written by macros and re-exported, and
/// hidden ones left out, on the runtime as it is.
#[test]
fn reads_functions_from_macros_and_re_exports() {
    let functions = public_functions();
    for f in [
        "jnp::exp",
        "jnp::add",
        "jnp::less",
        "jnp::sum",
        "jnp::sum_axis",
        "lax::fori_loop",
        "random::split",
        "random::normal",
        "random::categorical",
    ] {
        assert!(
            functions.contains_key(f),
            "{f} not found among {:?}",
            functions.keys()
        );
    }
    // Defined in a private module and not re-exported.
    assert!(!functions.contains_key("random::block"));
    assert!(!functions.keys().any(|f| f.contains("continuous::")));
    let entries = macro_functions(
        "#[doc(hidden)] hidden_one; /// doc\n exp; fn sum / sum_axis -> T, where [X: Y], kernel k; add: Arith => Arith::add; less <;"
            .parse()
            .unwrap(),
    );
    assert_eq!(entries, ["exp", "sum", "sum_axis", "add", "less"]);
}
