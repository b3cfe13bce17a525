//! A jitted function's signature read into types: its parameters (and
//! `&self` inside an `impl` of a `#[jax::jit] mod`), its const generics
//! and its result, each a [`TypeSpec`].

use syn::spanned::Spanned;

use crate::frontend::trace::types::{type_spec_in, Items, TypeSpec};
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
