//! Function values and calling them: closures (with the scopes they
//! captured), functions of the `#[jax::jit] mod`, `jnp::`/`lax::`
//! operations, and transformations of those (`jax::grad(f)`). The
//! transformations (`compose.rs`) and the traced control flow
//! (`lax_control.rs`) trace such a function apart, into a jaxpr of its own.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::bodies::pytree::GradOptions;
use crate::frontend::trace::layers::Module;
use crate::frontend::trace::tracer::{Tracer, CLOSURE_SCOPE};
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Builder, Result};
use crate::ir::{Atom, Jaxpr, Var};

/// A transformation of a function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    Grad,
    ValueAndGrad,
    Jacfwd,
    Jacrev,
    Hessian,
    /// `jax::checkpoint` / `jax::remat`: not a derivative, a call whose
    /// reverse mode recomputes (`bodies/checkpoint.rs`).
    Checkpoint,
}

/// An `in_axes`/`out_axes` entry: an axis, `None` (not mapped), or one
/// entry per item of a tuple.
#[derive(Clone, Debug)]
pub(crate) enum AxisSpec {
    Axis(i64, Span),
    Unmapped,
    Tuple(Vec<AxisSpec>, Span),
}

/// `jax::vmap(f, in_axes, out_axes)`.
#[derive(Clone)]
pub(crate) struct Vmapped {
    pub(crate) f: Callable,
    pub(crate) in_axes: AxisSpec,
    pub(crate) out_axes: AxisSpec,
    /// `axis_name`: the name collectives in `f` use for the mapped axis.
    pub(crate) axis_name: Option<String>,
}

/// `jax::pmap(f, axis_name, in_axes, out_axes)`.
#[derive(Clone)]
pub(crate) struct Pmapped {
    pub(crate) f: Callable,
    pub(crate) axis_name: String,
    pub(crate) in_axes: AxisSpec,
    pub(crate) out_axes: AxisSpec,
}

/// Something a transformation applies to.
#[derive(Clone)]
pub(crate) enum Callable {
    Closure(
        Rc<(
            syn::ExprClosure,
            Vec<std::collections::HashMap<String, Value>>,
        )>,
    ),
    /// A function of the `#[jax::jit] mod`.
    Item(Rc<syn::ItemFn>),
    /// `jnp::sin`, `lax::exp`.
    Op(Module, String),
    /// `jax::grad(f)`, with its options (`argnums`, `has_aux`).
    Transformed(Kind, Box<Callable>, Rc<GradOptions>),
    /// `jax::vmap(f, in_axes, out_axes)`.
    Vmapped(Rc<Vmapped>),
    /// `jax::pmap(f, axis_name, in_axes)`.
    Pmapped(Rc<Pmapped>),
    /// The pullback `jax::vjp` returned.
    Pullback(Rc<crate::frontend::trace::value::Pullback>),
}

pub(crate) fn kind_of(path: &syn::Path) -> Option<Kind> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [.., m, n] if m == "jax" => Some(match n.as_str() {
            "grad" => Kind::Grad,
            "value_and_grad" => Kind::ValueAndGrad,
            "jacfwd" => Kind::Jacfwd,
            "jacrev" => Kind::Jacrev,
            "hessian" => Kind::Hessian,
            "checkpoint" | "remat" => Kind::Checkpoint,
            _ => return None,
        }),
        _ => None,
    }
}

