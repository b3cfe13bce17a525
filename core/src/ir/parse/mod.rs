//! Reads a jaxpr as `jax.make_jaxpr` prints it: the inverse of `print.rs`.
//!
//! Each equation is checked three ways, so that a program this compiler
//! would misread is an error rather than a wrong answer: its primitive must
//! be known; its parameters, read by the primitive's own rule
//! ([`crate::ir::primitive::PrimDef::parse_params`]), must print back to the
//! text they came from (a parameter the rule does not model, or models with
//! another value, is named); and the primitive's abstract evaluation must
//! give the types the text declares for its results.

use std::collections::HashMap;

use jax_dtypes::DType;

use crate::ir::primitive::{Params, Prim, NESTED};
use crate::ir::print::SCALAR_JAXPR;
use crate::ir::shapes::Constraints;
use crate::ir::{cast_scalar, Atom, Aval, Dim, Eqn, Jaxpr, Literal, Scalar, Var};

mod values;
pub use values::*;

/// The largest size of an axis, and the most elements of an array, a
/// jaxpr may declare: 2^63 - 1, what an `i64` index (XLA's, and the
/// runtime's) and a Rust allocation's length (`isize::MAX`) can count.
pub const MAX_SIZE: usize = i64::MAX as usize;

/// How deep programs may nest in a jaxpr (a `jit` in a `cond` branch in a
/// `scan` body is 3 deep): every phase after the parser (batching,
/// differentiation, simplification, emission) walks a nested program with
/// a nested call, so deeper text is an error here rather than a stack
/// overflow there. JAX's own programs nest a few levels.
pub const MAX_PROGRAM_DEPTH: usize = 64;

/// How deep brackets may nest in a parameter's value (`((0, 0), (1, 1))`
/// is 2 deep).
pub const MAX_VALUE_DEPTH: usize = 64;

/// A parse error at a line and column of the text (both from 1).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub msg: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}
/// Reads the text of a jaxpr (with any top-level `let NAME = { .. } in`
/// definitions before it). `prims` finds a primitive by its printed name.
/// Constant variables get no values (the text has none): the caller
/// supplies them.
pub fn parse_jaxpr(
    text: &str,
    prims: &dyn Fn(&str) -> Option<Prim>,
    known_custom_jvp: KnownRule,
    span: proc_macro2::Span,
) -> Result<Jaxpr, ParseError> {
    let mut p = Parser {
        src: text,
        pos: 0,
        prims,
        defs: HashMap::new(),
        span,
        known_custom_jvp,
        def_spans: HashMap::new(),
        reading: Vec::new(),
        outer_outs: Vec::new(),
        programs: 0,
        brackets: 0,
        too_deep: false,
    };
    p.ws();
    // Shared programs may be named before they are defined: each is found
    // first, and read where it is first named.
    while p.peek_word() == Some("let") {
        p.word("let")?;
        p.ws();
        let at = p.pos;
        let name = p.ident()?;
        if let Some(&first) = p.def_spans.get(&name) {
            let (line, col) = p.line_col(first);
            return Err(p.error_at(
                at,
                format!("`{name}` is already defined (its program starts at {line}:{col}): each shared program is named once"),
            ));
        }
        p.expect("=")?;
        p.ws();
        let start = p.pos;
        p.skip_braces()?;
        p.word("in")?;
        p.def_spans.insert(name, start);
    }
    let mut names: Vec<(usize, String)> =
        p.def_spans.iter().map(|(n, &at)| (at, n.clone())).collect();
    names.sort();
    for (_, name) in names {
        p.def(&name)?;
    }
    let j = p.jaxpr()?;
    p.ws();
    if p.pos < p.src.len() {
        return Err(p.error("text after the jaxpr"));
    }
    Ok(j)
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    prims: &'a dyn Fn(&str) -> Option<Prim>,
    /// Top-level `let NAME = { .. } in` programs, which parameters name.
    defs: HashMap<String, Jaxpr>,
    span: proc_macro2::Span,
    known_custom_jvp: KnownRule,
    /// Where each top-level `let NAME = { .. } in` program starts.
    def_spans: HashMap<String, usize>,
    /// The shared programs being read (a cycle is an error).
    reading: Vec<String>,
    /// The result types of the equation whose parameters are being read:
    /// a `jit` body's output the caller drops prints as `_`, aliased to
    /// the caller's `_` binder, and takes its type from it.
    outer_outs: Vec<Aval>,
    /// The programs (`{ lambda .. }`) the cursor is in.
    programs: usize,
    /// The values of a parameter the cursor is in (one per bracket).
    brackets: usize,
    /// Set by a nesting error, which no fallback may turn into a value of
    /// unknown form.
    too_deep: bool,
}

