//! Type aliases of a `#[jax::jit] mod` (`type Params = ((Array<..>, ..), ..);`,
//! `type Dense<const I: usize, const O: usize> = (Array<f32, I, O>, Array<f32, O>);`):
//! written out in the mod's other items before they are read, so every
//! signature the compiler reads names its arrays and tuples directly.
//! The aliases themselves stay, for the code around the mod.

use std::collections::HashMap;

use syn::visit_mut::{self, VisitMut};

/// An alias: its generic parameters' names and its type.
struct Alias {
    params: Vec<String>,
    ty: syn::Type,
}

/// The items with the mod's aliases written out (up to 32 levels of
/// aliases naming aliases; deeper ones, or cycles, are left for rustc to
/// report).
pub(crate) fn expand(content: &[syn::Item]) -> Vec<syn::Item> {
    let mut aliases = HashMap::new();
    for it in content {
        if let syn::Item::Type(t) = it {
            let params = t
                .generics
                .params
                .iter()
                .filter_map(|p| match p {
                    syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                    syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                    syn::GenericParam::Lifetime(_) => None,
                })
                .collect();
            aliases.insert(
                t.ident.to_string(),
                Alias {
                    params,
                    ty: (*t.ty).clone(),
                },
            );
        }
    }
    if aliases.is_empty() {
        return content.to_vec();
    }
    content
        .iter()
        .map(|it| match it {
            syn::Item::Type(_) => it.clone(),
            _ => {
                let mut it = it.clone();
                Expand {
                    aliases: &aliases,
                    depth: 0,
                }
                .visit_item_mut(&mut it);
                it
            }
        })
        .collect()
}

struct Expand<'a> {
    aliases: &'a HashMap<String, Alias>,
    depth: usize,
}

impl VisitMut for Expand<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        visit_mut::visit_type_mut(self, ty);
        let syn::Type::Path(p) = ty else { return };
        if p.qself.is_some() || p.path.segments.len() != 1 || self.depth > 32 {
            return;
        }
        let seg = &p.path.segments[0];
        let Some(alias) = self.aliases.get(&seg.ident.to_string()) else {
            return;
        };
        let args: Vec<syn::GenericArgument> = match &seg.arguments {
            syn::PathArguments::None => vec![],
            syn::PathArguments::AngleBracketed(a) => a.args.iter().cloned().collect(),
            syn::PathArguments::Parenthesized(_) => return,
        };
        if args.len() != alias.params.len() {
            return;
        }
        let mut out = alias.ty.clone();
        let map: HashMap<String, syn::GenericArgument> =
            alias.params.iter().cloned().zip(args).collect();
        Substitute { map: &map }.visit_type_mut(&mut out);
        self.depth += 1;
        self.visit_type_mut(&mut out);
        self.depth -= 1;
        *ty = out;
    }
}

/// An alias's generic parameters replaced by its use's arguments.
struct Substitute<'a> {
    map: &'a HashMap<String, syn::GenericArgument>,
}

impl Substitute<'_> {
    fn named(&self, ty: &syn::Type) -> Option<&syn::GenericArgument> {
        let syn::Type::Path(p) = ty else { return None };
        let id = p.path.get_ident()?;
        self.map.get(&id.to_string())
    }
}

impl VisitMut for Substitute<'_> {
    fn visit_generic_argument_mut(&mut self, a: &mut syn::GenericArgument) {
        if let syn::GenericArgument::Type(t) = a {
            if let Some(arg) = self.named(t) {
                *a = arg.clone();
                return;
            }
        }
        if let syn::GenericArgument::Const(syn::Expr::Path(p)) = a {
            if let Some(arg) = p
                .path
                .get_ident()
                .and_then(|i| self.map.get(&i.to_string()))
            {
                *a = arg.clone();
                return;
            }
        }
        visit_mut::visit_generic_argument_mut(self, a);
    }

    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let Some(syn::GenericArgument::Type(t)) = self.named(ty) {
            *ty = t.clone();
            return;
        }
        visit_mut::visit_type_mut(self, ty);
    }
}
