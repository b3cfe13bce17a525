//! The repository's structural rules (ARCHITECTURE.md), checked on its
//! source: no source file over 900 lines, and the compiler's phases each
//! naming only the phases before them (`jax-core`'s `ir/`, `prims/`,
//! `transform/`, then its composites; `jax-compiler`'s `frontend/`,
//! `backend/`, `expand/`). The frontend's own folders are checked by
//! `frontend/layering.rs`.

use std::path::{Path, PathBuf};

/// The longest a source file may be.
const MAX_LINES: usize = 900;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file below `dir`, build outputs left out.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_900_lines() {
    let mut files = Vec::new();
    for dir in [
        "runtime", "core", "compiler", "dtypes", "macros", "ui-tests", "tests", "examples",
        "benches", "fuzz",
    ] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 300, "found only {} source files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).ok()?.lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines (split each along a seam it has): {long:#?}"
    );
}

/// The code of a file a phase is made of: its `//` comments and its
/// `#[cfg(test)]` part (tests may call the whole crate) left out.
fn code(text: &str) -> String {
    let end = text.find("#[cfg(test)]").unwrap_or(text.len());
    text[..end]
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the files of a crate's `src` name a module of a later phase than
/// their own: `phases` in order, each a module of the crate (a folder or a
/// file), then, if `others_last`, every other module as one last phase.
fn phase_breaks(src: &Path, phases: &[&str], others_last: bool) -> Vec<String> {
    let rank = |module: &str| -> Option<usize> {
        match phases.iter().position(|p| *p == module) {
            Some(k) => Some(k),
            None if others_last => Some(phases.len()),
            None => None,
        }
    };
    // The crate's modules: its folders and files (`crate::Result`, a
    // re-export, is none).
    let modules: Vec<String> = std::fs::read_dir(src)
        .unwrap()
        .flatten()
        .map(|e| {
            e.file_name()
                .to_str()
                .unwrap()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut breaks = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        let own = first.strip_suffix(".rs").unwrap_or(first);
        if rel.components().count() == 1 && (own == "lib" || own == "main") {
            continue;
        }
        let Some(own_rank) = rank(own) else { continue };
        let text = code(&std::fs::read_to_string(&f).unwrap());
        for (at, _) in text.match_indices("crate::") {
            let name: String = text[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !modules.contains(&name) {
                continue;
            }
            if let Some(r) = rank(&name) {
                if r > own_rank {
                    breaks.push(format!("{} names crate::{name}", rel.display()));
                }
            }
        }
    }
    breaks
}

#[test]
fn each_phase_names_only_the_phases_before_it() {
    let core = phase_breaks(
        &root().join("core/src"),
        &["error", "ir", "prims", "transform"],
        true,
    );
    assert!(
        core.is_empty(),
        "jax-core: error.rs, ir/, prims/, transform/, then the composites, each naming only those before it: {core:#?}"
    );
    let compiler = phase_breaks(
        &root().join("compiler/src"),
        &["frontend", "backend", "expand"],
        false,
    );
    assert!(
        compiler.is_empty(),
        "jax-compiler: frontend/, backend/, expand/, each naming only those before it: {compiler:#?}"
    );
}

#[test]
fn a_break_of_the_order_is_found() {
    let dir = std::env::temp_dir().join(format!("house_rules_{}", std::process::id()));
    for phase in ["frontend", "backend", "expand"] {
        std::fs::create_dir_all(dir.join(phase)).unwrap();
    }
    std::fs::write(
        dir.join("backend/a.rs"),
        "use crate::expand::x;\n// crate::expand\n",
    )
    .unwrap();
    std::fs::write(dir.join("backend/b.rs"), "use crate::frontend::y;\n").unwrap();
    std::fs::write(
        dir.join("backend/c.rs"),
        "fn f() {}\n#[cfg(test)]\nmod tests { use crate::expand::z; }\n",
    )
    .unwrap();
    let breaks = phase_breaks(&dir, &["frontend", "backend", "expand"], false);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(breaks, ["backend/a.rs names crate::expand"]);
}