/// A jaxpr's names for its variables, each with where it is bound and
/// as what.
type Scope = HashMap<String, Binding>;

/// Where a name of a jaxpr is bound: a duplicate binder is an error
/// naming this place.
#[derive(Clone, Copy)]
struct Binding {
    var: Var,
    pos: usize,
    kind: &'static str,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

impl<'a> Parser<'a> {
    fn line_col(&self, pos: usize) -> (usize, usize) {
        let before = &self.src[..pos.min(self.src.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, col)
    }

    fn error_at(&self, pos: usize, msg: impl Into<String>) -> ParseError {
        let (line, col) = self.line_col(pos);
        ParseError {
            line,
            col,
            msg: msg.into(),
        }
    }

    fn error(&self, msg: impl Into<String>) -> ParseError {
        self.error_at(self.pos, msg)
    }

    fn bytes(&self) -> &[u8] {
        self.src.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.ws();
        if self.src[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{s}`")))
        }
    }

    /// The identifier at the cursor (after whitespace), not consumed.
    fn peek_word(&mut self) -> Option<&'a str> {
        self.ws();
        let src: &'a str = self.src;
        let b = src.as_bytes();
        if !b.get(self.pos).is_some_and(|c| is_ident_start(*c)) {
            return None;
        }
        let end = (self.pos..b.len())
            .find(|&i| !is_ident(b[i]))
            .unwrap_or(b.len());
        Some(&src[self.pos..end])
    }

    fn ident(&mut self) -> Result<String, ParseError> {
        match self.peek_word() {
            Some(w) => {
                let w = w.to_string();
                self.pos += w.len();
                Ok(w)
            }
            None => Err(self.error("expected a name")),
        }
    }

    fn word(&mut self, w: &str) -> Result<(), ParseError> {
        if self.peek_word() == Some(w) {
            self.pos += w.len();
            Ok(())
        } else {
            Err(self.error(format!("expected `{w}`")))
        }
    }
}

impl<'a> Parser<'a> {
    /// Binders `a:f32[3] b:i32[]` up to `stop` (not consumed); each name
    /// defined in `scope` (`_` defines nothing) as a `kind`.
    fn binders(
        &mut self,
        j: &mut Jaxpr,
        scope: &mut Scope,
        stop: &str,
        kind: &'static str,
    ) -> Result<Vec<Var>, ParseError> {
        let mut vs = Vec::new();
        loop {
            self.ws();
            if self.src[self.pos..].starts_with(stop) {
                return Ok(vs);
            }
            let pos = self.pos;
            let name = self.ident()?;
            self.unbound(scope, &name, pos)?;
            self.expect(":")?;
            let aval = self.aval()?;
            let var = j.new_var(aval);
            if name != "_" {
                scope.insert(name, Binding { var, pos, kind });
            }
            vs.push(var);
        }
    }

    /// A binder's `name` at `pos` is not bound yet in this jaxpr: JAX
    /// names each variable once, and a second binder would silently hide
    /// the first from the equations after it.
    fn unbound(&self, scope: &Scope, name: &str, pos: usize) -> Result<(), ParseError> {
        match scope.get(name) {
            Some(b) if name != "_" => {
                let (line, col) = self.line_col(b.pos);
                Err(self.error_at(
                    pos,
                    format!(
                        "`{name}` is already bound at {line}:{col} (as {}): a jaxpr binds each name once; rename this binder and the uses after it",
                        b.kind
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    /// `{ lambda consts ; ins . let eqns in (outs) }`, at most
    /// [`MAX_PROGRAM_DEPTH`] deep.
    fn jaxpr(&mut self) -> Result<Jaxpr, ParseError> {
        self.ws();
        if self.programs == MAX_PROGRAM_DEPTH {
            self.too_deep = true;
            return Err(self.error(format!(
                "programs nest more than {MAX_PROGRAM_DEPTH} deep here: this compiler takes at most {MAX_PROGRAM_DEPTH} levels of `{{ lambda .. }}` inside one another"
            )));
        }
        // A program's parameters count their brackets afresh.
        let brackets = std::mem::take(&mut self.brackets);
        self.programs += 1;
        let j = self.program();
        self.programs -= 1;
        self.brackets = brackets;
        j
    }

    fn program(&mut self) -> Result<Jaxpr, ParseError> {
        self.expect("{")?;
        self.word("lambda")?;
        let mut j = Jaxpr::default();
        let mut scope = Scope::new();
        let consts = self.binders(&mut j, &mut scope, ";", "a constant")?;
        self.expect(";")?;
        j.constvars = consts.into_iter().map(|v| (v, Vec::new())).collect();
        j.invars = self.binders(&mut j, &mut scope, ".", "an input")?;
        self.expect(".")?;
        self.word("let")?;
        loop {
            self.ws();
            if self.at_in() {
                break;
            }
            self.eqn(&mut j, &mut scope)?;
            self.eat(";");
        }
        self.word("in")?;
        self.expect("(")?;
        loop {
            self.ws();
            if self.eat(")") {
                break;
            }
            let dropped = self.src[self.pos..].starts_with('_')
                && matches!(self.bytes().get(self.pos + 1), Some(b',' | b')' | b' '));
            let a = if dropped {
                self.pos += 1;
                self.dropped_output(&mut j)?
            } else {
                self.atom(&scope)?
            };
            j.outvars.push(a);
            self.ws();
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        self.expect("}")?;
        Ok(j)
    }

    /// A `jit` body's output printed `_` (the caller drops it, and JAX
    /// names it as the caller's binder): zeros of the caller's result type,
    /// which nothing reads.
    fn dropped_output(&mut self, j: &mut Jaxpr) -> Result<Atom, ParseError> {
        let k = j.outvars.len();
        let Some(aval) = self.outer_outs.get(k).cloned() else {
            return Err(
                self.error("an output printed `_` outside a call whose result gives its type")
            );
        };
        let zero = Atom::Lit(Literal {
            value: cast_scalar(Scalar::Int(0), aval.dtype),
            aval: Aval::scalar(aval.dtype, false),
        });
        if aval.rank() == 0 {
            return Ok(zero);
        }
        let prim = (self.prims)("broadcast_in_dim").expect("broadcast_in_dim is a primitive");
        let v = j.new_var(aval.clone());
        j.eqns.push(Eqn {
            prim,
            params: Params::BroadcastInDim {
                shape: aval.shape,
                dims: Vec::new(),
                np_ints: 0,
            },
            ins: vec![zero],
            outs: vec![v],
            span: self.span,
        });
        Ok(Atom::Var(v))
    }

    /// Moves past a `{ .. }` with the braces inside it.
    fn skip_braces(&mut self) -> Result<(), ParseError> {
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ if depth == 0 => return Err(self.error_at(start, "expected `{`")),
                _ => {}
            }
        }
        Err(self.error_at(start, "unclosed `{`"))
    }

    /// The shared program `name`, read the first time it is named.
    fn def(&mut self, name: &str) -> Result<Jaxpr, ParseError> {
        if let Some(j) = self.defs.get(name) {
            return Ok(j.clone());
        }
        let start = self.def_spans[name];
        if self.reading.iter().any(|n| n == name) {
            return Err(self.error_at(start, format!("`{name}` is defined in terms of itself")));
        }
        let (here, caller) = (self.pos, std::mem::take(&mut self.outer_outs));
        self.pos = start;
        self.reading.push(name.to_string());
        let j = self.jaxpr();
        self.reading.pop();
        (self.pos, self.outer_outs) = (here, caller);
        let j = j?;
        self.defs.insert(name.to_string(), j.clone());
        Ok(j)
    }

    /// The keyword `in` ending a jaxpr's equations (a variable may be
    /// named `in` too, but is never followed by `(`).
    fn at_in(&mut self) -> bool {
        if self.peek_word() != Some("in") {
            return false;
        }
        let rest = self.src[self.pos + 2..].trim_start();
        rest.starts_with('(')
    }

    /// Whether the cursor is at the end of an equation's operands: the next
    /// equation's binders (`name:`), an effect's primitive (`name[`), a `;`,
    /// or the jaxpr's `in (`.
    fn at_operands_end(&mut self) -> bool {
        self.ws();
        match self.peek() {
            None | Some(b';') | Some(b'}') => return true,
            _ => {}
        }
        if self.at_in() {
            return true;
        }
        if let Some(w) = self.peek_word() {
            // `inf:f32[]` is a literal operand, not the next equation's
            // binder (a variable would be named `inf` only past the
            // 5000th; its `=` would then be an error, never a misreading).
            if matches!(w, "inf" | "nan" | "True" | "False") {
                return false;
            }
            let after = self.bytes().get(self.pos + w.len()).copied();
            return matches!(after, Some(b':') | Some(b'['));
        }
        false
    }

    /// A variable or a literal (`2.0:f32[]`).
    fn atom(&mut self, scope: &Scope) -> Result<Atom, ParseError> {
        self.ws();
        let start = self.pos;
        // A complex literal is parenthesized: `(1+2j):c64[]`.
        let text = if self.peek() == Some(b'(') {
            let end = self.src[self.pos..]
                .find(')')
                .ok_or_else(|| self.error("unclosed `(`"))?;
            let t = &self.src[self.pos + 1..self.pos + end];
            self.pos += end + 1;
            t.to_string()
        } else {
            self.number_text().to_string()
        };
        if text.is_empty() {
            return Err(self.error("expected an operand"));
        }
        if self.peek() == Some(b':') {
            self.pos += 1;
            let aval = self.aval()?;
            let value = literal_value(&text, aval.dtype)
                .ok_or_else(|| self.error_at(start, format!("cannot read the literal `{text}`")))?;
            return Ok(Atom::Lit(Literal {
                value: cast_scalar(value, aval.dtype),
                aval,
            }));
        }
        match scope.get(&text) {
            Some(b) => Ok(Atom::Var(b.var)),
            None => Err(self.error_at(start, format!("`{text}` is not defined"))),
        }
    }

    fn eqn(&mut self, j: &mut Jaxpr, scope: &mut Scope) -> Result<(), ParseError> {
        self.ws();
        let start = self.pos;
        // Results, unless this is an effect (`debug_callback[..] a`).
        let mut outs = Vec::new();
        let mut out_names = Vec::new();
        let effect = {
            let w = self.peek_word().unwrap_or("");
            let after = self.bytes().get(self.pos + w.len()).copied();
            after != Some(b':')
        };
        if !effect {
            loop {
                self.ws();
                if self.peek() == Some(b'=') {
                    self.pos += 1;
                    break;
                }
                let bpos = self.pos;
                let name = self.ident()?;
                self.unbound(scope, &name, bpos)?;
                if let Some((_, p)) = out_names.iter().find(|(n, _)| *n == name && name != "_") {
                    let (line, col) = self.line_col(*p);
                    return Err(self.error_at(
                        bpos,
                        format!("`{name}` is already bound at {line}:{col} (a result of this equation): a jaxpr binds each name once; rename this binder and the uses after it"),
                    ));
                }
                self.expect(":")?;
                let aval = self.aval()?;
                outs.push(aval);
                out_names.push((name, bpos));
            }
        }
        self.ws();
        let prim_pos = self.pos;
        let name = self.ident()?;
        let prim = (self.prims)(&name).ok_or_else(|| {
            self.error_at(
                prim_pos,
                format!("unknown primitive `{name}`: this compiler has no rules for it"),
            )
        })?;
        let params = if self.peek() == Some(b'[') {
            self.pos += 1;
            let caller = std::mem::replace(&mut self.outer_outs, outs.clone());
            let params = self.params();
            self.outer_outs = caller;
            params?
        } else {
            Vec::new()
        };
        let mut ins = Vec::new();
        while !self.at_operands_end() {
            ins.push(self.atom(scope)?);
        }
        let in_avals: Vec<Aval> = ins.iter().map(|a| j.atom_aval(a).clone()).collect();
        let texts: Vec<(String, String, usize, usize)> = params
            .iter()
            .map(|p| (p.name.clone(), p.raw.clone(), p.line, p.col))
            .collect();
        let mut reader = ParamReader {
            prim: prim.name,
            params,
            operands: None,
            instead: None,
            prologue: Vec::new(),
            loose: Vec::new(),
            known_custom_jvp: self.known_custom_jvp,
        };
        // The rules index their operands, as traced programs always have
        // the right number: a wrong count in a file must not panic.
        let guard = |r: std::thread::Result<Result<Params, String>>| {
            r.unwrap_or_else(|_| {
                Err(format!(
                    "`{}` cannot take these operands ({})",
                    prim.name,
                    in_avals
                        .iter()
                        .map(|a| a.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        };
        let parsed = guard(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
            || (prim.parse_params)(&mut reader, &in_avals, &outs),
        )))
        .map_err(|m| self.error_at(prim_pos, m))?;
        let prim = reader.instead.unwrap_or(prim);
        let (mut ins, mut in_avals): (Vec<Atom>, Vec<Aval>) = match &reader.operands {
            Some(order) => (
                order.iter().map(|&k| ins[k].clone()).collect(),
                order.iter().map(|&k| in_avals[k].clone()).collect(),
            ),
            None => (ins, in_avals),
        };
        for (k, p, params) in std::mem::take(&mut reader.prologue) {
            let mut c = Constraints::default();
            let avals = (p.abstract_eval)(std::slice::from_ref(&in_avals[k]), &params, &mut c)
                .map_err(|m| self.error_at(prim_pos, format!("`{}`: {m}", prim.name)))?;
            let v = j.new_var(avals[0].clone());
            j.eqns.push(Eqn {
                prim: p,
                params,
                ins: vec![ins[k].clone()],
                outs: vec![v],
                span: self.span,
            });
            (ins[k], in_avals[k]) = (Atom::Var(v), avals[0].clone());
        }
        if let Some(p) = reader.params.iter().find(|p| !p.read) {
            return Err(ParseError {
                line: p.line,
                col: p.col,
                msg: format!(
                    "`{}` has no parameter `{}` this compiler understands",
                    prim.name, p.name
                ),
            });
        }
        let texts: Vec<_> = texts
            .into_iter()
            .filter(|t| !reader.loose.contains(&t.0))
            .collect();
        self.check_printed(prim, &parsed, &in_avals, &texts, &reader.loose, prim_pos)?;
        let mut constraints = Constraints::default();
        let avals = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (prim.abstract_eval)(&in_avals, &parsed, &mut constraints)
        }))
        .unwrap_or_else(|_| {
            Err(format!(
                "cannot take these operands ({})",
                in_avals
                    .iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
        .map_err(|m| self.error_at(prim_pos, format!("`{}`: {m}", prim.name)))?;
        let declared = if effect { avals.len() } else { outs.len() };
        if avals.len() != declared {
            return Err(self.error_at(
                start,
                format!(
                    "`{}` gives {} results, the text binds {}",
                    prim.name,
                    avals.len(),
                    outs.len()
                ),
            ));
        }
        let mut out_vars = Vec::new();
        for (k, a) in avals.into_iter().enumerate() {
            if let Some(decl) = outs.get(k) {
                if decl.dtype != a.dtype || decl.shape != a.shape {
                    let (n, p) = &out_names[k];
                    return Err(self.error_at(
                        *p,
                        format!("`{n}` is declared {decl} but `{}` gives {a}", prim.name),
                    ));
                }
            }
            let v = j.new_var(a);
            if let Some((n, p)) = out_names.get(k) {
                if n != "_" {
                    let kind = "a result of an equation";
                    scope.insert(
                        n.clone(),
                        Binding {
                            var: v,
                            pos: *p,
                            kind,
                        },
                    );
                }
            }
            out_vars.push(v);
        }
        j.eqns.push(Eqn {
            prim,
            params: parsed,
            ins,
            outs: out_vars,
            span: self.span,
        });
        Ok(())
    }

    /// The parameters read print back as written (nested programs aside,
    /// which were parsed as programs).
    fn check_printed(
        &self,
        prim: Prim,
        parsed: &Params,
        in_avals: &[Aval],
        texts: &[(String, String, usize, usize)],
        loose: &[String],
        prim_pos: usize,
    ) -> Result<(), ParseError> {
        let printed =
            std::panic::catch_unwind(|| (prim.print_params)(in_avals, parsed)).map_err(|_| {
                self.error_at(
                    prim_pos,
                    format!("`{}` cannot take these operands", prim.name),
                )
            })?;
        for (name, raw, line, col) in texts {
            let at = |msg: String| ParseError {
                line: *line,
                col: *col,
                msg,
            };
            match printed.iter().find(|(k, _)| k == name) {
                None => {
                    return Err(at(format!(
                        "`{}`'s parameter `{name}={raw}` is not supported",
                        prim.name
                    )))
                }
                Some((_, v)) if v == NESTED || v.starts_with(SCALAR_JAXPR) => {}
                // NumPy integers print as `np.int64(k)` where JAX computed
                // them with NumPy: the same value as `k`.
                Some((_, v)) if strip_np(v) != strip_np(raw) => {
                    return Err(at(format!(
                        "`{}`'s parameter `{name}={raw}` is not supported (this compiler reads it as `{name}={v}`)",
                        prim.name
                    )))
                }
                Some(_) => {}
            }
        }
        if let Some((k, v)) = printed
            .iter()
            .find(|(k, _)| !texts.iter().any(|(n, ..)| n == k) && !loose.iter().any(|l| l == k))
        {
            return Err(self.error_at(
                prim_pos,
                format!(
                    "`{}` lacks the parameter `{k}` (expected `{k}={v}`)",
                    prim.name
                ),
            ));
        }
        Ok(())
    }
}
