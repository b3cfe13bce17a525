//! How the tracer reaches the layers above it without importing them:
//! where a library name was written ([`Module`], read from a path by
//! [`library_module`]), and [`Above`], the table of functions the entry
//! (`frontend/parse.rs`) gives each [`Tracer`]. A call expression, a
//! method call, a function of the mod with a custom derivative rule and a
//! library function called as a value go through it: one indirect call
//! each, at the place the tracer hands over.

use proc_macro2::Span;

use crate::frontend::trace::module::CustomRule;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::types::TypeSpec;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;

/// A call's arguments: each one's value and span.
pub(crate) type Args = Vec<(Value, Span)>;

/// An operation of the library by name (`module`, `name`), with its
/// arguments, the written type of its result, and its span.
pub(crate) type OpFn = fn(&mut Tracer, Module, &str, Args, Option<TypeSpec>, Span) -> Result<Value>;

/// The functions of `bodies/`, `lib/` and the entry that the tracer calls
/// (`frontend/parse.rs` has the one table, `ABOVE`).
pub(crate) struct Above {
    /// A call expression `f(..)`: `frontend/calls.rs` `Tracer::call_expr`.
    pub(crate) call: fn(&mut Tracer, &syn::ExprCall, Option<TypeSpec>) -> Result<Value>,
    /// A method call `x.f(..)`: `frontend/calls.rs` `Tracer::method_call`.
    pub(crate) method: fn(&mut Tracer, &syn::ExprMethodCall, Option<TypeSpec>) -> Result<Value>,
    /// A function of the mod with a `#[custom_jvp]` or `#[custom_vjp]`
    /// rule, called: `bodies/compose.rs` `call_with_rule`.
    pub(crate) custom_call: fn(&mut Tracer, &syn::ItemFn, &CustomRule, Args, Span) -> Result<Value>,
    /// An operation of the library by name: `lib/lower.rs` `Tracer::op`.
    pub(crate) op: OpFn,
    /// The module of a library function called by a bare name:
    /// `frontend/calls.rs` `Tracer::bare_library_function`.
    pub(crate) bare_library_function: fn(&mut Tracer, &str, &syn::Ident) -> Result<Option<Module>>,
}

impl Tracer {
    /// A call expression, lowered by the layers above.
    pub(crate) fn call(&mut self, c: &syn::ExprCall, hint: Option<TypeSpec>) -> Result<Value> {
        (self.above.call)(self, c, hint)
    }

    /// A method call, lowered by the layers above.
    pub(crate) fn method(
        &mut self,
        m: &syn::ExprMethodCall,
        hint: Option<TypeSpec>,
    ) -> Result<Value> {
        (self.above.method)(self, m, hint)
    }

    /// A call of `f`, a function of the mod with a custom derivative rule.
    pub(crate) fn custom_call(
        &mut self,
        f: &syn::ItemFn,
        rule: &CustomRule,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        (self.above.custom_call)(self, f, rule, args, span)
    }

    /// An operation of the library by name.
    pub(crate) fn library_op(
        &mut self,
        module: Module,
        name: &str,
        args: Vec<(Value, Span)>,
        hint: Option<TypeSpec>,
        span: Span,
    ) -> Result<Value> {
        (self.above.op)(self, module, name, args, hint, span)
    }

    /// The library module of a bare function name, if it is one.
    pub(crate) fn library_function(
        &mut self,
        name: &str,
        id: &syn::Ident,
    ) -> Result<Option<Module>> {
        (self.above.bare_library_function)(self, name, id)
    }
}

/// Where an operation was written: `jnp::`, `lax::` or as a method.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Module {
    Jnp,
    Lax,
    Method,
    /// `jax::random`'s samplers.
    Random,
    /// `jax::nn`.
    Nn,
    /// `jax::scipy::special`.
    Special,
    /// `jax::scipy::stats::norm`.
    Norm,
    /// `jnp::linalg`.
    Linalg,
    /// `jax::scipy::linalg`.
    ScipyLinalg,
}

impl Module {
    /// How a name written there starts: `jnp::`, `lax::`, `.`, `random::`.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Module::Method => ".",
            Module::Jnp => "jnp::",
            Module::Lax => "lax::",
            Module::Random => "random::",
            Module::Nn => "nn::",
            Module::Special => "special::",
            Module::Norm => "norm::",
            Module::Linalg => "jnp::linalg::",
            Module::ScipyLinalg => "scipy::linalg::",
        }
    }
}

/// The module and name a library path names by its last segments
/// (`jnp::sin`, `jax::scipy::stats::norm::logpdf_with`, `nn::relu` after
/// `use jax::nn;`), as calls and function values read it.
pub(crate) fn library_module(segs: &[String]) -> Option<(Module, &str)> {
    Some(match segs {
        [.., s, m, n] if s == "scipy" && m == "linalg" => (Module::ScipyLinalg, n.as_str()),
        [.., m, n] if m == "linalg" => (Module::Linalg, n.as_str()),
        [.., m, n] if m == "jnp" => (Module::Jnp, n.as_str()),
        [.., m, n] if m == "lax" => (Module::Lax, n.as_str()),
        [.., m, n] if m == "random" => (Module::Random, n.as_str()),
        [.., m, n] if m == "nn" => (Module::Nn, n.as_str()),
        [.., m, n] if m == "special" => (Module::Special, n.as_str()),
        [.., m, n] if m == "norm" => (Module::Norm, n.as_str()),
        _ => return None,
    })
}
