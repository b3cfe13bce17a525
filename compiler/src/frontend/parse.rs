//! Traces a function body into a jaxpr: each Rust expression is evaluated
//! abstractly, as JAX traces a Python function. Static values (literals,
//! loop indices of static loops, consts) are computed now; traced values
//! (the arguments and everything computed from them) become equations.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::jnp;
use crate::frontend::types::{type_spec_in, Items, TypeSpec};
use crate::ir::builder::{err, Builder, Result};
use crate::ir::{Atom, Scalar};
use crate::prims::{self, Params, Prim};

/// A value during tracing.
#[derive(Clone, Debug)]
pub enum Value {
    /// An array or scalar whose value is only known at run time.
    Traced(Atom),
    /// A number known now (a literal, a static loop index, a const).
    Static(Scalar),
    Tuple(Vec<Value>),
    /// A struct of the `#[jax::jit] mod` (a pytree), fields in declared order.
    Struct(String, Vec<(String, Value)>),
    /// A Rust array literal `[a, b, c]`: not an array until
    /// `jnp::array([..])` makes it one, as JAX requires.
    List(Vec<Value>),
    /// `x.at(index)`, waiting for `.get()`.
    At(Atom, Vec<crate::frontend::index::Item>),
    /// A closure, with the scopes it sees; inlined where it is called.
    Closure(std::rc::Rc<(syn::ExprClosure, Vec<HashMap<String, Value>>)>),
    /// The pullback `jax::vjp(f, x)` returns: called with an output
    /// cotangent, it inlines `f`'s reverse-mode program.
    Pullback(std::rc::Rc<crate::frontend::compose::Pullback>),
    /// A number rustc knows when it compiles the function but the tracer
    /// does not: a const generic of the function (`N`), or a cast of or
    /// arithmetic on one. Where a traced value needs it, its Rust
    /// expression becomes a `static_value` equation.
    Symbolic(Symbolic),
    Unit,
    /// A name whose definition failed: it was reported once, so its uses
    /// are skipped instead of reported again.
    Poison,
}

/// See [`Value::Symbolic`].
#[derive(Clone, Debug)]
pub struct Symbolic {
    /// The Rust expression, in terms of the function's const generics.
    pub expr: String,
    /// Its dtype once cast (`N as f32`); `None` for Rust's `usize`, which
    /// becomes a weakly typed default int, as a Python int does.
    pub dtype: Option<jax_dtypes::DType>,
}

impl Symbolic {
    /// The Rust expression of a static number in this symbolic's type.
    fn static_expr(&self, s: Scalar) -> Option<String> {
        let float = self.dtype.is_some_and(|d| d.is_float());
        match s {
            Scalar::Int(i) if float => Some(format!("({}f64 as {})", i, self.rust_type())),
            Scalar::Int(i) if i >= 0 => Some(format!("({i} as {})", self.rust_type())),
            Scalar::Float(f) if float => Some(format!("({f:?}f64 as {})", self.rust_type())),
            _ => None,
        }
    }

    fn rust_type(&self) -> String {
        match self.dtype {
            Some(d) => crate::frontend::types::rust_type(d).to_string(),
            None => "usize".into(),
        }
    }
}

/// The message of the error a poisoned name raises; it is never shown.
const POISONED: &str = "\0poisoned";

fn poisoned() -> syn::Error {
    syn::Error::new(Span::call_site(), POISONED)
}

/// SCREAMING_CASE names are statics or outside consts: a macro cannot
/// resolve names, so the convention is what tells them from a typo.
fn is_global_name(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Arithmetic of const generics (with each other or with static numbers)
/// in Rust's own types: `N * 2`, `(N as f32) / 2.0`. `None` when a side is
/// traced, or the two sides' Rust types differ (a traced value then mixes
/// them with JAX's promotion).
fn symbolic_arith(prim: &str, l: &Value, r: &Value) -> Option<Symbolic> {
    let op = match prim {
        "add" => "+",
        "sub" => "-",
        "mul" => "*",
        "div" => "/",
        "rem" => "%",
        _ => return None,
    };
    let (a, b, dtype) = match (l, r) {
        (Value::Symbolic(a), Value::Symbolic(b)) if a.dtype == b.dtype => {
            (a.expr.clone(), b.expr.clone(), a.dtype)
        }
        (Value::Symbolic(a), Value::Static(s)) => (a.expr.clone(), a.static_expr(*s)?, a.dtype),
        (Value::Static(s), Value::Symbolic(b)) => (b.static_expr(*s)?, b.expr.clone(), b.dtype),
        _ => return None,
    };
    Some(Symbolic {
        expr: format!("({a} {op} {b})"),
        dtype,
    })
}

/// Whether this (single) error only stands for one already reported.
pub(crate) fn is_poisoned(e: &syn::Error) -> bool {
    e.to_string() == POISONED
}

/// The parsed signature of a jitted function.
pub struct Signature {
    pub params: Vec<(syn::Ident, TypeSpec)>,
    pub ret: TypeSpec,
    /// Names of the const generic parameters.
    pub const_generics: Vec<String>,
}

/// Reads the signature; everything the body may use must be nameable as an array type.
pub fn signature(f: &syn::ItemFn) -> Result<Signature> {
    signature_in(&f.sig, &Items::default(), None)
}

/// Reads a signature inside a `#[jax::jit] mod`; `self_ty` is the struct of
/// an `impl` block, for a `&self` receiver.
pub fn signature_in(
    sig: &syn::Signature,
    items: &Items,
    self_ty: Option<&syn::Type>,
) -> Result<Signature> {
    let f = sig;
    let qualifier = [
        f.asyncness.map(|t| (t.span, "async fn")),
        f.unsafety.map(|t| (t.span, "unsafe fn")),
        f.abi.as_ref().map(|a| (a.extern_token.span, "extern fn")),
        f.variadic
            .as_ref()
            .map(|v| (v.dots.spans[0], "variadic fn")),
    ];
    if let Some((span, what)) = qualifier.into_iter().flatten().next() {
        return err(
            span,
            format!("`{what}` is not supported in #[jax::jit]: a jitted function is a plain, pure `fn` of arrays"),
        );
    }
    let mut const_generics = Vec::new();
    for g in &f.generics.params {
        match g {
            syn::GenericParam::Const(c) => const_generics.push(c.ident.to_string()),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "#[jax::jit] functions may be generic over `const N: usize` dimensions only: the body is traced for concrete element types, so write them out (`Array<f32, N>`)",
                ))
            }
        }
    }
    let mut params = Vec::new();
    for input in &f.inputs {
        match input {
            syn::FnArg::Typed(pt) => {
                let syn::Pat::Ident(id) = &*pt.pat else {
                    return Err(syn::Error::new(
                        pt.pat.span(),
                        "name each parameter: `x: Array<f32, 3>`",
                    ));
                };
                if id.mutability.is_some() {
                    return Err(syn::Error::new(
                        id.span(),
                        "parameters cannot be `mut`: arrays are immutable; rebind with `let` instead",
                    ));
                }
                params.push((id.ident.clone(), type_spec_in(&pt.ty, items)?));
            }
            syn::FnArg::Receiver(r) => {
                let Some(ty) = self_ty else {
                    return Err(syn::Error::new(
                        r.span(),
                        "methods are supported inside a #[jax::jit] mod only",
                    ));
                };
                if r.mutability.is_some() {
                    return Err(syn::Error::new(
                        r.span(),
                        "`&mut self` is not supported: structs of a #[jax::jit] mod are immutable; return an updated struct",
                    ));
                }
                params.push((syn::Ident::new("self", r.span()), type_spec_in(ty, items)?));
            }
        }
    }
    let ret = match &f.output {
        syn::ReturnType::Default => {
            return Err(syn::Error::new(
                f.ident.span(),
                "a jitted function returns its result: add `-> Array<..>`",
            ))
        }
        syn::ReturnType::Type(_, ty) => match (&**ty, self_ty) {
            (syn::Type::Path(p), Some(s)) if p.path.is_ident("Self") => type_spec_in(s, items)?,
            (ty, _) => type_spec_in(ty, items)?,
        },
    };
    Ok(Signature {
        params,
        ret,
        const_generics,
    })
}

