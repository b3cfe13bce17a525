//! A Wadler–Lindig pretty printer with the same layout decisions as JAX's
//! (`jax/_src/pretty_printer.py`), so printed jaxprs break lines where
//! `jax.make_jaxpr` does: a group is printed flat when it fits in the
//! remaining width, otherwise each of its breaks starts a new line.

use std::rc::Rc;

/// A document to lay out.
#[derive(Clone, Debug)]
pub enum Doc {
    Text(String),
    Concat(Vec<Doc>),
    /// A space (or the given text) when flat, a newline plus indentation when broken.
    Break(String),
    Group(Rc<Doc>),
    Nest(usize, Rc<Doc>),
}

pub fn text(s: impl Into<String>) -> Doc {
    Doc::Text(s.into())
}

pub fn nil() -> Doc {
    Doc::Concat(Vec::new())
}

pub fn brk() -> Doc {
    Doc::Break(" ".into())
}

pub fn brk_text(s: &str) -> Doc {
    Doc::Break(s.into())
}

pub fn group(d: Doc) -> Doc {
    Doc::Group(Rc::new(d))
}

pub fn nest(n: usize, d: Doc) -> Doc {
    Doc::Nest(n, Rc::new(d))
}

pub fn concat(ds: Vec<Doc>) -> Doc {
    Doc::Concat(ds)
}

/// `docs` separated by `sep`.
pub fn join(sep: Doc, docs: Vec<Doc>) -> Doc {
    let mut out = Vec::with_capacity(docs.len() * 2);
    for (i, d) in docs.into_iter().enumerate() {
        if i > 0 {
            out.push(sep.clone());
        }
        out.push(d);
    }
    Doc::Concat(out)
}

impl std::ops::Add for Doc {
    type Output = Doc;
    fn add(self, rhs: Doc) -> Doc {
        Doc::Concat(vec![self, rhs])
    }
}

/// Whether `doc`, printed flat, fits in `width` columns (only the group itself
/// is measured, not the rest of the line, as in JAX).
fn fits(doc: &Doc, mut width: isize) -> bool {
    let mut agenda = vec![doc];
    while width >= 0 {
        let Some(d) = agenda.pop() else { break };
        match d {
            Doc::Text(s) | Doc::Break(s) => width -= s.len() as isize,
            Doc::Concat(ds) => agenda.extend(ds.iter().rev()),
            Doc::Group(d) | Doc::Nest(_, d) => agenda.push(d),
        }
    }
    width >= 0
}

/// Lays `doc` out in `width` columns.
pub fn format(doc: &Doc, width: usize) -> String {
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Flat,
        Break,
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut agenda: Vec<(usize, Mode, &Doc)> = vec![(0, Mode::Break, doc)];
    while let Some((indent, mode, d)) = agenda.pop() {
        match d {
            Doc::Text(s) => line.push_str(s),
            Doc::Concat(ds) => agenda.extend(ds.iter().rev().map(|c| (indent, mode, c))),
            Doc::Break(s) => {
                if mode == Mode::Break {
                    lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
                } else {
                    line.push_str(s);
                }
            }
            Doc::Group(child) => {
                let flat = fits(child, width as isize - line.len() as isize);
                agenda.push((indent, if flat { Mode::Flat } else { Mode::Break }, child));
            }
            Doc::Nest(n, child) => agenda.push((indent + n, mode, child)),
        }
    }
    lines.push(line);
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_break_only_when_too_wide() {
        let d = group(nest(2, text("f(") + brk() + text("x") + brk() + text("y)")));
        assert_eq!(format(&d, 80), "f( x y)");
        assert_eq!(format(&d, 4), "f(\n  x\n  y)");
    }
}
