//! The frontend's entry points: a jitted function's signature read into
//! types, and its body traced into a jaxpr (parameters become inputs, the
//! body's value the outputs). Static values (literals, loop indices of
//! static loops, consts) are computed while tracing; traced values (the
//! arguments and everything computed from them) become equations.

use syn::spanned::Spanned;

/// For `expand`, which drops the errors that stand for one already reported.
pub(crate) use crate::frontend::tracer::is_poisoned;
use crate::frontend::tracer::Tracer;
use crate::frontend::types::{type_spec_in, Items, TypeSpec};
use crate::frontend::value::{flatten, Symbolic, Value};
use crate::ir::builder::{err, Result};

/// The parsed signature of a jitted function.
pub(crate) struct Signature {
    pub(crate) params: Vec<(syn::Ident, TypeSpec)>,
    pub(crate) ret: TypeSpec,
    /// Names of the const generic parameters.
    pub(crate) const_generics: Vec<String>,
}

/// Reads the signature; everything the body may use must be nameable as an array type.
pub(crate) fn signature(f: &syn::ItemFn) -> Result<Signature> {
    signature_in(&f.sig, &Items::default(), None)
}

/// Reads a signature inside a `#[jax::jit] mod`; `self_ty` is the struct of
/// an `impl` block, for a `&self` receiver.
pub(crate) fn signature_in(
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