/// The tracer: a builder plus the lexical scopes of the body.
pub struct Tracer {
    pub b: Builder,
    scopes: Vec<HashMap<String, Value>>,
    /// The written type of the expression about to be traced (an annotated
    /// `let`, or the function's tail): what `x.reshape()` reshapes to.
    hint: Option<TypeSpec>,
    /// The structs, consts and functions of the enclosing `#[jax::jit] mod`.
    pub items: std::rc::Rc<Items>,
    /// The struct of the `impl` being traced, for `Self`.
    pub(crate) self_ty: Option<syn::Type>,
    /// Depth of inlined calls, to report runaway recursion.
    pub(crate) depth: usize,
    /// `#[custom_jvp]` functions whose rule is being traced: calls to them
    /// there compute the body (the rule is their derivative).
    pub(crate) in_rule: Vec<String>,
}

impl Tracer {
    pub fn new(x64: bool) -> Tracer {
        Tracer {
            b: Builder::new(x64),
            scopes: vec![HashMap::new()],
            hint: None,
            items: Default::default(),
            self_ty: None,
            depth: 0,
            in_rule: Vec::new(),
        }
    }

    /// The lexical scopes, innermost last (inlined calls swap in their own).
    pub(crate) fn scopes_mut(&mut self) -> &mut Vec<HashMap<String, Value>> {
        &mut self.scopes
    }

    pub fn define(&mut self, name: &str, v: Value) {
        self.scopes.last_mut().unwrap().insert(name.to_string(), v);
    }

    /// The value a name is bound to, if any.
    pub(crate) fn lookup_value(&self, name: &str) -> Option<Value> {
        self.lookup(name).cloned()
    }

    fn lookup(&self, name: &str) -> Option<&Value> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Rebinds an existing local (`acc = acc + x`): the new value replaces it
    /// in the scope that declared it.
    fn assign(&mut self, name: &str, v: Value, span: Span) -> Result<()> {
        for s in self.scopes.iter_mut().rev() {
            if let Some(slot) = s.get_mut(name) {
                *slot = v;
                return Ok(());
            }
        }
        if is_global_name(name) {
            return err(
                span,
                format!("cannot write `{name}` in #[jax::jit]: a `static mut` is global state; the function is traced once and compiled, so the write would not happen on each call. Return the new value instead"),
            );
        }
        err(span, format!("cannot find `{name}` in this scope"))
    }

    /// A traced operand for any value that can be one.
    pub(crate) fn atom(&mut self, v: Value, span: Span) -> Result<Atom> {
        match v {
            Value::Traced(a) => Ok(a),
            Value::Static(s) => Ok(jnp::weak_literal(&self.b, s)),
            Value::Symbolic(sym) => {
                let dtype = sym.dtype.unwrap_or(jax_dtypes::default_dtype(
                    jax_dtypes::Kind::Int,
                    self.b.x64,
                ));
                let params = Params::Symbol {
                    expr: sym.expr,
                    dtype,
                };
                self.b.bind1(&prims::STATIC_VALUE, params, vec![], span)
            }
            Value::Tuple(_) => err(
                span,
                "a tuple is not an array; convert it explicitly: `jnp::array([...])`",
            ),
            Value::Struct(name, _) => err(
                span,
                format!("a `{name}` is not an array; use one of its fields"),
            ),
            Value::At(..) => err(span, "`x.at(i)` is not an array: finish it with `.get()`"),
            Value::List(_) => err(
                span,
                "jnp functions require array or scalar arguments, got a Rust array literal; convert it explicitly: `jnp::array([...])`",
            ),
            Value::Closure(_) => err(span, "a closure is not an array; call it"),
            Value::Pullback(_) => err(span, "a pullback is a function, not an array; call it with the output's cotangent"),
            Value::Unit => err(span, "this expression has no value"),
            Value::Poison => Err(poisoned()),
        }
    }

    fn block(&mut self, block: &syn::Block) -> Result<Value> {
        self.block_with_tail_hint(block, None)
    }

    /// A block whose tail expression has the written type `tail` (the function body).
    pub(crate) fn block_with_tail_hint(
        &mut self,
        block: &syn::Block,
        tail: Option<TypeSpec>,
    ) -> Result<Value> {
        self.scopes.push(HashMap::new());
        let r = self.stmts(&block.stmts, tail);
        self.scopes.pop();
        r
    }

