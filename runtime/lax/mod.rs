//! The strict layer, as `jax.lax`: operands must have the same dtype (a
//! mismatch is a compile error), and parameters are explicit.

mod complex;
mod control;
pub(crate) mod conv;
mod dot;
mod dynamic;
mod elementwise;
pub(crate) mod fast;
mod reduce;
mod slicing;
mod sort;
mod window;

pub use complex::*;
pub use control::*;
pub use conv::*;
pub use dot::*;
pub use dynamic::*;
pub use elementwise::*;
pub use reduce::*;
pub use slicing::*;
pub use sort::*;
pub use window::*;

#[cfg(test)]
mod layering {
    /// `lax` is the layer `jnp` is written over (as JAX's `jnp` over
    /// `lax`), and `eager` (which runs composites for `jnp`) sits between
    /// them: no file of `runtime/lax/` or `runtime/eager/` names
    /// `crate::jnp`, tests aside (they may compare with any layer).
    #[test]
    fn lax_never_imports_jnp() {
        fn walk(dir: &std::path::Path, needle: &str, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, needle, found);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && path.file_name().is_some_and(|n| n != "tests.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for (n, line) in text.lines().enumerate() {
                        let code = line.split("//").next().unwrap_or("");
                        if code.contains(needle) {
                            found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                        }
                    }
                }
            }
        }
        // Spelled apart, so that this file does not name it.
        let needle = ["crate", "jnp"].join("::");
        let mut found = Vec::new();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for dir in ["runtime/lax", "runtime/eager"] {
            walk(&root.join(dir), &needle, &mut found);
        }
        assert!(
            found.is_empty(),
            "lax or eager imports jnp:\n{}",
            found.join("\n")
        );
    }
}
