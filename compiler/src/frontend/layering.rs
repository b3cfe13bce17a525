//! The frontend's layering, checked on its source: `trace/` imports
//! neither `bodies/` nor `lib/`, `bodies/` never imports `lib/`, and no
//! folder imports the entry (`calls.rs`, `parse.rs`, `import.rs`), which
//! reaches all three. A path is read wherever it is written (a `use`, a
//! call by full path), with `crate::`, `frontend::` or `super::` chains,
//! and its groups (`use crate::frontend::{lib::x, ..}`) expanded.

use std::path::Path;

/// The modules of `frontend/` that each folder must not name.
const FORBIDDEN: &[(&str, &[&str])] = &[
    ("trace", &["bodies", "lib", "calls", "parse", "import"]),
    ("bodies", &["lib", "calls", "parse", "import"]),
    ("lib", &["calls", "parse", "import"]),
];

/// The module path of a file below `frontend/` (`trace/tracer.rs` is
/// `frontend::trace::tracer`, `lib/jnp/mod.rs` is `frontend::lib::jnp`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut path = vec!["frontend".to_string()];
    for c in relative.components() {
        let c = c.as_os_str().to_str().unwrap();
        match c.strip_suffix(".rs") {
            Some("mod") => {}
            Some(stem) => path.push(stem.to_string()),
            None => path.push(c.to_string()),
        }
    }
    path
}

/// The text without `//` comments, lines kept in place.
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A reader of use trees: `a::b`, `a::{b, c::d}`, `a::*`.
struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.s[self.i..].starts_with(token.as_bytes()) {
            self.i += token.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_space();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// The paths a use tree at the cursor names, each after `prefix`.
    fn tree(&mut self, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        if self.eat("{") {
            loop {
                if self.eat("}") {
                    return;
                }
                self.tree(prefix.clone(), out);
                if !self.eat(",") {
                    self.eat("}");
                    return;
                }
            }
        }
        if self.eat("*") {
            let mut p = prefix;
            p.push("*".to_string());
            out.push(p);
            return;
        }
        let Some(id) = self.ident() else {
            out.push(prefix);
            return;
        };
        let mut p = prefix;
        p.push(id);
        if self.eat("::") {
            self.tree(p, out);
        } else {
            out.push(p);
            // `a::b as c`: the name it is given.
            let at = self.i;
            if self.eat("as") && self.ident().is_none() {
                self.i = at;
            }
        }
    }
}

/// The absolute paths (from the crate root) written in `text`, a file of
/// module `module`, each with its line.
fn paths(text: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let s = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let starts_word = i == 0 || !(is_ident(s[i - 1]) || s[i - 1] == b':');
        let rest = &s[i..];
        let root: Option<(Vec<String>, usize)> = if !starts_word {
            None
        } else if rest.starts_with(b"crate") && !rest.get(5).is_some_and(|b| is_ident(*b)) {
            Some((Vec::new(), 5))
        } else if rest.starts_with(b"frontend") && !rest.get(8).is_some_and(|b| is_ident(*b)) {
            Some((Vec::new(), 0))
        } else if rest.starts_with(b"super") && !rest.get(5).is_some_and(|b| is_ident(*b)) {
            // `super` is read in the path's tree; it pops from the file's module.
            Some((module.to_vec(), 0))
        } else {
            None
        };
        let Some((prefix, skip)) = root else {
            i += 1;
            continue;
        };
        let line = text[..i].matches('\n').count() + 1;
        let mut r = Reader { s, i: i + skip };
        if skip > 0 && !r.eat("::") {
            i += 1;
            continue;
        }
        let mut found = Vec::new();
        r.tree(prefix, &mut found);
        for p in found {
            // `super` pops a segment of the file's module path.
            let mut resolved: Vec<String> = Vec::new();
            for seg in p {
                if seg == "super" {
                    resolved.pop();
                } else {
                    resolved.push(seg);
                }
            }
            out.push((line, resolved));
        }
        i = r.i.max(i + 1);
    }
    out
}

/// The lines of the files under `dir` (a folder of `frontend/`, at
/// `relative`) that name a module of `forbidden`: `file:line: text`.
fn violations(frontend: &Path, folder: &str, forbidden: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![frontend.join(folder)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let module = module_path(path.strip_prefix(frontend).unwrap());
            for (line, bad) in check(&text, &module, forbidden) {
                let written = text.lines().nth(line - 1).unwrap_or("").trim();
                found.push(format!("{}:{line}: {bad}: {written}", path.display()));
            }
        }
    }
    found.sort();
    found
}

/// Each line of `text` (a file of module `module`) whose paths reach a
/// module of `forbidden` (or all of `frontend::*`), with that path.
fn check(text: &str, module: &[String], forbidden: &[&str]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (line, p) in paths(&code(text), module) {
        let bad = p.first().is_some_and(|s| s == "frontend")
            && p.get(1)
                .is_some_and(|s| s == "*" || forbidden.contains(&s.as_str()));
        if bad && !out.iter().any(|(l, _)| *l == line) {
            out.push((line, p.join("::")));
        }
    }
    out
}

#[test]
fn each_folder_imports_only_the_layers_below() {
    let frontend = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/frontend");
    let mut found = Vec::new();
    for (folder, forbidden) in FORBIDDEN {
        found.extend(violations(&frontend, folder, forbidden));
    }
    assert!(
        found.is_empty(),
        "frontend layering: trace/ imports neither bodies/ nor lib/, bodies/ never imports lib/, and no folder imports the entry (calls, parse, import):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_reads_every_form_of_path() {
    let module = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let trace = module("frontend::trace::tracer");
    let forbidden = FORBIDDEN[0].1;
    let bad = [
        "use crate::frontend::lib::call::Module;",
        "let x = crate::frontend::bodies::vmap::f(t);",
        "use crate::frontend::{trace::value::Value, lib::nn};",
        "use crate::{frontend::{lib::nn, trace::jnp}};",
        "use crate::frontend::{\n    trace::jnp,\n    bodies::callables::Callable,\n};",
        "use super::super::lib::nn;",
        "use super::super::{bodies, trace};",
        "use crate::frontend::*;",
        "use crate::frontend::parse::Signature;",
        "use crate::frontend::{trace::jnp as j, lib::nn};",
    ];
    for text in bad {
        assert!(
            !check(text, &trace, forbidden).is_empty(),
            "not caught: {text}"
        );
    }
    // From `trace/mod.rs`, one `super` is the frontend.
    let trace_mod = module("frontend::trace");
    assert!(!check("use super::lib::nn;", &trace_mod, forbidden).is_empty());
    let fine = [
        "use crate::frontend::trace::jnp;",
        "use super::value::Value;",
        "use crate::frontend::{trace::jnp, trace::value};",
        "pub(super) fn f() {}",
        "// use crate::frontend::lib::nn;",
        "use crate::ir::parse::parse_jaxpr;",
    ];
    for text in fine {
        assert!(
            check(text, &trace, forbidden).is_empty(),
            "wrongly caught: {text}"
        );
    }
}
