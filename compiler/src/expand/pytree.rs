//! `#[derive(jax::Pytree)]` and how `#[jax::jit]` reads structs defined
//! outside the function.
//!
//! The derive writes `impl ::jax::tree::Pytree` (fields in declaration
//! order, as JAX flattens a dataclass) and a `macro_rules!` named after the
//! struct in the macro namespace (`pub(crate) use __jax_pytree_Params as
//! Params;`), so the macro resolves wherever the type does. A proc macro
//! cannot read another item; when `#[jax::jit]` meets a type name it does
//! not know in a signature, it expands to `Params! { @jax_jit [..] .. }`:
//! the struct's macro appends its field list and calls
//! `::jax::__jit_with_structs!`, which compiles the function with the struct
//! known (or asks the next unknown struct's macro, nesting).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::frontend::trace::types::{element_dtype, Items};

/// `#[derive(jax::Pytree)]` on `item`.
pub(crate) fn derive(item: TokenStream) -> TokenStream {
    let s = match syn::parse2::<syn::DeriveInput>(item) {
        Ok(s) => s,
        Err(e) => return e.to_compile_error(),
    };
    let what = match &s.data {
        syn::Data::Struct(d) => match &d.fields {
            syn::Fields::Named(_) => None,
            syn::Fields::Unnamed(f) => Some((f.span(), "a tuple struct")),
            syn::Fields::Unit => Some((s.ident.span(), "a unit struct")),
        },
        syn::Data::Enum(e) => Some((e.enum_token.span, "an enum")),
        syn::Data::Union(u) => Some((u.union_token.span, "a union")),
    };
    if let Some((span, what)) = what {
        let msg = format!("#[derive(jax::Pytree)] is for structs with named fields (JAX's dataclasses), not {what}: write `struct {} {{ field: Array<..>, .. }}`", s.ident);
        return syn::Error::new(span, msg).to_compile_error();
    }
    if !s.generics.params.is_empty() {
        return syn::Error::new_spanned(
            &s.generics,
            "#[derive(jax::Pytree)] on a generic struct is not supported yet: give the fields concrete types (`Array<f32, 3, 4>`, const items for sizes)",
        )
        .to_compile_error();
    }
    let syn::Data::Struct(syn::DataStruct {
        fields: syn::Fields::Named(named),
        ..
    }) = &s.data
    else {
        unreachable!("checked above")
    };
    let fields: Vec<(syn::Ident, syn::Type)> = named
        .named
        .iter()
        .map(|f| (f.ident.clone().unwrap(), f.ty.clone()))
        .collect();
    let name = &s.ident;
    let imp = pytree_impl(name, &fields);
    let mac = format_ident!("__jax_pytree_{}", name);
    let field_defs = fields.iter().map(|(f, t)| quote!(#f: #t));
    quote! {
        #imp
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #mac {
            (@jax_jit [$($defs:tt)*] [$($path:tt)*] $($rest:tt)*) => {
                ::jax::__jit_with_structs! {
                    [$($defs)* ($($path)*) struct #name { #(#field_defs,)* }]
                    $($rest)*
                }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #mac as #name;
    }
}

/// `impl ::jax::tree::Pytree` for a struct with these fields.
pub(crate) fn pytree_impl(name: &syn::Ident, fields: &[(syn::Ident, syn::Type)]) -> TokenStream {
    let idents: Vec<&syn::Ident> = fields.iter().map(|(f, _)| f).collect();
    let names: Vec<String> = idents.iter().map(|f| f.to_string()).collect();
    let name_str = name.to_string();
    // Each field must be a pytree: the error points at the field's type.
    let checks = fields.iter().map(|(_, t)| {
        quote_spanned! {t.span()=>
            const _: fn() = || {
                fn __jax_field_is_a_pytree<T: ::jax::tree::Pytree>() {}
                __jax_field_is_a_pytree::<#t>();
            };
        }
    });
    quote! {
        #(#checks)*
        #[automatically_derived]
        impl ::jax::tree::Pytree for #name {
            fn for_each_leaf(&self, f: &mut dyn FnMut(&dyn ::jax::tree::Leaf)) {
                #(::jax::tree::Pytree::for_each_leaf(&self.#idents, f);)*
            }
            fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut dyn ::jax::tree::Leaf)) {
                #(::jax::tree::Pytree::for_each_leaf_mut(&mut self.#idents, f);)*
            }
            fn def(&self) -> ::jax::tree::TreeDef {
                ::jax::tree::TreeDef::Node {
                    name: #name_str,
                    fields: ::std::vec![#(#names),*],
                    children: ::std::vec![#(::jax::tree::Pytree::def(&self.#idents)),*],
                }
            }
        }
    }
}

/// Whether a struct's attributes derive `Pytree` (then the jit macro does
/// not write the impl again).
pub(crate) fn derives(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|ps| {
                ps.iter()
                    .any(|p| p.segments.last().is_some_and(|s| s.ident == name))
            })
    })
}

/// The structs of a `#[jax::jit] mod` that get the impl from the jit macro:
/// those deriving `Clone` (the trait needs it) but not `Pytree`, without
/// generics, whose fields are all arrays, tuples or Rust arrays of them, or
/// structs of the mod that are pytrees (a scalar or key field keeps a struct
/// out: `f32` and `Key` are not pytrees eagerly).
pub(crate) fn auto_impls(content: &[syn::Item]) -> std::collections::HashSet<String> {
    let structs: std::collections::HashMap<String, &syn::ItemStruct> = content
        .iter()
        .filter_map(|it| match it {
            syn::Item::Struct(s) => Some((s.ident.to_string(), s)),
            _ => None,
        })
        .collect();
    let mut names: Vec<&String> = structs.keys().collect();
    names.sort();
    names
        .into_iter()
        .filter(|n| {
            let s = structs[*n];
            !derives(&s.attrs, "Pytree") && is_pytree_struct(s, &structs, 0)
        })
        .cloned()
        .collect()
}

