//! What the lowering of an operation by name works with: where it was
//! written ([`Module`]), the call itself ([`Call`]: its name, arguments and
//! the written type of its result), and readers of the arguments that must
//! be known when the function compiles (axes, shapes, flags). The table in
//! `lower.rs` and its handlers (the files of `lib/`) share these.

use proc_macro2::Span;

use crate::frontend::trace::jnp;
pub(crate) use crate::frontend::trace::layers::Module;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::types::TypeSpec;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Dim, Scalar};

/// An error about the whole call: re-spanned over all of its tokens by the
/// expression that claims it (see `ir::builder::expression_error`).
pub(crate) fn call_err<T>(span: Span, msg: impl std::fmt::Display) -> Result<T> {
    Err(crate::ir::builder::expression_error(span, msg))
}

/// The error for a JAX-style function this crate does not provide.
pub(crate) fn not_available_msg(path: &str) -> String {
    format!(
        "`{path}` is not available in this crate's #[jax::jit] (no such function, or not jit-able yet); the guide's \"Compared with JAX\" chapter (runtime/guide/compared_with_jax.md) lists the jnp::, lax::, nn:: and scipy:: functions there are"
    )
}

/// A name no row lowers (or not where it was written).
pub(crate) fn unsupported(call: Call) -> Result<Value> {
    call_err(
        call.span,
        not_available_msg(&format!("{}{}", call.module.prefix(), call.name)),
    )
}

/// A call of an operation by name: `module::name(args)`, or
/// `args[0].name(args[1..])` for a method.
pub(crate) struct Call<'a> {
    pub(crate) module: Module,
    pub(crate) name: &'a str,
    /// Each argument's value and span.
    pub(crate) args: Vec<(Value, Span)>,
    /// The written type of the result, when the call is the whole value of
    /// an annotated `let` or of the function body.
    pub(crate) hint: Option<TypeSpec>,
    pub(crate) span: Span,
}

impl Call<'_> {
    /// Checks that the call has `k` arguments.
    pub(crate) fn want(&self, k: usize) -> Result<()> {
        let n = self.args.len();
        if n == k {
            return Ok(());
        }
        // The eager function's parameters, read from its source.
        let params = crate::frontend::lib::param_names::params(self.module, self.name)
            .filter(|ps| ps.len() == k);
        match params {
            Some(ps) => call_err(
                self.span,
                format!(
                    "`{}{}({})` takes {k} argument(s), got {n}",
                    self.module.prefix(),
                    self.name,
                    ps.join(", ")
                ),
            ),
            None => call_err(
                self.span,
                format!("`{}` takes {k} argument(s), got {n}", self.name),
            ),
        }
    }

    /// Argument `i` as a traced operand.
    pub(crate) fn atom(&self, t: &mut Tracer, i: usize) -> Result<Atom> {
        match self.args.get(i) {
            Some((v, s)) => t.atom(v.clone(), *s),
            None => call_err(
                self.span,
                format!("`{}` is missing argument {}", self.name, i + 1),
            ),
        }
    }

    /// The shape a context-typed result (`let y: Array<f32, 3, 2> = x.reshape();`) must have.
    pub(crate) fn hinted_shape(&self) -> Result<Vec<Dim>> {
        match self.hint.as_ref().and_then(TypeSpec::aval) {
            Some(a) => Ok(a.shape),
            None => call_err(
                self.span,
                format!("`{what}` takes its result shape from the context: annotate it (`let y: Array<f32, 3, 2> = x.{what}();`)", what = self.name),
            ),
        }
    }
}

