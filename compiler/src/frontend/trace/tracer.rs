//! The tracer's state: the jaxpr being built, the lexical scopes of the
//! body, and what a call in progress needs to know (the enclosing mod's
//! items, `Self`, the inlining depth). Reading names, rebinding them, and
//! turning a value into a traced operand live here; the walk over
//! expressions and statements is spread over the files that `impl Tracer`
//! for each kind of syntax.

use std::collections::HashMap;

use proc_macro2::Span;

use crate::frontend::trace::jnp;
use crate::frontend::trace::layers::Above;
use crate::frontend::trace::types::{Items, TypeSpec};
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Builder, Result};
use crate::ir::Atom;
use crate::prims::{self, Params};

/// How deep inlined calls may nest before it must be unbounded recursion.
pub(crate) const MAX_DEPTH: usize = 64;

/// The message of the error a poisoned name raises; it is never shown.
const POISONED: &str = "\0poisoned";

/// The error a use of a poisoned name raises (see [`is_poisoned`]).
pub(crate) fn poisoned() -> syn::Error {
    syn::Error::new(Span::call_site(), POISONED)
}

/// SCREAMING_CASE names are statics or outside consts: a macro cannot
/// resolve names, so the convention is what tells them from a typo.
pub(crate) fn is_global_name(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether this (single) error only stands for one already reported.
pub(crate) fn is_poisoned(e: &syn::Error) -> bool {
    e.to_string() == POISONED
}

/// The tracer: a builder plus the lexical scopes of the body.
pub(crate) struct Tracer {
    pub(crate) b: Builder,
    /// The lexical scopes, innermost last (inlined calls swap in their own).
    pub(crate) scopes: Vec<HashMap<String, Value>>,
    /// The written type of the expression about to be traced (an annotated
    /// `let`, or the function's tail): what `x.reshape()` reshapes to.
    pub(crate) hint: Option<TypeSpec>,
    /// The structs, consts and functions of the enclosing `#[jax::jit] mod`.
    pub(crate) items: std::rc::Rc<Items>,
    /// The struct of the `impl` being traced, for `Self`.
    pub(crate) self_ty: Option<syn::Type>,
    /// Depth of inlined calls, to report runaway recursion.
    pub(crate) depth: usize,
    /// `#[custom_jvp]` functions whose rule is being traced: calls to them
    /// there compute the body (the rule is their derivative).
    pub(crate) in_rule: Vec<String>,
    /// The axis names bound by enclosing `jax::vmap(f, .., axis_name)`
    /// calls while `f` is traced, innermost last, with their sizes: what
    /// collectives (`lax::psum(x, "i")`) may name.
    pub(crate) axis_env: Vec<(String, crate::ir::Dim)>,
    /// Whether a `jax::pmap`'s function is being traced (pmaps do not nest).
    pub(crate) in_pmap: bool,
    /// How many expressions enclose the one being traced
    /// (`limits::MAX_EXPR_NESTING` at most).
    pub(crate) nesting: usize,
    /// The captured variables the closure being called has assigned so
    /// far: (index of the scope that declared it, name); see
    /// `Tracer::call_closure`.
    pub(crate) captured_writes: Vec<(usize, String)>,
    /// How many programs (a cond's branches, a loop's body, a transformed
    /// function) enclose the one being traced
    /// (`limits::MAX_PROGRAM_NESTING` at most).
    pub(crate) programs: usize,
    /// How many enclosing programs stay programs of their equations (a
    /// loop's body, a branch, a checkpoint, a custom rule's function, a
    /// pmap's function): calls of the mod's functions inside them are
    /// traced inline, as they print, not kept as calls (`module.rs`).
    pub(crate) kept_programs: usize,
    /// Library functions called by a bare name (`logsumexp(x)` after a
    /// `use`), with the module they were traced as: the emitted function
    /// checks that the name in scope is that function
    /// (`expand::library_use_checks`).
    pub(crate) library_uses: Vec<(syn::Ident, &'static str)>,
    /// The functions of the layers above the tracer that it calls (a call
    /// expression, the library by name, ..): see [`Above`].
    pub(crate) above: &'static Above,
}

/// The key of the entry that marks a closure's parameter scope: variables
/// of the scopes below it are captured. Its value says whether the call
/// may assign them (`Value::Static(Bool(true))`: a direct call by name, whose
/// assignments are written back), or not (a closure traced once by a
/// transformation or control flow).
pub(crate) const CLOSURE_SCOPE: &str = "\0closure";

impl Tracer {
    /// Binds primitives at `span`, the user's expression: the typed
    /// methods of `jax_core::lax::Lax` (`t.at(span).squeeze(x, dims)`).
    pub(crate) fn at(&mut self, span: proc_macro2::Span) -> jax_core::lax::Trace<'_> {
        jax_core::lax::Trace::new(&mut self.b, span)
    }

    /// A tracer with an empty jaxpr, outside any mod, that reaches the
    /// layers above it through `above`.
    pub(crate) fn new(x64: bool, above: &'static Above) -> Tracer {
        Tracer {
            b: Builder::new(x64),
            scopes: vec![HashMap::new()],
            hint: None,
            items: Default::default(),
            self_ty: None,
            depth: 0,
            in_rule: Vec::new(),
            axis_env: Vec::new(),
            in_pmap: false,
            nesting: 0,
            captured_writes: Vec::new(),
            programs: 0,
            kept_programs: 0,
            library_uses: Vec::new(),
            above,
        }
    }

    /// Runs `f` tracing programs that stay programs of their equations (see
    /// [`Tracer::kept_programs`]).
    pub(crate) fn keeping_programs<T>(&mut self, f: impl FnOnce(&mut Tracer) -> T) -> T {
        self.kept_programs += 1;
        let r = f(self);
        self.kept_programs -= 1;
        r
    }

    /// Binds a name in the innermost scope.
    pub(crate) fn define(&mut self, name: &str, v: Value) {
        self.scopes.last_mut().unwrap().insert(name.to_string(), v);
    }

    /// The value a name is bound to, if any.
    pub(crate) fn lookup(&self, name: &str) -> Option<&Value> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Rebinds an existing local (`acc = acc + x`): the new value replaces it
    /// in the scope that declared it.
    ///
    /// Inside a closure, a variable it captured (declared below its
    /// parameter scope) is written in the closure's view and recorded in
    /// `captured_writes`, which the call writes back as Rust would; a
    /// closure that a transformation or control flow traces once may not
    /// assign what it captured (the write would happen once, at trace time).
    pub(crate) fn assign(&mut self, name: &str, v: Value, span: Span) -> Result<()> {
        let mut closure: Option<bool> = None;
        for (i, s) in self.scopes.iter_mut().enumerate().rev() {
            if let Some(slot) = s.get_mut(name) {
                match closure {
                    Some(false) => {
                        return err(
                            span,
                            format!(
                                "cannot assign `{name}` inside this closure: it is captured from outside, and the closure is traced once (by a transformation or control flow such as `jax::vmap`, `jax::grad`, `lax::cond`, `lax::scan`), so the assignment would not happen on each call. Return the new value from the closure instead (`|{name}, ..| .. -> new {name}`), or pass it through the loop's carry"
                            ),
                        );
                    }
                    Some(true) => {
                        *slot = v;
                        self.captured_writes.push((i, name.to_string()));
                    }
                    None => *slot = v,
                }
                return Ok(());
            }
            if closure.is_none() {
                if let Some(Value::Static(crate::ir::Scalar::Bool(direct))) = s.get(CLOSURE_SCOPE) {
                    closure = Some(*direct);
                }
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
            Value::List(items)
                if !items.is_empty()
                    && items.iter().all(|v| {
                        matches!(v, Value::Traced(a) if self.b.aval(a) == crate::ir::key_aval())
                    }) =>
            {
                err(
                    span,
                    "this is a Rust array of keys, not one array: `jax::vmap(|k| .., 0)(ks)` maps a function over the keys, `ks[i]` is one key, and `jnp::array(ks)` stacks their words into one `u32[N, 2]` array",
                )
            }
            Value::List(_) => err(
                span,
                "jnp functions require array or scalar arguments, got a Rust array literal; convert it explicitly: `jnp::array([...])`",
            ),
            Value::Closure(_) => err(span, "a closure is not an array; call it"),
            Value::Pullback(_) => err(span, "a pullback is a function, not an array; call it with the output's cotangent"),
            Value::Unit => err(span, "this expression has no value"),
            Value::Str(_) => err(span, "a string is not an array"),
            Value::Optim(o) => match o.as_ref() {
                crate::frontend::trace::optim::Static::Layer(_) => err(span, "a stax layer is not an array; call its `.init(key, input_shape)` or `.apply(&params, &inputs)`"),
                crate::frontend::trace::optim::Static::Init(_) => err(span, "an initializer is not an array; call its `.init(key)`"),
                _ => err(span, "an optimizer or schedule is not an array; call its `.init(&params)` or `.update(&grads, state, &params)`"),
            },
            Value::Poison => Err(poisoned()),
        }
    }
}
