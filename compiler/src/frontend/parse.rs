//! The frontend's entry points: a jitted function's signature read into
//! types, and its body traced into a jaxpr (parameters become inputs, the
//! body's value the outputs). Static values (literals, loop indices of
//! static loops, consts) are computed while tracing; traced values (the
//! arguments and everything computed from them) become equations.

use syn::spanned::Spanned;

use crate::frontend::trace::layers::Above;
use crate::frontend::trace::module::CustomRule;
pub(crate) use crate::frontend::trace::signature::{signature, signature_in, Signature};
/// For `expand`, which drops the errors that stand for one already reported.
pub(crate) use crate::frontend::trace::tracer::is_poisoned;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::types::{Items, TypeSpec};
use crate::frontend::trace::value::{flatten, Symbolic, Value};
use crate::ir::builder::Result;
use crate::ir::Jaxpr;

/// The functions the tracer reaches above its own layer (see
/// `trace::layers::Above`): every `Tracer` is made with this table.
static ABOVE: Above = Above {
    call: Tracer::call_expr,
    method: Tracer::method_call,
    custom_call: crate::frontend::bodies::compose::call_with_rule,
    op: Tracer::op,
    bare_library_function: Tracer::bare_library_function,
};

/// The jaxpr of a `#[custom_jvp]` or `#[custom_vjp]` function as its own
/// derivatives see it (`bodies/compose.rs`).
pub(crate) fn custom_program(
    j: &Jaxpr,
    f: &syn::ItemFn,
    rule: &CustomRule,
    items: std::rc::Rc<Items>,
    x64: bool,
) -> Result<Jaxpr> {
    crate::frontend::bodies::compose::custom_program(j, f, rule, items, x64, &ABOVE)
}

/// The rule's program of JAX's `custom_jvp` function `name`, for an
/// imported `custom_jvp_call` (`lib/nn.rs`).
pub(crate) fn known_custom_jvp(name: &str, fun: &Jaxpr) -> Option<Jaxpr> {
    crate::frontend::lib::nn::known_custom_jvp(name, fun)
}

/// Traces a whole function: parameters become inputs, the body's value the outputs.
pub(crate) fn trace_fn(f: &syn::ItemFn, sig: &Signature, x64: bool) -> Result<Tracer> {
    trace_body(&f.block, sig, &f.sig.output, Default::default(), None, x64)
}

/// Traces a function body of a `#[jax::jit] mod` (`self_ty`: the struct of
/// its `impl`, if it is a method).
pub(crate) fn trace_body(
    block: &syn::Block,
    sig: &Signature,
    output: &syn::ReturnType,
    items: std::rc::Rc<Items>,
    self_ty: Option<syn::Type>,
    x64: bool,
) -> Result<Tracer> {
    let output_span = output.span();
    crate::ir::builder::clear_expression_mark();
    let mut t = Tracer::new(x64, &ABOVE);
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

impl Tracer {
    fn input_value(&mut self, spec: &TypeSpec) -> Value {
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
            TypeSpec::List(items) => {
                Value::List(items.iter().map(|s| self.input_value(s)).collect())
            }
            s => Value::Traced(self.b.input(s.aval().unwrap())),
        }
    }
}

/// A mod's items with every `type X = stax::params_of!(net, [..]);` written
/// out: the model traced (`net` and the consts it reads are the mod's
/// `items`), its `init` run on an abstract key, the params' types spelled.
pub(crate) fn resolve_params_types(
    content: &[syn::Item],
    items: std::rc::Rc<Items>,
    x64: bool,
) -> Result<Vec<syn::Item>> {
    use crate::frontend::lib::optim::stax;
    let mut out = Vec::with_capacity(content.len());
    for it in content {
        match it {
            syn::Item::Type(ty) if stax::is_params_of(&ty.ty).is_some() => {
                let mac = stax::is_params_of(&ty.ty).expect("checked");
                let mut t = Tracer::new(x64, &ABOVE);
                t.items = items.clone();
                let resolved = stax::params_type(&mut t, mac)?;
                let mut ty = ty.clone();
                *ty.ty = resolved;
                out.push(syn::Item::Type(ty));
            }
            other => out.push(other.clone()),
        }
    }
    Ok(out)
}