    /// Statements in order. A failing statement is reported and tracing
    /// goes on, so one build shows every independent error; names it would
    /// have defined are poisoned, so their uses add no secondary errors.
    fn stmts(&mut self, stmts: &[syn::Stmt], tail: Option<TypeSpec>) -> Result<Value> {
        let mut last = Value::Unit;
        let mut errors: Option<syn::Error> = None;
        let mut saw_poison = false;
        for (i, stmt) in stmts.iter().enumerate() {
            last = Value::Unit;
            let r = match stmt {
                syn::Stmt::Local(local) => self.local(local).inspect_err(|_| {
                    self.poison_pattern(&local.pat);
                }),
                syn::Stmt::Expr(e, semi) => {
                    let is_tail = semi.is_none() && i + 1 == stmts.len();
                    if is_tail {
                        self.hint = tail.clone();
                    }
                    self.expr(e).map(|v| {
                        if is_tail {
                            last = v;
                        }
                    })
                }
                syn::Stmt::Item(item) => err(
                    item.span(),
                    "items inside a #[jax::jit] body are not supported; define them in a #[jax::jit] mod",
                ),
                syn::Stmt::Macro(m) => self.mac(&m.mac).map(|_| ()),
            };
            if let Err(e) = r {
                for e in e {
                    if is_poisoned(&e) {
                        saw_poison = true;
                    } else if let Some(all) = &mut errors {
                        all.combine(e);
                    } else {
                        errors = Some(e);
                    }
                }
            }
        }
        match errors {
            Some(e) => Err(e),
            None if saw_poison => Err(poisoned()),
            None => Ok(last),
        }
    }