impl Tracer {
    /// `(axes, keepdims)` from optional `axis, keepdims` arguments.
    pub(crate) fn axis_args(
        &self,
        x: &Atom,
        rest: &[(Value, Span)],
        name: &str,
        span: Span,
    ) -> Result<(Option<Vec<usize>>, bool)> {
        match rest {
            [] => Ok((None, false)),
            [(axis, s1), (keep, s2)] => {
                let ax = self.static_int(axis, *s1, "the axis")?;
                let ax = jnp::axis(&self.b, x, ax, *s1)?;
                Ok((Some(vec![ax]), self.static_bool_arg(keep, *s2, "keepdims")?))
            }
            _ => call_err(
                span,
                format!("`{name}` takes the array, or the array, an axis and keepdims"),
            ),
        }
    }

    /// A number known when the function compiles (`what` names it in the error).
    pub(crate) fn static_int(&self, v: &Value, span: Span, what: &str) -> Result<i128> {
        match v {
            Value::Static(Scalar::Int(i)) => Ok(*i),
            Value::Symbolic(sym) => call_err(
                span,
                format!("{what} must be a number the compiler sees (a literal or a const of the #[jax::jit] mod): `{}` is a const generic, whose value only rustc knows; write the number, or make it a `const` of the mod", sym.expr),
            ),
            _ => call_err(
                span,
                format!("{what} must be a static integer (a literal or const)"),
            ),
        }
    }

    /// One static integer or a tuple of them (a shape, a permutation), or
    /// a Rust array of them as the eager `lax::` functions take (`&[1, 0]`).
    pub(crate) fn static_ints(&self, v: &Value, span: Span, what: &str) -> Result<Vec<i128>> {
        match v {
            Value::Tuple(items) | Value::List(items) => items
                .iter()
                .map(|i| self.static_int(i, span, what))
                .collect(),
            v => Ok(vec![self.static_int(v, span, what)?]),
        }
    }

    /// A flag known when the function compiles (`keepdims`).
    fn static_bool_arg(&self, v: &Value, span: Span, what: &str) -> Result<bool> {
        match v {
            Value::Static(Scalar::Bool(b)) => Ok(*b),
            _ => call_err(span, format!("{what} must be `true` or `false`")),
        }
    }
}

/// The library functions a bare name may be (`logsumexp(x)` after `use
/// jax::scipy::special::logsumexp;`): each module of `nn::`, `special::`,
/// `norm::`, `jnp::linalg::` and `scipy::linalg::` whose table has it, with
/// the module's path and the name's handler.
pub(crate) fn library_functions(
    name: &str,
) -> Vec<(Module, &'static str, crate::frontend::lib::nn::Handler)> {
    let tables = [
        (Module::Nn, crate::frontend::lib::nn::table(Module::Nn)),
        (
            Module::Special,
            crate::frontend::lib::nn::table(Module::Special),
        ),
        (Module::Norm, crate::frontend::lib::nn::table(Module::Norm)),
        (
            Module::Linalg,
            crate::frontend::lib::linalg::table(Module::Linalg),
        ),
        (
            Module::ScipyLinalg,
            crate::frontend::lib::linalg::table(Module::ScipyLinalg),
        ),
    ];
    tables
        .into_iter()
        .filter_map(|(m, (table, path))| {
            let (_, h) = table.iter().find(|(n, _)| *n == name)?;
            Some((m, path, *h))
        })
        .collect()
}

/// A check's rejection at the tokens at fault: an argument of `c`, an
/// option among `options` (its name and the tokens written for it), or the
/// call.
pub(crate) fn reject<T>(
    c: &Call,
    options: &[(&str, &proc_macro2::TokenStream)],
    r: std::result::Result<T, jax_core::jnp::Rejected>,
) -> Result<T> {
    r.or_else(|r| match r.what {
        jax_core::jnp::Fault::Arg(i) => call_err(c.args.get(i).map_or(c.span, |a| a.1), r.msg),
        jax_core::jnp::Fault::Option(name) => match options.iter().find(|(n, _)| *n == name) {
            Some((_, tokens)) => Err(syn::Error::new_spanned(tokens, r.msg)),
            None => call_err(c.span, r.msg),
        },
        jax_core::jnp::Fault::Call => call_err(c.span, r.msg),
    })
}