/// The names of a function's parameters, where it names them (JAX's
/// messages say "argument x").
fn param_names(f: &Callable) -> Vec<String> {
    let ident = |p: &syn::Pat| match p {
        syn::Pat::Ident(i) => i.ident.to_string(),
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(i) => i.ident.to_string(),
            _ => String::new(),
        },
        _ => String::new(),
    };
    match f {
        Callable::Closure(cl) => cl.0.inputs.iter().map(ident).collect(),
        Callable::Item(item) => item
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(t) => ident(&t.pat),
                syn::FnArg::Receiver(_) => String::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `e` is the path `..::module::name`.
pub(crate) fn is_path(e: &syn::Expr, module: &str, name: &str) -> bool {
    let syn::Expr::Path(p) = e else { return false };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(segs.as_slice(), [.., m, n] if m == module && n == name)
}

impl Tracer {
    /// Reads a function expression.
    pub(crate) fn callable(&mut self, e: &syn::Expr) -> Result<Callable> {
        match e {
            syn::Expr::Closure(_) => match self.expr(e)? {
                Value::Closure(cl) => Ok(Callable::Closure(cl)),
                _ => err(e.span(), "expected a closure"),
            },
            syn::Expr::Paren(p) => self.callable(&p.expr),
            syn::Expr::Call(c) if is_path(&c.func, "jax", "vmap") => self.vmapped(c),
            syn::Expr::Call(c) if is_path(&c.func, "jax", "pmap") => self.pmapped(c),
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return err(e.span(), "expected a function: a closure, a function of the mod, `jnp::f`, or `jax::grad(f)`");
                };
                let Some(kind) = kind_of(&p.path) else {
                    return err(e.span(), "expected a function: a closure, a function of the mod, `jnp::f`, or `jax::grad(f)`");
                };
                let Some(first) = c.args.first() else {
                    return err(c.span(), "a transformation takes one function, then options: `jax::grad(f)`, `jax::grad(f, argnums = (0, 2))`, `jax::value_and_grad(f, has_aux = true)`");
                };
                let opts = GradOptions::parse(kind, c.args.iter().skip(1), c.span())?;
                Ok(Callable::Transformed(kind, Box::new(self.callable(first)?), Rc::new(opts)))
            }
            syn::Expr::Path(p) => {
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                match segs.as_slice() {
                    [name] => {
                        match self.lookup(name).cloned() {
                            Some(Value::Closure(cl)) => return Ok(Callable::Closure(cl)),
                            Some(Value::Pullback(pb)) => return Ok(Callable::Pullback(pb)),
                            _ => {}
                        }
                        if let Some(f) = self.items.fns.get(name) {
                            return Ok(Callable::Item(Rc::new(f.clone())));
                        }
                        // `logpdf` after `use jax::scipy::stats::norm::logpdf;`.
                        if let Some(id) = p.path.get_ident() {
                            if let Some(m) = self.library_function(name, id)? {
                                return Ok(Callable::Op(m, name.clone()));
                            }
                        }
                        err(e.span(), format!("`{name}` is not a closure, a function of this #[jax::jit] mod, or a library function"))
                    }
                    // `jnp::sin`, `nn::relu`, `norm::logpdf_with`, `jnp::linalg::det`.
                    _ => match crate::frontend::trace::layers::library_module(&segs) {
                        Some((m, n)) => Ok(Callable::Op(m, n.to_string())),
                        None => err(e.span(), "expected a function: a closure, a function of the mod, a library function (`jnp::f`, `nn::f`, `norm::logpdf`), or `jax::grad(f)`"),
                    },
                }
            }
            _ => err(e.span(), "expected a function: a closure, a function of the mod, `jnp::f`, or `jax::grad(f)`"),
        }
    }

    /// Calls a function value.
    pub(crate) fn apply(
        &mut self,
        f: &Callable,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        match f {
            Callable::Closure(cl) => self.call_closure(cl, args, span),
            Callable::Item(item) => {
                // A function with its own derivative rule keeps it when it
                // is passed to a transformation (`jax::grad(clipped)`), as
                // when it is called by name.
                let name = item.sig.ident.to_string();
                match crate::frontend::trace::module::custom_rule(&item.attrs)
                    .filter(|_| !self.in_rule.contains(&name))
                {
                    Some(crate::frontend::trace::module::CustomRule::Jvp(rule)) => {
                        self.keeping_programs(|t| t.custom_jvp_call(item, &rule, args, span))
                    }
                    Some(crate::frontend::trace::module::CustomRule::Vjp(fwd, bwd)) => {
                        self.keeping_programs(|t| t.custom_vjp_call(item, &fwd, &bwd, args, span))
                    }
                    None => self.inline_fn(&item.sig, &item.block, args, span),
                }
            }
            Callable::Op(m, name) => self.library_op(*m, name, args, None, span),
            Callable::Transformed(kind, g, opts) if **opts != GradOptions::default() => {
                self.transform_tree(*kind, g, opts, args, span)
            }
            Callable::Transformed(kind, g, _) => self.transform(*kind, g, args, span),
            Callable::Pullback(pb) => self.call_pullback(pb, args, span),
            Callable::Vmapped(v) => {
                let names = param_names(&v.f);
                self.vmap_apply(v, args, &names, span)
            }
            Callable::Pmapped(p) => {
                let names = param_names(&p.f);
                self.keeping_programs(|t| t.pmap_apply(p, args, &names, span))
            }
        }
    }

    /// Traces `body` on fresh inputs of `avals`, into a jaxpr of its own
    /// whose inputs are those, then the enclosing values the body read
    /// (returned as atoms of the enclosing builder).
    pub(crate) fn trace_with(
        &mut self,
        avals: Vec<crate::ir::Aval>,
        body: impl FnOnce(&mut Tracer, Vec<Atom>) -> Result<Vec<Atom>>,
    ) -> Result<(Jaxpr, Vec<Atom>)> {
        use crate::limits::MAX_PROGRAM_NESTING;
        if self.programs >= MAX_PROGRAM_NESTING {
            return Err(crate::ir::builder::expression_error(
                Span::call_site(),
                format!(
                    "#[jax::jit] nests programs (the functions of `lax::cond`, `lax::switch`, \
                     `lax::fori_loop`, `lax::while_loop`, `lax::scan`, `jax::vmap`, `jax::grad`, \
                     `jax::checkpoint`, ..) at most {MAX_PROGRAM_NESTING} deep, and this one \
                     nests deeper: combine the conditions into one `lax::switch` or \
                     `jnp::where_`, or move inner parts out of the nested functions"
                ),
            ));
        }
        self.programs += 1;
        let r = self.trace_with_inner(avals, body);
        self.programs -= 1;
        r
    }

    fn trace_with_inner(
        &mut self,
        avals: Vec<crate::ir::Aval>,
        body: impl FnOnce(&mut Tracer, Vec<Atom>) -> Result<Vec<Atom>>,
    ) -> Result<(Jaxpr, Vec<Atom>)> {
        let outer_len = self.b.jaxpr.avals.len();
        let mut sub = Builder::new(self.b.x64);
        // Enclosing variables keep their numbers (and avals); the sub-trace's
        // own variables are numbered after them.
        sub.jaxpr.avals = self.b.jaxpr.avals.clone();
        sub.constraints = self.b.constraints.clone();
        let outer = std::mem::replace(&mut self.b, sub);
        let inputs: Vec<Atom> = avals.into_iter().map(|a| self.b.input(a)).collect();
        let traced = body(self, inputs);
        let sub = std::mem::replace(&mut self.b, outer);
        let outs = traced?;
        self.b.constraints = sub.constraints.clone();
        let mut j = sub.jaxpr;
        j.outvars = outs;
        // Free variables: enclosing values the body read.
        let mut free: BTreeSet<u32> = BTreeSet::new();
        let mut note = |a: &Atom| {
            if let Atom::Var(Var(k)) = a {
                if (*k as usize) < outer_len {
                    free.insert(*k);
                }
            }
        };
        for e in &j.eqns {
            e.ins.iter().for_each(&mut note);
        }
        j.outvars.iter().for_each(&mut note);
        let free: Vec<Atom> = free.into_iter().map(|k| Atom::Var(Var(k))).collect();
        j.invars.extend(free.iter().map(|a| match a {
            Atom::Var(v) => *v,
            Atom::Lit(_) => unreachable!(),
        }));
        Ok((j, free))
    }

    /// Traces `f` on fresh inputs shaped like `args` (see `trace_with`):
    /// the jaxpr, the arguments' atoms, the free values' atoms.
    pub(crate) fn trace_apart(
        &mut self,
        f: &Callable,
        args: &[(Value, Span)],
        span: Span,
    ) -> Result<(Jaxpr, Vec<Atom>, Vec<Atom>)> {
        let mut actual = Vec::new();
        for (v, s) in args {
            actual.push(self.atom(v.clone(), *s)?);
        }
        let avals = actual.iter().map(|a| self.b.aval(a)).collect();
        let spans: Vec<Span> = args.iter().map(|(_, s)| *s).collect();
        let (j, free) = self.trace_with(avals, |t, inputs| {
            let inputs = inputs
                .into_iter()
                .zip(spans)
                .map(|(a, s)| (Value::Traced(a), s))
                .collect();
            let out = t.apply(f, inputs, span)?;
            match out {
                Value::Traced(_) | Value::Static(_) => Ok(vec![t.atom(out, span)?]),
                _ => err(
                    span,
                    "a differentiated function must return one array or scalar",
                ),
            }
        })?;
        Ok((j, actual, free))
    }

    /// Calls a closure: its parameters bound to `args` in a scope on top of
    /// the scopes it was created in (what it captured). Only a direct call
    /// by name (`via`) may assign captured variables; see
    /// [`Tracer::call_closure_by_name`].
    pub(crate) fn call_closure(
        &mut self,
        cl: &(syn::ExprClosure, Vec<HashMap<String, Value>>),
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        self.closure_call(cl, args, span, false).map(|(v, _, _)| v)
    }

    /// Calls the closure bound to `name` (`bump()`, `f(x)`), as Rust does:
    /// what it assigns of the variables it captured is seen by its later
    /// calls (its own state, for a `move` closure too) and, unless it is
    /// `move`, by the code after the call (the variable it borrowed).
    pub(crate) fn call_closure_by_name(
        &mut self,
        name: &str,
        cl: &std::rc::Rc<(syn::ExprClosure, Vec<HashMap<String, Value>>)>,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        let (v, written, after) = self.closure_call(cl, args, span, true)?;
        if written.is_empty() {
            return Ok(v);
        }
        let (c, captured) = &**cl;
        let mut state = captured.clone();
        for (i, var) in &written {
            let new = after[*i][var].clone();
            // The variable the closure borrowed, if the caller still sees
            // it: a `let` that shadowed it since binds another variable,
            // which the closure does not write.
            let borrowed = c.capture.is_none()
                && self
                    .scopes
                    .get(*i)
                    .and_then(|s| s.get(var))
                    .is_some_and(|now| same_binding(now, &captured[*i][var]));
            if borrowed {
                self.write_back(*i, var, new.clone(), span)?;
            }
            state[*i].insert(var.clone(), new);
        }
        let updated = Value::Closure(std::rc::Rc::new((c.clone(), state)));
        self.assign(name, updated, span)?;
        Ok(v)
    }

    /// Writes `v` into the variable `name` of scope `i` of the caller, as an
    /// assignment there would (recorded if the caller is itself a closure
    /// that captured it).
    fn write_back(&mut self, i: usize, name: &str, v: Value, span: Span) -> Result<()> {
        let inner = self.scopes[i + 1..]
            .iter()
            .rev()
            .find_map(|s| match s.get(CLOSURE_SCOPE) {
                Some(Value::Static(crate::ir::Scalar::Bool(direct))) => Some(*direct),
                _ => None,
            });
        match inner {
            Some(false) => err(
                span,
                format!(
                    "this call assigns `{name}`, which the enclosing closure captured; that closure is traced once (by a transformation or control flow such as `jax::vmap`, `jax::grad`, `lax::cond`, `lax::scan`), so the assignment would not happen on each call. Return the new value instead"
                ),
            ),
            Some(true) => {
                self.scopes[i].insert(name.to_string(), v);
                self.captured_writes.push((i, name.to_string()));
                Ok(())
            }
            None => {
                self.scopes[i].insert(name.to_string(), v);
                Ok(())
            }
        }
    }

    /// Traces a closure's body; the value, the captured variables it
    /// assigned (scope index, name), and its scopes after the body.
    #[allow(clippy::type_complexity)]
    fn closure_call(
        &mut self,
        cl: &(syn::ExprClosure, Vec<HashMap<String, Value>>),
        args: Vec<(Value, Span)>,
        span: Span,
        direct: bool,
    ) -> Result<(Value, Vec<(usize, String)>, Vec<HashMap<String, Value>>)> {
        let (c, captured) = cl;
        if c.inputs.len() != args.len() {
            return err(
                span,
                format!(
                    "the closure takes {} argument(s), got {}",
                    c.inputs.len(),
                    args.len()
                ),
            );
        }
        let mut scopes = captured.clone();
        let mut params = HashMap::new();
        params.insert(
            CLOSURE_SCOPE.to_string(),
            Value::Static(crate::ir::Scalar::Bool(direct)),
        );
        scopes.push(params);
        let saved = std::mem::replace(&mut self.scopes, scopes);
        let saved_writes = std::mem::take(&mut self.captured_writes);
        let mut r = Ok(Value::Unit);
        for (pat, (v, _)) in c.inputs.iter().zip(args) {
            if let Err(e) = self.bind_pattern(pat, v) {
                r = Err(e);
                break;
            }
        }
        if r.is_ok() {
            r = self.expr(&c.body);
        }
        let after = std::mem::replace(&mut self.scopes, saved);
        let mut written = std::mem::replace(&mut self.captured_writes, saved_writes);
        written.sort();
        written.dedup();
        Ok((r?, written, after))
    }
}

/// Whether two values are the same binding's value: the same traced
/// variable, the same number, the same closure, part by part.
fn same_binding(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Traced(x), Value::Traced(y)) => x == y,
        (Value::Static(x), Value::Static(y)) => x == y,
        (Value::Tuple(x), Value::Tuple(y)) | (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_binding(x, y))
        }
        (Value::Struct(n, x), Value::Struct(m, y)) => {
            n == m
                && x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((f, x), (g, y))| f == g && same_binding(x, y))
        }
        (Value::Closure(x), Value::Closure(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Pullback(x), Value::Pullback(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Unit, Value::Unit) => true,
        _ => format!("{a:?}") == format!("{b:?}"),
    }
}