    /// Marks the names a failed `let` would have bound.
    fn poison_pattern(&mut self, pat: &syn::Pat) {
        match pat {
            syn::Pat::Ident(id) => self.define(&id.ident.to_string(), Value::Poison),
            syn::Pat::Type(pt) => self.poison_pattern(&pt.pat),
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| self.poison_pattern(p)),
            _ => {}
        }
    }

    fn local(&mut self, local: &syn::Local) -> Result<()> {
        let Some(init) = &local.init else {
            return err(local.span(), "give the variable a value: `let x = ...;`");
        };
        if let Some((_, diverge)) = &init.diverge {
            return err(
                diverge.span(),
                "`let ... else` is not supported in #[jax::jit]",
            );
        }
        if let syn::Pat::Type(pt) = &local.pat {
            self.hint = type_spec_in(&pt.ty, &self.items).ok();
        }
        let v = self.expr(&init.expr)?;
        self.bind_pattern(&local.pat, v)
    }

    /// Binds a closure parameter (a name, `_`, a typed name or a tuple).
    pub(crate) fn bind_closure_param(&mut self, pat: &syn::Pat, v: Value) -> Result<()> {
        self.bind_pattern(pat, v)
    }

    fn bind_pattern(&mut self, pat: &syn::Pat, v: Value) -> Result<()> {
        match pat {
            syn::Pat::Ident(id) => {
                self.define(&id.ident.to_string(), v);
                Ok(())
            }
            syn::Pat::Wild(_) => Ok(()),
            syn::Pat::Type(pt) => {
                let want = type_spec_in(&pt.ty, &self.items)?;
                let v = self.check_type(v, &want, pt.ty.span())?;
                self.bind_pattern(&pt.pat, v)
            }
            syn::Pat::Tuple(t) => {
                let Value::Tuple(items) = v else {
                    return err(t.span(), "this value is not a tuple");
                };
                if items.len() != t.elems.len() {
                    return err(
                        t.span(),
                        format!(
                            "expected a tuple of {} values, got {}",
                            t.elems.len(),
                            items.len()
                        ),
                    );
                }
                for (p, v) in t.elems.iter().zip(items) {
                    self.bind_pattern(p, v)?;
                }
                Ok(())
            }
            other => err(other.span(), "use a name or a tuple of names here"),
        }
    }

    /// Checks a value against a written type; weak values adapt to it.
    pub fn check_type(&mut self, v: Value, want: &TypeSpec, span: Span) -> Result<Value> {
        match want {
            TypeSpec::Tuple(ts) => {
                let Value::Tuple(items) = v else {
                    return err(span, "expected a tuple");
                };
                if items.len() != ts.len() {
                    return err(
                        span,
                        format!(
                            "expected a tuple of {} values, got {}",
                            ts.len(),
                            items.len()
                        ),
                    );
                }
                let items = items
                    .into_iter()
                    .zip(ts)
                    .map(|(v, t)| self.check_type(v, t, span))
                    .collect::<Result<_>>()?;
                Ok(Value::Tuple(items))
            }
            TypeSpec::Struct { name, fields } => {
                let Value::Struct(got_name, values) = v else {
                    return err(span, format!("expected a `{name}`"));
                };
                if &got_name != name {
                    return err(span, format!("expected a `{name}`, got a `{got_name}`"));
                }
                let values = values
                    .into_iter()
                    .zip(fields)
                    .map(|((f, v), (_, t))| Ok((f, self.check_type(v, t, span)?)))
                    .collect::<Result<_>>()?;
                Ok(Value::Struct(got_name, values))
            }
            _ => {
                let want_aval = want.aval().unwrap();
                let a = self.atom(v, span)?;
                let got = self.b.aval(&a);
                let same = got.shape.len() == want_aval.shape.len()
                    && got.shape.iter().zip(&want_aval.shape).all(|(x, y)| {
                        crate::ir::shapes::same_dim(
                            x,
                            y,
                            &format!("the value is {got} but the type says {want_aval}"),
                            &mut self.b.constraints,
                        )
                    });
                if !same {
                    return err(
                        span,
                        format!(
                            "mismatched shapes: the value is {got} but the type is {want_aval}"
                        ),
                    );
                }
                if got.dtype != want_aval.dtype {
                    if !got.weak {
                        return err(
                            span,
                            format!(
                                "mismatched dtypes: the value is {got} but the type is {want_aval}; convert with `.astype::<{}>()`",
                                crate::frontend::types::rust_type(want_aval.dtype)
                            ),
                        );
                    }
                    let a = jnp::convert(&mut self.b, a, want_aval.dtype, got.weak, span)?;
                    return Ok(Value::Traced(a));
                }
                Ok(Value::Traced(a))
            }
        }
    }

    fn mac(&mut self, m: &syn::Macro) -> Result<Value> {
        let segs: Vec<String> = m
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if segs.ends_with(&["debug".to_string(), "print".to_string()]) {
            return self.debug_print(m);
        }
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let msg = match name.as_str() {
            "vec" => "`vec!` makes a Rust Vec, not an array (JAX: \"sum requires ndarray or scalar arguments\"); write `jnp::array([...])`".to_string(),
            "println" | "print" | "eprintln" | "eprint" | "dbg" | "format" | "write" | "writeln" => format!(
                "`{name}!` on traced values is not supported in #[jax::jit]: the function is traced once and compiled, so the print would show no values and would not run per call; use `jax::debug::print!`, which prints at run time"
            ),
            _ => format!("`{name}!` is not supported in #[jax::jit]: the function is traced once and compiled, so side effects would not run as written"),
        };
        err(m.span(), msg)
    }

    pub fn expr(&mut self, e: &syn::Expr) -> Result<Value> {
        self.expr_inner(e)
            .map_err(|err| crate::ir::builder::over_expression(e, err))
    }

    fn expr_inner(&mut self, e: &syn::Expr) -> Result<Value> {
        // Only the outermost call of an annotated expression sees its type.
        let hint = self.hint.take();
        match e {
            syn::Expr::Lit(l) => self.lit(&l.lit),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Block(b) => self.block(&b.block),
            syn::Expr::Path(p) => self.path(p),
            syn::Expr::Tuple(t) => Ok(Value::Tuple(
                t.elems
                    .iter()
                    .map(|e| self.expr(e))
                    .collect::<Result<_>>()?,
            )),
            syn::Expr::Binary(b) => self.binary(b),
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Assign(a) => {
                let v = self.expr(&a.right)?;
                let syn::Expr::Path(p) = &*a.left else {
                    return Err(syn::Error::new_spanned(&a.left, "arrays are immutable: use `x.at(i).set(v)`, which returns the updated array"));
                };
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                self.assign(&name, v, a.span())?;
                Ok(Value::Unit)
            }
            syn::Expr::If(i) => self.if_(i),
            syn::Expr::Match(m) => self.match_(m),
            syn::Expr::Array(a) => Ok(Value::List(
                a.elems.iter().map(|e| self.expr(e)).collect::<Result<_>>()?,
            )),
            syn::Expr::Cast(c) => self.cast(c),
            syn::Expr::Closure(c) => Ok(Value::Closure(std::rc::Rc::new((c.clone(), self.scopes.clone())))),
            syn::Expr::Field(f) => self.field(f),
            // Arrays are immutable, so a shared reference is the value itself.
            syn::Expr::Reference(r) if r.mutability.is_none() => {
                self.hint = hint;
                self.expr(&r.expr)
            }
            syn::Expr::Reference(r) => Err(syn::Error::new_spanned(
                r,
                "arrays are immutable in #[jax::jit]: `&mut` borrows are not allowed; use `x.at(i).set(v)`, which returns the updated array",
            )),
            syn::Expr::Struct(st) => self.struct_literal(st),
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::MethodCall(m) => self.method(m, hint),
            syn::Expr::Call(c) => self.call(c, hint),
            syn::Expr::Paren(p) => {
                self.hint = hint;
                self.expr(&p.expr)
            }
            syn::Expr::Macro(m) => self.mac(&m.mac),
            syn::Expr::Return(r) => err(
                r.span(),
                "`return` is not supported in #[jax::jit]: end the body with the result",
            ),
            // A lone `;` is an empty statement.
            syn::Expr::Verbatim(t) if t.is_empty() => Ok(Value::Unit),
            syn::Expr::Index(ix) => self.index_expr(ix),
            syn::Expr::While(w) => {
                self.static_bool(&w.cond, "while")?;
                err(
                    w.while_token.span,
                    "`while` is not supported in #[jax::jit]: the trip count must be known when the function is compiled; use a static `for i in 0..N` or lax::while_loop",
                )
            }
            syn::Expr::Loop(l) => err(
                l.loop_token.span,
                "`loop` is not supported in #[jax::jit]: the trip count must be known when the function is compiled; use a static `for i in 0..N` or lax::while_loop",
            ),
            syn::Expr::Break(_) | syn::Expr::Continue(_) => err(
                e.span(),
                "`break` and `continue` are not supported in #[jax::jit]: loops run all their steps; mask the remaining steps with jnp::where_",
            ),
            syn::Expr::Try(t) => err(
                t.question_token.span,
                "`?` is not supported in #[jax::jit]: a jitted function cannot return early; array errors are compile errors, so no `Result` is needed",
            ),
            syn::Expr::Async(_) | syn::Expr::Await(_) => err(
                e.span(),
                "`async` and `.await` are not supported in #[jax::jit]: the body is a pure array function",
            ),
            syn::Expr::Unsafe(u) => err(
                u.unsafe_token.span,
                "`unsafe` blocks are not supported in #[jax::jit]: the compiler traces the body once and cannot see what unsafe code does; write array operations instead",
            ),
            syn::Expr::Let(l) => err(
                l.span(),
                "`if let` / `while let` are not supported in #[jax::jit]: use `match` on a static value, or lax::cond",
            ),
            other => err(
                other.span(),
                "this expression is not supported in #[jax::jit]: write array operations, `let`, blocks, closures, static `for`/`if`/`match`, and jnp::/lax:: calls",
            ),
        }
    }

    /// `x[i]`: Rust's `Index` returns a reference, so arrays are indexed with
    /// `x.at(i).get()`; a traced boolean mask would make the shape dynamic.
    fn index_expr(&mut self, ix: &syn::ExprIndex) -> Result<Value> {
        if let Ok(Value::Traced(m)) = self.expr(&ix.index) {
            if self.b.aval(&m).dtype == jax_dtypes::DType::Bool {
                return Err(syn::Error::new_spanned(
                    &ix.index,
                    "NonConcreteBooleanIndexError: Array boolean indices must be concrete; the result's shape would depend on the mask's values. \
                     Keep the shape and mask the values instead: `jnp::where_(mask, x, 0.0)`",
                ));
            }
        }
        Err(syn::Error::new_spanned(
            ix,
            "index arrays with `x.at(i).get()` in #[jax::jit] (and `x.at(i).set(v)` to update): `x[i]` would borrow from the array",
        ))
    }

    /// `expr as T` on a static number (a loop index, a const) gives a static
    /// number; on a traced value it is JAX's ConcretizationTypeError.
    fn cast(&mut self, c: &syn::ExprCast) -> Result<Value> {
        let v = self.expr(&c.expr)?;
        let Some(d) = crate::frontend::types::element_dtype(&c.ty) else {
            return err(c.ty.span(), "cast to a number type: f32, i32, ...");
        };
        match v {
            Value::Static(s) => Ok(Value::Static(jnp::cast_scalar(s, d))),
            Value::Symbolic(sym) if d.is_float() || d.is_integer() => {
                Ok(Value::Symbolic(Symbolic {
                    expr: format!("({} as {})", sym.expr, crate::frontend::types::rust_type(d)),
                    dtype: Some(d),
                }))
            }
            Value::Traced(a) => {
                let aval = self.b.aval(&a);
                Err(syn::Error::new_spanned(
                    c,
                    crate::ir::builder::concretization_error(
                        &aval,
                        &format!(
                            "`as` needs a value known at compile time. To convert an array's dtype, use `.astype::<{}>()`",
                            crate::frontend::types::rust_type(d)
                        ),
                    ),
                ))
            }
            _ => err(c.span(), "only numbers can be cast"),
        }
    }

    fn lit(&mut self, l: &syn::Lit) -> Result<Value> {
        match l {
            syn::Lit::Int(i) => Ok(Value::Static(Scalar::Int(i.base10_parse()?))),
            syn::Lit::Float(f) => Ok(Value::Static(Scalar::Float(f.base10_parse()?))),
            syn::Lit::Bool(b) => Ok(Value::Static(Scalar::Bool(b.value))),
            other => err(other.span(), "only number and bool literals are arrays"),
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> Result<Value> {
        if let Some(id) = p.path.get_ident() {
            if let Some(v) = self.lookup(&id.to_string()) {
                if matches!(v, Value::Poison) {
                    return Err(poisoned());
                }
                return Ok(v.clone());
            }
            if let Some(v) = self.const_item(&id.to_string())? {
                return Ok(v);
            }
            let global = is_global_name(&id.to_string());
            return err(
                id.span(),
                if global {
                    format!("cannot read `{id}` in #[jax::jit]: a `static` (or a const outside the jit mod) is global state the compiler cannot see, and its value would be baked in when the function is compiled; pass it as an argument, or declare `const {id}` inside the #[jax::jit] mod")
                } else {
                    format!("cannot find `{id}` in this scope")
                },
            );
        }
        let names: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let last = names.last().unwrap().as_str();
        // `lax::RoundingMethod`'s variants, as JAX numbers them.
        if names.len() >= 2 && names[names.len() - 2] == "RoundingMethod" {
            match last {
                "AwayFromZero" => return Ok(Value::Static(Scalar::Int(0))),
                "ToNearestEven" => return Ok(Value::Static(Scalar::Int(1))),
                _ => {}
            }
        }
        let f = match last {
            "PI" => std::f64::consts::PI,
            "E" => std::f64::consts::E,
            "INFINITY" | "inf" => f64::INFINITY,
            "NEG_INFINITY" => f64::NEG_INFINITY,
            "NAN" | "nan" => f64::NAN,
            _ => {
                return err(
                    p.span(),
                    format!("cannot find `{}` in #[jax::jit]", names.join("::")),
                )
            }
        };
        Ok(Value::Static(Scalar::Float(f)))
    }

    fn binary(&mut self, e: &syn::ExprBinary) -> Result<Value> {
        use syn::BinOp::*;
        let span = e.span();
        // Compound assignment rebinds: `acc += x` is `acc = acc + x`.
        let compound = match e.op {
            AddAssign(_) => Some(&prims::ADD),
            SubAssign(_) => Some(&prims::SUB),
            MulAssign(_) => Some(&prims::MUL),
            DivAssign(_) => Some(&prims::DIV),
            _ => None,
        };
        if let Some(prim) = compound {
            let syn::Expr::Path(p) = &*e.left else {
                return Err(syn::Error::new_spanned(
                    &e.left,
                    "arrays are immutable: use `x.at(i).add(v)`, which returns the updated array",
                ));
            };
            let name = p
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let l = self.expr(&e.left)?;
            let r = self.expr(&e.right)?;
            let v = self.arith(prim, l, r, span)?;
            self.assign(&name, v, span)?;
            return Ok(Value::Unit);
        }
        let l = self.expr(&e.left)?;
        match e.op {
            And(_) | Or(_) => {
                let r = self.expr(&e.right)?;
                match (&l, &r) {
                    (Value::Static(Scalar::Bool(a)), Value::Static(Scalar::Bool(b))) => {
                        Ok(Value::Static(Scalar::Bool(if matches!(e.op, And(_)) { *a && *b } else { *a || *b })))
                    }
                    _ => err(
                        e.op.span(),
                        "TracerBoolConversionError: `&&` and `||` need a concrete bool, but this value is traced; use `&` / `|` (or jnp::logical_and / jnp::logical_or) for elementwise logic",
                    ),
                }
            }
            _ => {
                let r = self.expr(&e.right)?;
                let prim: Prim = match e.op {
                    Add(_) => &prims::ADD,
                    Sub(_) => &prims::SUB,
                    Mul(_) => &prims::MUL,
                    Div(_) => &prims::DIV,
                    Rem(_) => &prims::REM,
                    BitAnd(_) => &prims::AND,
                    BitOr(_) => &prims::OR,
                    BitXor(_) => &prims::XOR,
                    Lt(_) => &prims::LT,
                    Le(_) => &prims::LE,
                    Gt(_) => &prims::GT,
                    Ge(_) => &prims::GE,
                    Eq(_) => &prims::EQ,
                    Ne(_) => &prims::NE,
                    _ => return err(e.op.span(), "this operator is not supported in #[jax::jit]"),
                };
                self.arith(prim, l, r, span)
            }
        }
    }

    /// A binary operation: folded when both sides are static, else traced.
    fn arith(&mut self, prim: Prim, l: Value, r: Value, span: Span) -> Result<Value> {
        if let (Value::Static(a), Value::Static(b)) = (&l, &r) {
            if let Some(v) = fold(prim.name, *a, *b) {
                return Ok(Value::Static(v));
            }
        }
        if let Some(v) = symbolic_arith(prim.name, &l, &r) {
            return Ok(Value::Symbolic(v));
        }
        let (x, y) = (self.atom(l, span)?, self.atom(r, span)?);
        Ok(Value::Traced(jnp::binary(&mut self.b, prim, x, y, span)?))
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Result<Value> {
        let v = self.expr(&u.expr)?;
        let span = u.span();
        match u.op {
            syn::UnOp::Neg(_) => match v {
                Value::Static(Scalar::Int(i)) => Ok(Value::Static(Scalar::Int(-i))),
                Value::Static(Scalar::Float(f)) => Ok(Value::Static(Scalar::Float(-f))),
                v => {
                    let x = self.atom(v, span)?;
                    Ok(Value::Traced(jnp::unary(
                        &mut self.b,
                        &prims::NEG,
                        x,
                        span,
                    )?))
                }
            },
            syn::UnOp::Not(_) => match v {
                Value::Static(Scalar::Bool(b)) => Ok(Value::Static(Scalar::Bool(!b))),
                v => {
                    let x = self.atom(v, span)?;
                    Ok(Value::Traced(jnp::unary(
                        &mut self.b,
                        &prims::NOT,
                        x,
                        span,
                    )?))
                }
            },
            syn::UnOp::Deref(_) => Ok(v),
            _ => err(span, "this operator is not supported in #[jax::jit]"),
        }
    }

    fn static_bool(&mut self, cond: &syn::Expr, what: &str) -> Result<bool> {
        match self.expr(cond)? {
            Value::Static(Scalar::Bool(b)) => Ok(b),
            Value::Traced(a) => {
                let aval = self.b.aval(&a);
                Err(syn::Error::new_spanned(
                    cond,
                    format!(
                        "TracerBoolConversionError: Attempted boolean conversion of traced array with shape {aval}. \
                         `{what}` needs a concrete bool, but this value depends on the function's arguments; \
                         use {} instead",
                        if what == "while" { "lax::while_loop" } else { "lax::cond, lax::switch or jnp::where_" }
                    ),
                ))
            }
            _ => err(cond.span(), "expected a bool"),
        }
    }

    fn if_(&mut self, i: &syn::ExprIf) -> Result<Value> {
        if self.static_bool(&i.cond, "if")? {
            self.block(&i.then_branch)
        } else if let Some((_, e)) = &i.else_branch {
            self.expr(e)
        } else {
            Ok(Value::Unit)
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Result<Value> {
        let syn::Expr::Range(r) = &*f.expr else {
            return Err(syn::Error::new_spanned(
                &f.expr,
                "iterators are not supported in #[jax::jit]: loop over a static range `for i in 0..N`, or use lax::fori_loop / lax::scan",
            ));
        };
        let bound = |t: &mut Tracer, e: &Option<Box<syn::Expr>>| -> Result<i128> {
            match e {
                None => err(r.span(), "a loop needs both bounds: `for i in 0..N`"),
                Some(e) => match t.expr(e)? {
                    Value::Static(Scalar::Int(n)) => Ok(n),
                    Value::Symbolic(sym) => err(
                        e.span(),
                        format!("a `for` loop over `{}` would be unrolled when the function is traced, but the tracer does not know this const generic's value; use lax::fori_loop (or a literal or const bound)", sym.expr),
                    ),
                    _ => err(
                        e.span(),
                        "TracerIntegerConversionError: a loop bound must be static (a literal or const), but this one is traced; for a traced bound use lax::fori_loop",
                    ),
                },
            }
        };
        let lo = bound(self, &r.start)?;
        let mut hi = bound(self, &r.end)?;
        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
            hi += 1;
        }
        let syn::Pat::Ident(var) = &*f.pat else {
            return err(f.pat.span(), "name the loop index: `for i in 0..N`");
        };
        // Unrolled at trace time, as JAX traces a Python loop.
        for i in lo..hi {
            self.scopes.push(HashMap::new());
            self.define(&var.ident.to_string(), Value::Static(Scalar::Int(i)));
            let r = self.block(&f.body);
            self.scopes.pop();
            r?;
        }
        Ok(Value::Unit)
    }

    pub(crate) fn args(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) -> Result<Vec<(Value, Span)>> {
        args.iter().map(|a| Ok((self.expr(a)?, a.span()))).collect()
    }

    /// Calls of `jnp::*`, `lax::*`: the path's last two segments name the function.
    fn call(&mut self, c: &syn::ExprCall, hint: Option<TypeSpec>) -> Result<Value> {
        if let Some(v) = self.call_transformation(c)? {
            return Ok(v);
        }
        let syn::Expr::Path(p) = &*c.func else {
            return err(
                c.func.span(),
                "only functions of jnp:: and lax:: can be called in #[jax::jit]",
            );
        };
        if let Some(id) = p.path.get_ident() {
            if let Some(Value::Pullback(pb)) = self.lookup(&id.to_string()).cloned() {
                let args = self.args(&c.args)?;
                return self.call_pullback(&pb, args, c.span());
            }
            if let Some(Value::Closure(cl)) = self.lookup(&id.to_string()).cloned() {
                let args = self.args(&c.args)?;
                return self.call_closure(&cl, args, c.span());
            }
        }
        if let Some(v) = self.call_item(p, c)? {
            return Ok(v);
        }
        if let Some(v) = self.array_constructor(p, c)? {
            return Ok(v);
        }
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let span = c.span();
        let (module, name) = match segs.as_slice() {
            [.., m, n] if m == "jnp" => (crate::frontend::lower::Module::Jnp, n.as_str()),
            [.., m, n] if m == "lax" => (crate::frontend::lower::Module::Lax, n.as_str()),
            [.., m, n] if m == "random" => (crate::frontend::lower::Module::Random, n.as_str()),
            _ => {
                let path = segs.join("::");
                let effectful = segs.iter().any(|s| {
                    matches!(
                        s.as_str(),
                        "fs" | "io"
                            | "time"
                            | "env"
                            | "process"
                            | "net"
                            | "thread"
                            | "sync"
                            | "atomic"
                            | "cell"
                            | "Cell"
                            | "RefCell"
                            | "Mutex"
                            | "RwLock"
                            | "Instant"
                            | "SystemTime"
                            | "File"
                    ) || s.starts_with("Atomic")
                });
                let why = if effectful {
                    "this has side effects or global state, and the function is traced once and compiled, so they would not run as written on each call; do it outside the jitted function and pass the result in as an argument"
                } else {
                    "the compiler sees only this function's tokens, so it can trace jnp:: and lax:: calls and helpers of the same #[jax::jit] mod; move the helper into a `#[jax::jit] mod` beside this function"
                };
                return Err(syn::Error::new_spanned(
                    &c.func,
                    format!("cannot call `{path}` in #[jax::jit]: {why}"),
                ));
            }
        };
        // A turbofish names the result type: `random::normal::<Array<f32, 3>>(k)`.
        let hint = match &p.path.segments.last().unwrap().arguments {
            syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                Some(syn::GenericArgument::Type(ty)) if a.args.len() == 1 => {
                    Some(type_spec_in(ty, &self.items)?)
                }
                _ => hint,
            },
            _ => hint,
        };
        let args = self.args(&c.args)?;
        self.op(module, name, args, hint, span)
    }

    fn method(&mut self, m: &syn::ExprMethodCall, hint: Option<TypeSpec>) -> Result<Value> {
        let name = m.method.to_string();
        // Iterators and mutation are reported before the receiver, which is
        // often itself an iterator (`(0..n).into_iter()`).
        if matches!(
            name.as_str(),
            "iter"
                | "into_iter"
                | "iter_mut"
                | "next"
                | "map"
                | "fold"
                | "zip"
                | "filter"
                | "enumerate"
                | "for_each"
                | "collect"
                | "rev"
                | "chain"
                | "windows"
                | "chunks"
        ) {
            return err(
                m.method.span(),
                format!("`.{name}()`: iterators are not supported in #[jax::jit]; use array operations, lax::fori_loop or lax::scan"),
            );
        }
        if matches!(
            name.as_str(),
            "fill"
                | "fill_with"
                | "push"
                | "pop"
                | "insert"
                | "remove"
                | "extend"
                | "clear"
                | "swap"
                | "sort"
                | "sort_unstable"
                | "reverse"
                | "as_mut_slice"
                | "as_mut"
                | "get_mut"
                | "copy_from_slice"
                | "clone_from_slice"
                | "assign"
                | "mapv_inplace"
        ) {
            return err(
                m.method.span(),
                format!("`.{name}()` would mutate an array, and arrays are immutable in #[jax::jit]: use `x.at(i).set(v)` (or `jnp::full_like`, `jnp::where_`), which returns the updated array"),
            );
        }
        let recv = self.expr(&m.receiver)?;
        let span = m.span();
        if name == "astype" {
            let Some(turbofish) = &m.turbofish else {
                return err(
                    m.method.span(),
                    "write the target type: `x.astype::<f32>()`",
                );
            };
            let Some(syn::GenericArgument::Type(t)) = turbofish.args.first() else {
                return err(
                    turbofish.span(),
                    "write the target type: `x.astype::<f32>()`",
                );
            };
            let Some(d) = crate::frontend::types::element_dtype(t) else {
                return err(
                    t.span(),
                    "astype takes an element type: bool, u8..u64, i8..i64, bf16, f16, f32, f64",
                );
            };
            let x = self.atom(recv, m.receiver.span())?;
            return Ok(Value::Traced(self.b.bind1(
                &prims::CONVERT_ELEMENT_TYPE,
                Params::Convert {
                    new_dtype: d,
                    weak: false,
                },
                vec![x],
                span,
            )?));
        }
        if let (
            "to_vec" | "as_slice" | "to_ndarray" | "as_ndarray" | "into_vec",
            Value::Traced(a),
        ) = (name.as_str(), &recv)
        {
            // JAX's error for `np.asarray(tracer)` / `np.sin(tracer)`.
            let aval = self.b.aval(a);
            return Err(syn::Error::new_spanned(
                m,
                format!("TracerArrayConversionError: `.{name}()` converts the traced array {aval} to Rust data, but its values are only known when the function runs; use `jnp::` and `lax::` functions on the array itself (as JAX needs `jnp.sin(x)`, not `np.sin(x)`)"),
            ));
        }
        if let ("item" | "into" | "to_f32" | "to_f64" | "as_f32" | "as_f64", Value::Traced(a)) =
            (name.as_str(), &recv)
        {
            let aval = self.b.aval(a);
            return Err(syn::Error::new_spanned(
                m,
                crate::ir::builder::concretization_error(
                    &aval,
                    &format!("`.{name}()` needs the value, which is only known when the function runs. Keep it an array (arrays and scalars mix freely in array expressions)"),
                ),
            ));
        }
        if let Some(v) = self.call_method_item(&recv, m)? {
            return Ok(v);
        }
        // Values are immutable and shared: a clone is the same value.
        if name == "clone" && m.args.is_empty() {
            return Ok(recv);
        }
        match (name.as_str(), &recv) {
            ("at", Value::Traced(x)) if m.args.len() == 1 => {
                let items = self.index_items(&m.args[0])?;
                return Ok(Value::At(x.clone(), items));
            }
            ("slice", Value::Traced(x)) if m.args.len() == 1 => {
                let items = self.index_items(&m.args[0])?;
                return Ok(Value::Traced(self.static_get(x.clone(), &items, span)?));
            }
            ("get", Value::At(x, items)) if m.args.is_empty() => {
                return Ok(Value::Traced(self.static_get(x.clone(), items, span)?));
            }
            ("set" | "add" | "mul" | "min" | "max", Value::At(x, items)) if m.args.len() == 1 => {
                let v = self.expr(&m.args[0])?;
                let v = self.atom(v, m.args[0].span())?;
                return Ok(Value::Traced(self.static_update(x.clone(), items, &name, v, span)?));
            }
            (_, Value::At(..)) => {
                return err(
                    m.method.span(),
                    format!("`x.at(i).{name}(..)` is not supported in #[jax::jit]; use get, set, add, mul, min or max"),
                )
            }
            _ => {}
        }
        let mut args = vec![(recv, m.receiver.span())];
        args.extend(self.args(&m.args)?);
        self.op(
            crate::frontend::lower::Module::Method,
            &name,
            args,
            hint,
            span,
        )
    }
}

/// Folds an operation on two static numbers, as Python computes on ints.
fn fold(op: &str, a: Scalar, b: Scalar) -> Option<Scalar> {
    use Scalar::*;
    Some(match (a, b) {
        (Int(x), Int(y)) => match op {
            "add" => Int(x.checked_add(y)?),
            "sub" => Int(x.checked_sub(y)?),
            "mul" => Int(x.checked_mul(y)?),
            "div" if y != 0 => Int(x / y),
            "rem" if y != 0 => Int(x % y),
            "lt" => Bool(x < y),
            "le" => Bool(x <= y),
            "gt" => Bool(x > y),
            "ge" => Bool(x >= y),
            "eq" => Bool(x == y),
            "ne" => Bool(x != y),
            _ => return None,
        },
        (Bool(x), Bool(y)) => match op {
            "and" => Bool(x & y),
            "or" => Bool(x | y),
            "xor" => Bool(x ^ y),
            "eq" => Bool(x == y),
            "ne" => Bool(x != y),
            _ => return None,
        },
        _ => return None,
    })
}

/// Traces a whole function: parameters become inputs, the body's value the outputs.
pub fn trace_fn(f: &syn::ItemFn, sig: &Signature, x64: bool) -> Result<Tracer> {
    trace_body(&f.block, sig, &f.sig.output, Default::default(), None, x64)
}

/// Traces a function body of a `#[jax::jit] mod` (`self_ty`: the struct of
/// its `impl`, if it is a method).
pub fn trace_body(
    block: &syn::Block,
    sig: &Signature,
    output: &syn::ReturnType,
    items: std::rc::Rc<Items>,
    self_ty: Option<syn::Type>,
    x64: bool,
) -> Result<Tracer> {
    let output_span = output.span();
    crate::ir::builder::clear_expression_mark();
    let mut t = Tracer::new(x64);
    t.items = items;
    t.self_ty = self_ty;
    for name in &sig.const_generics {
        let v = Value::Symbolic(Symbolic {
            expr: name.clone(),
            dtype: None,
        });
        t.define(name, v);
    }
    for (name, spec) in &sig.params {
        let v = t.input_value(spec);
        t.define(&name.to_string(), v);
    }
    let body = t.block_with_tail_hint(block, Some(sig.ret.clone()))?;
    let body = t
        .check_type(body, &sig.ret, output_span)
        .map_err(|e| match output {
            // The whole written type, not just its first token.
            syn::ReturnType::Type(_, ty) => syn::Error::new_spanned(ty, e.to_string()),
            syn::ReturnType::Default => e,
        })?;
    let mut outs = Vec::new();
    flatten(&body, &mut outs);
    for v in outs {
        let a = t.atom(v, output_span)?;
        t.b.jaxpr.outvars.push(a);
    }
    Ok(t)
}

pub(crate) fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Tuple(items) => items.iter().for_each(|i| flatten(i, out)),
        Value::Struct(_, fields) => fields.iter().for_each(|(_, v)| flatten(v, out)),
        v => out.push(v.clone()),
    }
}

