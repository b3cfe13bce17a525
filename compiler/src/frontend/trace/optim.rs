//! `jax::optim`'s values as the tracer holds them: optimizers and
//! schedules (and `stax`'s layers and `nn::initializers`) known when the function compiles ([`Static`], the payload of
//! `Value::Optim`), and the optimizer state structs (`optim::AdamState<P>`
//! and the others) as written types, in signatures and in the generated
//! code. Constructing and applying them is `lib/optim/`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use jax_dtypes::DType;

use crate::frontend::trace::types::{type_spec_in, Items, TypeSpec};
use crate::ir::Aval;

/// Optimizers and schedules (hyperparameters known when the function
/// compiles) and their formulas: `jax_core::optim`.
pub(crate) use jax_core::optim::{Opt, Sched, STATES};
pub(crate) use jax_core::optimizers::{self, Optimizer, StepSize};

/// What `Value::Optim` holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Static {
    Opt(Opt),
    Sched(Sched),
    /// An optimizer of `jax::example_libraries::optimizers`.
    Optimizer(Optimizer),
    /// A step size schedule of `jax::example_libraries::optimizers`.
    StepSize(StepSize),
    /// A layer of `jax::example_libraries::stax`.
    Layer(jax_core::stax::Layer),
    /// An initializer of `jax::nn::initializers`.
    Init(jax_core::initializers::Init),
}

/// A layer constant of `stax` (`Relu`, `stax::Flatten`) by name.
pub(crate) fn stax_constant(name: &str) -> Option<Static> {
    use jax_core::stax::{Elementwise::*, Layer};
    let e = Layer::Elementwise;
    Some(Static::Layer(match name {
        "Tanh" => e(Tanh),
        "Relu" => e(Relu),
        "Exp" => e(Exp),
        "LogSoftmax" => e(LogSoftmax),
        "Softmax" => e(Softmax),
        "Softplus" => e(Softplus),
        "Sigmoid" => e(Sigmoid),
        "Elu" => e(Elu),
        "LeakyRelu" => e(LeakyRelu),
        "Selu" => e(Selu),
        "Gelu" => e(Gelu),
        "Flatten" => Layer::Flatten,
        "Identity" => Layer::Identity,
        "FanInSum" => Layer::FanInSum,
        _ => return None,
    }))
}

pub(crate) const PREFIX: &str = "optim::";

/// The prefix of `jax::example_libraries::optimizers`' state structs.
pub(crate) const OPTIMIZERS_PREFIX: &str = "optimizers::";

/// A state struct's fields by its prefixed name, and whether it has
/// optax's step `count` first.
fn state_fields(name: &str) -> Option<(&'static [&'static str], bool)> {
    if let Some(short) = name.strip_prefix(PREFIX) {
        return STATES
            .iter()
            .find(|(n, _)| *n == short)
            .map(|(_, f)| (*f, true));
    }
    let short = name.strip_prefix(OPTIMIZERS_PREFIX)?;
    optimizers::state_fields(short).map(|f| (f, false))
}

/// `optim::AdamState<Params>` (any path ending so, unless the mod has its
/// own struct of that name) as a struct spec with optax's fields; the
/// states of `jax::example_libraries::optimizers` (`MomentumState<P>`,
/// and `optimizers::AdamState<P>`, which a path names apart from optax's).
pub(crate) fn state_type_spec(ty: &syn::Type, items: &Items) -> Option<syn::Result<TypeSpec>> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    if items.structs.contains_key(&name) {
        return None;
    }
    let n = p.path.segments.len();
    let under_optimizers = n >= 2 && p.path.segments[n - 2].ident == "optimizers";
    let optax = STATES.iter().find(|(s, _)| *s == name);
    let (prefix, fields, count) = match (optax, optimizers::state_fields(&name)) {
        (Some((_, f)), None) => (PREFIX, *f, true),
        (Some((_, f)), Some(_)) if !under_optimizers => (PREFIX, *f, true),
        (_, Some(f)) => (OPTIMIZERS_PREFIX, f, false),
        (None, None) => return None,
    };
    let module = prefix.trim_end_matches("::");
    let mut out = Vec::new();
    if count {
        out.push((
            "count".to_string(),
            TypeSpec::Array {
                aval: Aval::scalar(DType::I32, false),
                by_ref: false,
            },
        ));
    }
    if !fields.is_empty() {
        let arg = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
                syn::GenericArgument::Type(t) => t,
                other => {
                    return Some(Err(syn::Error::new(
                        other.span(),
                        format!("write the params type: `{module}::{name}<Params>`"),
                    )))
                }
            },
            _ => {
                return Some(Err(syn::Error::new(
                    last.span(),
                    format!("write the params type: `{module}::{name}<Params>`"),
                )))
            }
        };
        let spec = match type_spec_in(arg, items) {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        for f in fields {
            out.push((f.to_string(), spec.clone()));
        }
    }
    Some(Ok(TypeSpec::Struct {
        name: format!("{prefix}{name}"),
        fields: out,
    }))
}

/// The fields of a state struct named `name` as the result type `ty`
/// writes them (the params type is `ty`'s generic argument), and the path
/// of the struct to build, for the generated code; `None` for other structs.
pub(crate) fn state_result_fields(
    name: &str,
    ty: &syn::Type,
) -> Option<(TokenStream, Vec<(syn::Ident, syn::Type)>)> {
    let (fields, count) = state_fields(name)?;
    let (path, short) = match name.strip_prefix(PREFIX) {
        Some(short) => (quote!(::jax::optim), short),
        None => (
            quote!(::jax::example_libraries::optimizers),
            name.strip_prefix(OPTIMIZERS_PREFIX)?,
        ),
    };
    let short = format_ident!("{}", short);
    let mut params: Option<syn::Type> = None;
    if let syn::Type::Path(p) = ty {
        if let Some(syn::PathArguments::AngleBracketed(a)) =
            p.path.segments.last().map(|s| &s.arguments)
        {
            if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                params = Some(t.clone());
            }
        }
    }
    let mut out = Vec::new();
    if count {
        out.push((format_ident!("count"), syn::parse_quote!(::jax::Array<i32>)));
    }
    for f in fields {
        out.push((format_ident!("{}", f), params.clone()?));
    }
    Some((quote!(#path::#short), out))
}