fn is_pytree_struct(
    s: &syn::ItemStruct,
    structs: &std::collections::HashMap<String, &syn::ItemStruct>,
    depth: usize,
) -> bool {
    let syn::Fields::Named(named) = &s.fields else {
        return false;
    };
    depth < 16
        && s.generics.params.is_empty()
        && (derives(&s.attrs, "Clone") || derives(&s.attrs, "Pytree"))
        && named
            .named
            .iter()
            .all(|f| is_pytree_type(&f.ty, structs, depth + 1))
}

fn is_pytree_type(
    ty: &syn::Type,
    structs: &std::collections::HashMap<String, &syn::ItemStruct>,
    depth: usize,
) -> bool {
    match ty {
        syn::Type::Paren(p) => is_pytree_type(&p.elem, structs, depth),
        syn::Type::Group(g) => is_pytree_type(&g.elem, structs, depth),
        syn::Type::Array(a) => is_pytree_type(&a.elem, structs, depth),
        syn::Type::Tuple(t) => {
            t.elems.len() <= 6 && t.elems.iter().all(|t| is_pytree_type(t, structs, depth))
        }
        syn::Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            if last.ident == "Array" {
                return !last.arguments.is_empty();
            }
            last.arguments.is_empty()
                && structs
                    .get(&last.ident.to_string())
                    .is_some_and(|s| is_pytree_struct(s, structs, depth))
        }
        _ => false,
    }
}

/// The first type name of a signature (or of the known structs' fields)
/// that is neither an array, a scalar, a key nor a known struct: a struct
/// defined elsewhere, to ask for with its `macro_rules!`.
pub(crate) fn unknown_struct(sig: &syn::Signature, items: &Items) -> Option<syn::Path> {
    let mut tys: Vec<&syn::Type> = sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => Some(&*t.ty),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    if let syn::ReturnType::Type(_, t) = &sig.output {
        tys.push(t);
    }
    let mut known: Vec<&Vec<(syn::Ident, syn::Type)>> = items.structs.values().collect();
    known.sort_by_key(|f| f.first().map(|(i, _)| i.to_string()));
    tys.extend(known.into_iter().flatten().map(|(_, t)| t));
    tys.into_iter().find_map(|t| unknown_in(t, items))
}

fn unknown_in(ty: &syn::Type, items: &Items) -> Option<syn::Path> {
    match ty {
        syn::Type::Reference(r) => unknown_in(&r.elem, items),
        syn::Type::Paren(p) => unknown_in(&p.elem, items),
        syn::Type::Group(g) => unknown_in(&g.elem, items),
        syn::Type::Array(a) => unknown_in(&a.elem, items),
        syn::Type::Tuple(t) => t.elems.iter().find_map(|t| unknown_in(t, items)),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            let plain = last.arguments.is_empty();
            if !plain
                || element_dtype(ty).is_some()
                || matches!(name.as_str(), "Array" | "Key" | "Self")
                || items.structs.contains_key(&name)
                || !name.starts_with(|c: char| c.is_ascii_uppercase())
            {
                return None;
            }
            Some(p.path.clone())
        }
        _ => None,
    }
}

/// The callback's request: `Path! { @jax_jit [structs so far] [Path] [attr] item }`.
pub(crate) fn ask_for(
    path: &syn::Path,
    defs: &TokenStream,
    attr: &TokenStream,
    item: &TokenStream,
) -> TokenStream {
    let span = path.span();
    let mac = quote_spanned!(span=> #path!);
    let path_tokens = path.to_token_stream();
    // Without the derive the macro is missing (rustc: "cannot find macro");
    // this says why, at the type.
    let check = quote_spanned! {span=>
        const _: () = {
            fn __jax_struct_in_a_jit_signature_needs_derive_pytree<T: ::jax::tree::Pytree>() {}
            let _ = __jax_struct_in_a_jit_signature_needs_derive_pytree::<#path>;
        };
    };
    quote! {
        #check
        #mac { @jax_jit [#defs] [#path_tokens] [#attr] #item }
    }
}

/// What `::jax::__jit_with_structs!` received: the structs collected so far
/// (`(path) struct Name { fields }` each), the attribute's arguments and the
/// item.
pub(crate) struct WithStructs {
    pub(crate) defs: TokenStream,
    pub(crate) structs: Vec<(syn::Path, syn::ItemStruct)>,
    pub(crate) attr: TokenStream,
    pub(crate) item: TokenStream,
}

impl syn::parse::Parse for WithStructs {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let defs_group;
        syn::bracketed!(defs_group in input);
        let defs: TokenStream = defs_group.fork().parse()?;
        let mut structs = Vec::new();
        while !defs_group.is_empty() {
            let p;
            syn::parenthesized!(p in defs_group);
            let path: syn::Path = p.parse()?;
            let s: syn::ItemStruct = defs_group.parse()?;
            structs.push((path, s));
        }
        let attr_group;
        syn::bracketed!(attr_group in input);
        let attr: TokenStream = attr_group.parse()?;
        let item: TokenStream = input.parse()?;
        Ok(WithStructs {
            defs,
            structs,
            attr,
            item,
        })
    }
}
