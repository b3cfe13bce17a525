//! `jax::optim`'s values as the tracer holds them: optimizers and
//! schedules known when the function compiles ([`Static`], the payload of
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

/// What `Value::Optim` holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Static {
    Opt(Opt),
    Sched(Sched),
}

pub(crate) const PREFIX: &str = "optim::";

fn state_fields(name: &str) -> Option<&'static [&'static str]> {
    let short = name.strip_prefix(PREFIX)?;
    STATES.iter().find(|(n, _)| *n == short).map(|(_, f)| *f)
}

/// `optim::AdamState<Params>` (any path ending so, unless the mod has its
/// own struct of that name) as a struct spec with optax's fields.
pub(crate) fn state_type_spec(ty: &syn::Type, items: &Items) -> Option<syn::Result<TypeSpec>> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    if items.structs.contains_key(&name) {
        return None;
    }
    let fields = STATES.iter().find(|(n, _)| *n == name)?.1;
    let count = (
        "count".to_string(),
        TypeSpec::Array {
            aval: Aval::scalar(DType::I32, false),
            by_ref: false,
        },
    );
    let mut out = vec![count];
    if !fields.is_empty() {
        let arg = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
                syn::GenericArgument::Type(t) => t,
                other => {
                    return Some(Err(syn::Error::new(
                        other.span(),
                        format!("write the params type: `optim::{name}<Params>`"),
                    )))
                }
            },
            _ => {
                return Some(Err(syn::Error::new(
                    last.span(),
                    format!("write the params type: `optim::{name}<Params>`"),
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
        name: format!("{PREFIX}{name}"),
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
    let fields = state_fields(name)?;
    let short = format_ident!("{}", name.strip_prefix(PREFIX).unwrap());
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
    let mut out = vec![(format_ident!("count"), syn::parse_quote!(::jax::Array<i32>))];
    for f in fields {
        out.push((format_ident!("{}", f), params.clone()?));
    }
    Some((quote!(::jax::optim::#short), out))
}
