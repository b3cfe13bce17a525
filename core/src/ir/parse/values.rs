//! Parameter values and types as the text writes them: what a
//! primitive's `parse_params` reads ([`ParamReader`]), avals, sizes and
//! literals.

use super::*;

/// A parameter's value, read as the Python value JAX printed.
#[derive(Clone, Debug)]
pub enum PVal {
    Int(i128),
    Float(f64),
    /// A bare name: `None`, `True`, `float32`, `GatherScatterMode.CLIP`, `relu`.
    Name(String),
    /// A quoted string: `'i'`.
    Str(String),
    Tuple(Vec<PVal>),
    List(Vec<PVal>),
    /// `np.int64(2)`, `GatherDimensionNumbers(offset_dims=(), ..)`: the
    /// callee and its arguments, keyword ones named.
    Call(String, Vec<(Option<String>, PVal)>),
    /// A nested program (`{ lambda ... }`).
    Jaxpr(Box<Jaxpr>),
    /// A name that is also a top-level `let NAME = { ... } in` program: a
    /// name where one is read (`jit`'s `name=_uniform`), the program where
    /// one is (`jaxpr=_uniform`).
    Named(String, Box<Jaxpr>),
    /// Text the reader does not model (`<function f at 0x..>`).
    Raw(String),
}

impl PVal {
    /// An integer, also as `np.int64(k)`.
    pub fn int(&self) -> Option<i128> {
        match self {
            PVal::Int(i) => Some(*i),
            PVal::Call(f, args) if f.starts_with("np.int") && args.len() == 1 => args[0].1.int(),
            _ => None,
        }
    }

    /// Whether this is `np.int64(k)` (JAX holds the number as a NumPy integer).
    pub fn is_np_int(&self) -> bool {
        matches!(self, PVal::Call(f, _) if f.starts_with("np.int"))
    }

    /// The items of a tuple or a list.
    pub fn items(&self) -> Option<&[PVal]> {
        match self {
            PVal::Tuple(v) | PVal::List(v) => Some(v),
            _ => None,
        }
    }

    /// Non-negative integers of a tuple or list, with the mask of those
    /// printed as NumPy integers (bit `k` for item `k`).
    pub fn usizes_np(&self) -> Option<(Vec<usize>, u32)> {
        let items = self.items()?;
        let mut mask = 0;
        let mut out = Vec::new();
        for (k, it) in items.iter().enumerate() {
            out.push(usize::try_from(it.int()?).ok()?);
            if it.is_np_int() && k < 32 {
                mask |= 1 << k;
            }
        }
        Some((out, mask))
    }

    pub fn usizes(&self) -> Option<Vec<usize>> {
        self.usizes_np().map(|(v, _)| v)
    }

    /// A shape: sizes, or names of symbolic sizes (`(N, 3)`).
    pub fn dims(&self) -> Option<Vec<Dim>> {
        self.items()?
            .iter()
            .map(|it| match it {
                PVal::Name(n) => Some(Dim::Sym(n.clone())),
                it => usize::try_from(it.int()?).ok().map(Dim::Lit),
            })
            .collect()
    }

    pub fn name(&self) -> Option<&str> {
        match self {
            PVal::Name(n) | PVal::Named(n, _) => Some(n),
            _ => None,
        }
    }

    pub fn bool(&self) -> Option<bool> {
        match self.name()? {
            "True" => Some(true),
            "False" => Some(false),
            _ => None,
        }
    }

    pub fn float(&self) -> Option<f64> {
        match self {
            PVal::Float(f) => Some(*f),
            PVal::Int(i) => Some(*i as f64),
            PVal::Name(n) => match n.as_str() {
                "nan" => Some(f64::NAN),
                "inf" => Some(f64::INFINITY),
                "-inf" => Some(f64::NEG_INFINITY),
                _ => None,
            },
            _ => None,
        }
    }