impl Tracer {
    pub(crate) fn input_value(&mut self, spec: &TypeSpec) -> Value {
        match spec {
            TypeSpec::Struct { name, fields } => Value::Struct(
                name.clone(),
                fields
                    .iter()
                    .map(|(f, s)| (f.clone(), self.input_value(s)))
                    .collect(),
            ),
            TypeSpec::Tuple(items) => {
                Value::Tuple(items.iter().map(|s| self.input_value(s)).collect())
            }
            s => Value::Traced(self.b.input(s.aval().unwrap())),
        }
    }
}

impl Tracer {
    /// `jax::debug::print!("x = {}", x)`: a `debug_callback` equation that
    /// prints the values when the function runs (arrays shown as numpy's
    /// `str`, as JAX's `jax.debug.print` does). Arguments are arrays or
    /// scalars, positional or `name = value`.
    fn debug_print(&mut self, m: &syn::Macro) -> Result<Value> {
        use syn::parse::Parser;
        let args = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated
            .parse2(m.tokens.clone())?;
        let mut args = args.into_iter();
        let Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(format),
            ..
        })) = args.next()
        else {
            return err(
                m.span(),
                "`jax::debug::print!` takes a format string first, as `println!`",
            );
        };
        let mut ins = Vec::new();
        let mut names = Vec::new();
        for a in args {
            let (name, value) = match a {
                syn::Expr::Assign(asg) => match &*asg.left {
                    syn::Expr::Path(p) if p.path.get_ident().is_some() => (
                        Some(p.path.get_ident().unwrap().to_string()),
                        (*asg.right).clone(),
                    ),
                    other => return err(other.span(), "a named argument is `name = value`"),
                },
                e => (None, e),
            };
            let v = self.expr(&value)?;
            let atom = match v {
                Value::Traced(_) | Value::Static(_) => self.atom(v, value.span())?,
                _ => {
                    return err(
                        value.span(),
                        "`jax::debug::print!` prints arrays and scalars; print a tuple's or a struct's fields one by one",
                    )
                }
            };
            ins.push(atom);
            names.push(name);
        }
        // A name in the format string must be an argument: the traced
        // values are not Rust variables.
        let text = format.value();
        let mut rest = text.as_str();
        while let Some(open) = rest.find('{') {
            rest = &rest[open + 1..];
            if rest.starts_with('{') {
                rest = &rest[1..];
                continue;
            }
            let close = rest.find('}').unwrap_or(rest.len());
            let name = rest[..close].split(':').next().unwrap_or("").trim();
            let is_name = name
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_');
            if is_name && !names.iter().any(|n| n.as_deref() == Some(name)) {
                return err(
                    format.span(),
                    format!("`{{{name}}}` names no argument: pass it as one, `jax::debug::print!(\"{{{name}}}\", {name} = {name})`"),
                );
            }
            rest = &rest[close..];
        }
        self.b.bind(
            &crate::prims::DEBUG_CALLBACK,
            crate::prims::Params::DebugPrint {
                format: text,
                names,
            },
            ins,
            m.span(),
        )?;
        Ok(Value::Tuple(Vec::new()))
    }

    /// `Array::<T, dims..>::zeros()`, `::ones()` and `::full(v)`: a
    /// broadcast literal of that type, as `jnp.zeros(shape, dtype)`;
    /// `::arange()`: a constant (`0, 1, ..` in row-major order), as JAX
    /// makes `jnp.arange` of known bounds.
    fn array_constructor(&mut self, p: &syn::ExprPath, c: &syn::ExprCall) -> Result<Option<Value>> {
        let segs = &p.path.segments;
        let n = segs.len();
        if n < 2 || segs[n - 2].ident != "Array" {
            return Ok(None);
        }
        let name = segs[n - 1].ident.to_string();
        let fill = match (name.as_str(), c.args.len()) {
            ("zeros", 0) => Some(Value::Static(Scalar::Int(0))),
            ("ones", 0) => Some(Value::Static(Scalar::Int(1))),
            ("full", 1) => Some(self.expr(&c.args[0])?),
            ("arange", 0) => None,
            _ => return Ok(None),
        };
        let syn::PathArguments::AngleBracketed(args) = &segs[n - 2].arguments else {
            return err(
                segs[n - 2].span(),
                format!("name the array type: `Array::<f32, 3>::{name}(..)`"),
            );
        };
        let ty: syn::Type = syn::parse_quote!(Array #args);
        let crate::frontend::types::TypeSpec::Array { aval, .. } =
            crate::frontend::types::type_spec_in(&ty, &self.items)?
        else {
            return Ok(None);
        };
        let Some(fill) = fill else {
            let Some(n) = aval.shape.iter().try_fold(1usize, |acc, d| match d {
                crate::ir::Dim::Lit(n) => Some(acc * n),
                crate::ir::Dim::Sym(_) => None,
            }) else {
                return err(
                    c.span(),
                    "`arange()` needs a shape known when the function compiles",
                );
            };
            let values = (0..n as i128)
                .map(|i| crate::frontend::jnp::cast_scalar(Scalar::Int(i), aval.dtype))
                .collect();
            let strong = crate::ir::Aval {
                weak: false,
                ..aval
            };
            return Ok(Some(Value::Traced(self.b.constant(strong, values))));
        };
        let v = match fill {
            Value::Static(v) => crate::ir::builder::literal(
                crate::frontend::jnp::cast_scalar(v, aval.dtype),
                crate::ir::Aval::scalar(aval.dtype, false),
            ),
            other => {
                let v = self.atom(other, c.span())?;
                crate::frontend::jnp::convert(&mut self.b, v, aval.dtype, false, c.span())?
            }
        };
        let out = crate::frontend::jnp::broadcast_to(&mut self.b, v, aval.shape, c.span())?;
        Ok(Some(Value::Traced(out)))
    }
}