    /// A keyword argument of a call (`offset_dims` of `GatherDimensionNumbers(..)`).
    pub fn kwarg(&self, key: &str) -> Option<&PVal> {
        match self {
            PVal::Call(_, args) => args
                .iter()
                .find(|(k, _)| k.as_deref() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// One `name=value` of an equation, with where its value starts.
#[derive(Debug)]
pub struct Param {
    pub name: String,
    pub value: PVal,
    /// The value exactly as written.
    pub raw: String,
    pub line: usize,
    pub col: usize,
    pub(super) read: bool,
}

/// An equation's parameters, as a primitive's `parse_params` rule reads
/// them: each read marks the parameter understood; one left unread is an
/// error naming it.
pub struct ParamReader {
    pub prim: &'static str,
    pub(super) params: Vec<Param>,
    /// Set by a rule whose primitive prints its operands in another order
    /// than it holds them (a loop prints its invariants first): operand `k`
    /// of the equation is printed operand `operands[k]`.
    pub operands: Option<Vec<usize>>,
    /// Set by a rule when the equation is another primitive of the same
    /// printed name, told apart by its parameters (`psum` over axis names,
    /// or over array axes).
    pub instead: Option<Prim>,
    /// Set by a rule whose printed parameters fold in another primitive's
    /// work on an operand (`reshape`'s `dimensions`: a transpose first):
    /// each `(k, prim, params)` makes operand `k` that primitive's result
    /// on it, in an equation of its own before this one.
    pub prologue: Vec<(usize, Prim, Params)>,
    /// Parameters [`ParamReader::ignore`]d.
    pub(super) loose: Vec<String>,
    /// The derivative rule of a JAX `custom_jvp` function this compiler
    /// knows, by name, when the text's body is that function's (the text
    /// names the rule but cannot hold it: it is Python code).
    pub known_custom_jvp: KnownRule,
}

/// See [`ParamReader::known_custom_jvp`]: the rule's program (primals and
/// tangents in, outputs and their tangents out), from the name and body.
pub type KnownRule = fn(&str, &Jaxpr) -> Option<Jaxpr>;

impl ParamReader {
    fn find(&mut self, name: &str) -> Option<&mut Param> {
        self.params.iter_mut().find(|p| p.name == name)
    }

    /// The value of `name`, if the equation has it.
    pub fn opt(&mut self, name: &str) -> Option<PVal> {
        let p = self.find(name)?;
        p.read = true;
        Some(std::mem::replace(&mut p.value, PVal::Raw(String::new())))
    }

    /// The text of `name`'s value as written.
    pub fn raw(&mut self, name: &str) -> Option<String> {
        let p = self.find(name)?;
        p.read = true;
        Some(p.raw.clone())
    }

    /// Marks `name` understood and its value irrelevant to what the
    /// program computes (`scan`'s `unroll`): not checked when the
    /// parameters print back.
    pub fn ignore(&mut self, name: &str) {
        self.skip(name);
        self.loose.push(name.to_string());
    }

    /// [`ParamReader::ignore`]s every parameter not read yet (a primitive
    /// whose parameters only place data on devices, which one process
    /// computes the same without).
    pub fn ignore_rest(&mut self) {
        let names: Vec<String> = self
            .params
            .iter()
            .filter(|p| !p.read)
            .map(|p| p.name.clone())
            .collect();
        for n in names {
            self.ignore(&n);
        }
    }

    /// Marks `name` understood though the rule keeps nothing of it (its
    /// value is checked when the parameters print back).
    pub fn skip(&mut self, name: &str) {
        if let Some(p) = self.find(name) {
            p.read = true;
        }
    }

    pub fn req(&mut self, name: &str) -> Result<PVal, String> {
        self.opt(name)
            .ok_or_else(|| format!("`{}` needs the parameter `{name}`", self.prim))
    }

    fn bad<T>(&self, name: &str, what: &str) -> Result<T, String> {
        Err(format!(
            "`{}`'s parameter `{name}` should be {what}",
            self.prim
        ))
    }

    pub fn usizes_np(&mut self, name: &str) -> Result<(Vec<usize>, u32), String> {
        match self.req(name)?.usizes_np() {
            Some(v) => Ok(v),
            None => self.bad(name, "a tuple of non-negative integers"),
        }
    }

    pub fn usizes(&mut self, name: &str) -> Result<Vec<usize>, String> {
        Ok(self.usizes_np(name)?.0)
    }

    /// A shape (see [`PVal::dims`]).
    pub fn dims(&mut self, name: &str) -> Result<Vec<Dim>, String> {
        match self.req(name)?.dims() {
            Some(v) => Ok(v),
            None => self.bad(name, "a shape (a tuple of sizes)"),
        }
    }

    pub fn int(&mut self, name: &str) -> Result<i128, String> {
        match self.req(name)?.int() {
            Some(v) => Ok(v),
            None => self.bad(name, "an integer"),
        }
    }

    pub fn usize(&mut self, name: &str) -> Result<usize, String> {
        match usize::try_from(self.int(name)?) {
            Ok(v) => Ok(v),
            Err(_) => self.bad(name, "a non-negative integer"),
        }
    }

    pub fn bool(&mut self, name: &str) -> Result<bool, String> {
        match self.req(name)?.bool() {
            Some(v) => Ok(v),
            None => self.bad(name, "`True` or `False`"),
        }
    }

    /// A dtype by NumPy name (`float32`).
    pub fn dtype(&mut self, name: &str) -> Result<DType, String> {
        match self.req(name)?.name().and_then(DType::from_name) {
            Some(d) => Ok(d),
            None => self.bad(name, "a dtype (`float32`, `int32`, ..)"),
        }
    }

    /// A bare name (`relu`, `GatherScatterMode.CLIP`).
    pub fn name(&mut self, name: &str) -> Result<String, String> {
        match self.req(name)? {
            PVal::Name(n) | PVal::Named(n, _) => Ok(n),
            _ => self.bad(name, "a name"),
        }
    }

    /// A nested program.
    pub fn jaxpr(&mut self, name: &str) -> Result<Jaxpr, String> {
        match self.req(name)? {
            PVal::Jaxpr(j) | PVal::Named(_, j) => Ok(*j),
            _ => self.bad(name, "a jaxpr (`{ lambda ... }`)"),
        }
    }

    /// A tuple of nested programs (`cond`'s `branches`).
    pub fn jaxprs(&mut self, name: &str) -> Result<Vec<Jaxpr>, String> {
        let v = self.req(name)?;
        let items = match v {
            PVal::Tuple(v) | PVal::List(v) => v,
            _ => return self.bad(name, "a tuple of jaxprs"),
        };
        items
            .into_iter()
            .map(|it| match it {
                PVal::Jaxpr(j) | PVal::Named(_, j) => Ok(*j),
                _ => self.bad(name, "a tuple of jaxprs"),
            })
            .collect()
    }
}

impl<'a> Parser<'a> {
    /// `f32[3,4]`, `key<fry>[]` (a key is its two `u32` words).
    pub(super) fn aval(&mut self) -> Result<Aval, ParseError> {
        self.ws();
        let start = self.pos;
        let (dtype, key) = if self.src[self.pos..].starts_with("key<") {
            let end = self.src[self.pos..]
                .find('>')
                .ok_or_else(|| self.error("expected `key<impl>`"))?;
            let imp = &self.src[self.pos + 4..self.pos + end];
            if imp != "fry" {
                return Err(self.error(format!(
                    "PRNG keys of `{imp}` are not supported: only threefry (`key<fry>`)"
                )));
            }
            self.pos += end + 1;
            (DType::U32, true)
        } else {
            let name = self.ident()?;
            let d = DType::ALL
                .into_iter()
                .find(|d| d.short_name() == name)
                .ok_or_else(|| self.error_at(start, format!("unknown dtype `{name}`")))?;
            (d, false)
        };
        if !self.eat("[") {
            return Err(self.error("expected `[` and the shape"));
        }
        let mut shape = Vec::new();
        loop {
            self.ws();
            if self.eat("]") {
                break;
            }
            // A number, or a symbolic size (`N`, a const generic of the
            // function this compiler printed; JAX's symbolic shapes).
            let start = self.pos;
            let end = self.src[start..]
                .find([',', ']'])
                .map_or(self.src.len(), |i| start + i);
            let text = self.src[start..end].trim();
            self.pos = end;
            shape.push(self.dim(text, start)?);
            if !self.eat(",") {
                self.expect("]")?;
                break;
            }
        }
        // Zero elements (a zero-sized axis) never overflow.
        let mut lits = shape.iter().filter_map(|d| match d {
            Dim::Lit(n) => Some(*n),
            Dim::Sym(_) => None,
        });
        if !lits.clone().any(|n| n == 0)
            && lits
                .try_fold(1usize, |acc, n| acc.checked_mul(n))
                .is_none_or(|n| n > MAX_SIZE)
        {
            return Err(self.error_at(
                start,
                format!(
                    "`{}` has more elements than this compiler supports: an array holds at most {MAX_SIZE} (2^63 - 1) elements",
                    self.src[start..self.pos].trim()
                ),
            ));
        }
        if key {
            shape.push(Dim::Lit(2));
        }
        Ok(Aval {
            dtype,
            shape,
            weak: false,
        })
    }

    /// One dimension of a shape, `text` at `pos`: a size up to
    /// [`MAX_SIZE`], or a symbolic size (a const generic, or an expression
    /// of them: `N`, `2*N`).
    pub(super) fn dim(&self, text: &str, pos: usize) -> Result<Dim, ParseError> {
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
        let too_large = |t: &str| {
            self.error_at(
                pos,
                format!("the dimension `{t}` is larger than this compiler supports: a size is at most {MAX_SIZE} (2^63 - 1)"),
            )
        };
        if digits(text) {
            return match text.parse::<usize>() {
                Ok(n) if n <= MAX_SIZE => Ok(Dim::Lit(n)),
                _ => Err(too_large(text)),
            };
        }
        let negative = text
            .strip_prefix('-')
            .is_some_and(|t| digits(t.trim_start()));
        if negative {
            return Err(self.error_at(
                pos,
                format!("the dimension `{text}` is negative: a size is 0 or more"),
            ));
        }
        use crate::ir::rust_expr::{classify, ExprKind};
        match classify(text) {
            Some(ExprKind::Negation) => Err(self.error_at(
                pos,
                format!("the dimension `{text}` is negative: a size is 0 or more"),
            )),
            Some(ExprKind::Literal { int: false }) => {
                Err(self.error_at(pos, format!("expected a dimension, found `{text}`")))
            }
            Some(_) => {
                // The integers a symbolic size is written with fit too.
                let big = text
                    .split(|c: char| !c.is_ascii_digit())
                    .find(|t| !t.is_empty() && t.parse::<usize>().map_or(true, |n| n > MAX_SIZE));
                match big {
                    Some(t) => Err(too_large(t)),
                    None => Ok(Dim::Sym(text.to_string())),
                }
            }
            None => Err(self.error_at(pos, "expected a dimension")),
        }
    }

    /// The characters of a number or of `nan`/`inf` at the cursor.
    pub(super) fn number_text(&mut self) -> &str {
        let b = self.bytes();
        let start = self.pos;
        let mut i = self.pos;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        while i < b.len()
            && (b[i].is_ascii_alphanumeric()
                || b[i] == b'.'
                || ((b[i] == b'-' || b[i] == b'+') && matches!(b[i - 1], b'e' | b'E')))
        {
            i += 1;
        }
        self.pos = i;
        &self.src[start..i]
    }

    /// `name=value ... ]` (the `[` consumed).
    pub(super) fn params(&mut self) -> Result<Vec<Param>, ParseError> {
        let mut out = Vec::new();
        loop {
            self.ws();
            if self.eat("]") {
                return Ok(out);
            }
            let name = self.ident()?;
            self.expect("=")?;
            self.ws();
            let start = self.pos;
            let (line, col) = self.line_col(start);
            // A value that is not a Python literal (a Rust expression of
            // `static_value`) is kept as its text, for the rule to judge.
            let value = match self.value() {
                Ok(v) => v,
                // A nested program's own error stands.
                Err(e)
                    if self.too_deep
                        || self.src[start..]
                            .trim_start_matches(['(', ' ', '\n'])
                            .starts_with('{') =>
                {
                    return Err(e)
                }
                Err(_) => {
                    self.pos = start;
                    self.skip_value();
                    PVal::Raw(self.src[start..self.pos].trim_end().to_string())
                }
            };
            let raw = self.src[start..self.pos].trim_end().to_string();
            out.push(Param {
                name,
                value,
                raw,
                line,
                col,
                read: false,
            });
        }
    }

    /// Moves past a value of unknown form: to the next `name=` or the
    /// closing `]` outside any brackets.
    pub(super) fn skip_value(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b'}' => depth = depth.saturating_sub(1),
                b']' if depth == 0 => return,
                b']' => depth -= 1,
                c if c.is_ascii_whitespace() && depth == 0 => {
                    let rest = self.src[self.pos..].trim_start();
                    let word = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    if word > 0 && rest[word..].starts_with('=') || rest.starts_with(']') {
                        return;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// A Python value as JAX prints parameters, its brackets at most
    /// [`MAX_VALUE_DEPTH`] deep.
    pub(super) fn value(&mut self) -> Result<PVal, ParseError> {
        self.ws();
        if self.brackets == MAX_VALUE_DEPTH {
            self.too_deep = true;
            return Err(self.error(format!(
                "brackets nest more than {MAX_VALUE_DEPTH} deep here: this compiler reads parameter values nested at most {MAX_VALUE_DEPTH} levels"
            )));
        }
        self.brackets += 1;
        let v = self.value_here();
        self.brackets -= 1;
        v
    }

    pub(super) fn value_here(&mut self) -> Result<PVal, ParseError> {
        match self.peek() {
            Some(b'{') => Ok(PVal::Jaxpr(Box::new(self.jaxpr()?))),
            Some(b'(') | Some(b'[') => {
                let close = if self.peek() == Some(b'(') { ")" } else { "]" };
                let tuple = close == ")";
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.eat(close) {
                        break;
                    }
                    let item = self.value()?;
                    // A tuple of programs (`cond`'s branches) has no commas.
                    let program = matches!(item, PVal::Jaxpr(_));
                    items.push(item);
                    self.ws();
                    if !self.eat(",") && !program {
                        self.expect(close)?;
                        break;
                    }
                }
                Ok(if tuple {
                    PVal::Tuple(items)
                } else {
                    PVal::List(items)
                })
            }
            Some(b'\'') | Some(b'"') => {
                let q = self.peek().unwrap() as char;
                let end = self.src[self.pos + 1..]
                    .find(q)
                    .ok_or_else(|| self.error("unclosed string"))?;
                let s = self.src[self.pos + 1..self.pos + 1 + end].to_string();
                self.pos += end + 2;
                Ok(PVal::Str(s))
            }
            Some(b'<') => {
                // `<function f at 0x..>`: kept as written.
                let start = self.pos;
                let mut depth = 0;
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    match c {
                        b'<' => depth += 1,
                        b'>' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                Ok(PVal::Raw(self.src[start..self.pos].to_string()))
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => {
                let start = self.pos;
                let t = self.number_text().to_string();
                if let Ok(i) = t.parse::<i128>() {
                    return Ok(PVal::Int(i));
                }
                if matches!(t.as_str(), "-inf" | "+inf") {
                    return Ok(PVal::Name(t));
                }
                t.parse::<f64>()
                    .map(PVal::Float)
                    .map_err(|_| self.error_at(start, format!("cannot read `{t}`")))
            }
            Some(c) if is_ident_start(c) => {
                let start = self.pos;
                let b = self.bytes();
                let mut i = self.pos;
                while i < b.len() && (is_ident(b[i]) || b[i] == b'.') {
                    i += 1;
                }
                let name = self.src[start..i].to_string();
                self.pos = i;
                if self.peek() == Some(b'(') {
                    self.pos += 1;
                    let mut args = Vec::new();
                    loop {
                        self.ws();
                        if self.eat(")") {
                            break;
                        }
                        let save = self.pos;
                        let kw = match self.peek_word() {
                            Some(w) => {
                                let w = w.to_string();
                                self.pos += w.len();
                                if self.peek() == Some(b'=') {
                                    self.pos += 1;
                                    Some(w)
                                } else {
                                    self.pos = save;
                                    None
                                }
                            }
                            None => None,
                        };
                        args.push((kw, self.value()?));
                        self.ws();
                        if !self.eat(",") {
                            self.expect(")")?;
                            break;
                        }
                    }
                    return Ok(PVal::Call(name, args));
                }
                if self.def_spans.contains_key(&name) {
                    let j = self.def(&name)?;
                    return Ok(PVal::Named(name, Box::new(j)));
                }
                Ok(PVal::Name(name))
            }
            _ => Err(self.error("expected a parameter value")),
        }
    }
}

/// `np.int64(3)` written `3`.
pub(super) fn strip_np(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("np.int") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        match (after.find('('), after.find(')')) {
            (Some(o), Some(c)) if o < c => {
                out.push_str(&after[o + 1..c]);
                rest = &after[c + 1..];
            }
            _ => {
                out.push_str(after);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// A literal's value: `2.0`, `-inf`, `nan`, `True`, `3`, `1+2j`, `2j`.
pub(super) fn literal_value(text: &str, dtype: DType) -> Option<Scalar> {
    match text {
        "True" => return Some(Scalar::Bool(true)),
        "False" => return Some(Scalar::Bool(false)),
        "nan" => return Some(Scalar::Float(f64::NAN)),
        "inf" => return Some(Scalar::Float(f64::INFINITY)),
        "-inf" => return Some(Scalar::Float(f64::NEG_INFINITY)),
        _ => {}
    }
    if let Some(body) = text.strip_suffix('j') {
        // `2j`, or `re+imj` / `re-imj` (the sign after the first character).
        let split = body[1..]
            .rfind(['+', '-'])
            .map(|i| i + 1)
            .filter(|&i| !matches!(body.as_bytes()[i - 1], b'e' | b'E'));
        let (re, im) = match split {
            Some(i) => (part(&body[..i])?, part(&body[i..])?),
            None => (0.0, part(body)?),
        };
        return Some(Scalar::Complex(re, im));
    }
    if dtype.is_float() || matches!(dtype, DType::C64 | DType::C128) {
        return part(text).map(Scalar::Float);
    }
    text.parse::<i128>().ok().map(Scalar::Int)
}

fn part(s: &str) -> Option<f64> {
    match s.trim_start_matches('+') {
        "nan" => Some(f64::NAN),
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        t => t.parse().ok(),
    }
}
