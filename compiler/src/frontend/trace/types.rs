//! Reading the user's Rust types as abstract values: `Array<f32, 3, N>`,
//! `&Array<..>`, `f32`, tuples, structs of the `#[jax::jit] mod`, and
//! `jax::random::Key`.

use std::collections::HashMap;

use jax_dtypes::DType;
use syn::spanned::Spanned;

use crate::ir::{key_aval, Aval, Dim};

/// A parameter or result type of a jitted function.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TypeSpec {
    /// `Array<T, dims..>` (by value or, for parameters, by reference).
    Array {
        aval: Aval,
        by_ref: bool,
    },
    /// A Rust scalar (`f32`, `i32`, `bool`): weakly typed, like a Python scalar.
    Scalar(DType),
    Tuple(Vec<TypeSpec>),
    /// A `jax::random::Key`: its two words, `u32[2]`, in the jaxpr.
    Key,
    /// A Rust array `[T; N]` of pytrees (`[Layer; 3]`): its items in order.
    List(Vec<TypeSpec>),
    /// A struct of a `#[jax::jit] mod` (a pytree): its fields in order.
    Struct {
        name: String,
        fields: Vec<(String, TypeSpec)>,
    },
}

/// The items of a `#[jax::jit] mod` that functions in it can name.
#[derive(Clone, Default)]
pub(crate) struct Items {
    /// Struct name -> its fields and their written types.
    pub(crate) structs: HashMap<String, Vec<(syn::Ident, syn::Type)>>,
    /// Const name -> its value expression.
    pub(crate) consts: HashMap<String, syn::Expr>,
    /// Function name -> the function, inlined where it is called.
    pub(crate) fns: HashMap<String, syn::ItemFn>,
    /// `(struct, method)` -> the method, inlined where it is called.
    pub(crate) methods: HashMap<(String, String), syn::ImplItemFn>,
    /// Structs defined outside (`#[derive(jax::Pytree)]`) -> the path the
    /// signature names them by (spelled so in the companion module).
    pub(crate) paths: HashMap<String, syn::Path>,
    /// The const generics of a function of the mod being inlined, bound to
    /// the sizes of its call's arguments (`B` -> 32, or the caller's `C`).
    pub(crate) sizes: HashMap<String, Dim>,
}

impl TypeSpec {
    pub(crate) fn aval(&self) -> Option<Aval> {
        match self {
            TypeSpec::Array { aval, .. } => Some(aval.clone()),
            TypeSpec::Scalar(d) => Some(Aval::scalar(*d, *d != DType::Bool)),
            TypeSpec::Key => Some(key_aval()),
            TypeSpec::Tuple(_) | TypeSpec::List(_) | TypeSpec::Struct { .. } => None,
        }
    }
}

/// What to write instead of an unsupported complex element type (`Complex<i32>`).
pub(crate) const COMPLEX_NOT_IN_JIT: &str =
    "complex element types are `Complex<f32>` (complex64) and `Complex<f64>` (complex128)";

/// Whether `ty` names `Complex<..>` (`jax::Complex`, num-complex's type).
pub(crate) fn is_complex_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Group(g) => is_complex_type(&g.elem),
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Complex"),
        _ => false,
    }
}

/// The dtype a Rust element type names.
pub(crate) fn element_dtype(ty: &syn::Type) -> Option<DType> {
    if let syn::Type::Group(g) = ty {
        // Passed through a `macro_rules!` `$t:ty`.
        return element_dtype(&g.elem);
    }
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident == "Complex" {
        return complex_dtype(&last.arguments);
    }
    if !last.arguments.is_empty() {
        return None;
    }
    Some(match last.ident.to_string().as_str() {
        "bool" => DType::Bool,
        "u8" => DType::U8,
        "u16" => DType::U16,
        "u32" => DType::U32,
        "u64" => DType::U64,
        "i8" => DType::I8,
        "i16" => DType::I16,
        "i32" => DType::I32,
        "i64" => DType::I64,
        "bf16" => DType::BF16,
        "f16" => DType::F16,
        "f32" => DType::F32,
        "f64" => DType::F64,
        // jax::DefaultFloat / DefaultInt, which follow the x64 feature.
        "DefaultFloat" => jax_dtypes::default_dtype(jax_dtypes::Kind::Float, crate::x64()),
        "DefaultInt" => jax_dtypes::default_dtype(jax_dtypes::Kind::Int, crate::x64()),
        _ => return None,
    })
}

/// `Complex<f32>` is complex64, `Complex<f64>` complex128 (however the
/// path to `Complex` is written).
fn complex_dtype(args: &syn::PathArguments) -> Option<DType> {
    let syn::PathArguments::AngleBracketed(a) = args else {
        return None;
    };
    match (a.args.len(), a.args.first()?) {
        (1, syn::GenericArgument::Type(t)) => match element_dtype(t)? {
            DType::F32 => Some(DType::C64),
            DType::F64 => Some(DType::C128),
            _ => None,
        },
        _ => None,
    }
}

/// A named dimension: a literal when it is a const item of the mod whose
/// value is a number or arithmetic of numbers and such consts (also when
/// a `macro_rules!` wrote it), else a symbol only rustc knows.
fn named_dim(name: String, items: &Items) -> Dim {
    if let Some(d) = items.sizes.get(&name) {
        return d.clone();
    }
    match items
        .consts
        .get(&name)
        .and_then(|e| const_usize(e, items, 0))
    {
        Some(n) => Dim::Lit(n),
        None => Dim::Sym(name),
    }
}

/// The value of a const expression of integers, `+ - * / %` and the mod's
/// consts; `None` for anything else (rustc then evaluates it).
fn const_usize(e: &syn::Expr, items: &Items, depth: usize) -> Option<usize> {
    if depth > 32 {
        return None;
    }
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Group(g) => const_usize(&g.expr, items, depth + 1),
        syn::Expr::Paren(p) => const_usize(&p.expr, items, depth + 1),
        syn::Expr::Path(p) => {
            let name = p.path.get_ident()?.to_string();
            const_usize(items.consts.get(&name)?, items, depth + 1)
        }
        syn::Expr::Binary(b) => {
            let l = const_usize(&b.left, items, depth + 1)?;
            let r = const_usize(&b.right, items, depth + 1)?;
            match b.op {
                syn::BinOp::Add(_) => l.checked_add(r),
                syn::BinOp::Sub(_) => l.checked_sub(r),
                syn::BinOp::Mul(_) => l.checked_mul(r),
                syn::BinOp::Div(_) => l.checked_div(r),
                syn::BinOp::Rem(_) => l.checked_rem(r),
                _ => None,
            }
        }
        _ => None,
    }
}

fn dim(arg: &syn::GenericArgument, items: &Items) -> syn::Result<Dim> {
    let expr = match arg {
        syn::GenericArgument::Const(e) => e,
        // A bare identifier parses as a type: a const generic or const item.
        syn::GenericArgument::Type(syn::Type::Path(p)) if p.path.get_ident().is_some() => {
            return Ok(named_dim(p.path.get_ident().unwrap().to_string(), items));
        }
        other => {
            return Err(syn::Error::new(
                other.span(),
                "an array dimension must be a number or a const generic parameter",
            ))
        }
    };
    let expr = match expr {
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => e,
            _ => expr,
        },
        e => e,
    };
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => Ok(Dim::Lit(i.base10_parse()?)),
        syn::Expr::Path(p) if p.path.get_ident().is_some() => {
            Ok(named_dim(p.path.get_ident().unwrap().to_string(), items))
        }
        other => Err(syn::Error::new(
            other.span(),
            "an array dimension must be a number or a const generic parameter; \
             arithmetic on dimensions (`{N * 2}`) is not available on stable Rust",
        )),
    }
}

/// Reads a parameter or result type outside a `#[jax::jit] mod`.
#[cfg(test)]
fn type_spec(ty: &syn::Type) -> syn::Result<TypeSpec> {
    type_spec_in(ty, &Items::default())
}

/// Reads a type that may name the structs of a `#[jax::jit] mod`.
pub(crate) fn type_spec_in(ty: &syn::Type, items: &Items) -> syn::Result<TypeSpec> {
    if let Some(state) = crate::frontend::trace::optim::state_type_spec(ty, items) {
        return state;
    }
    if let syn::Type::Path(p) = ty {
        let last = p.path.segments.last().unwrap();
        let name = if last.ident == "Self" {
            None
        } else {
            Some(last.ident.to_string())
        };
        if let Some(fields) = name.as_ref().and_then(|n| items.structs.get(n)) {
            let fields = fields
                .iter()
                .map(|(f, t)| Ok((f.to_string(), type_spec_in(t, items)?)))
                .collect::<syn::Result<_>>()?;
            return Ok(TypeSpec::Struct {
                name: name.unwrap(),
                fields,
            });
        }
    }
    type_spec_plain(ty, items)
}

fn type_spec_plain(ty: &syn::Type, items: &Items) -> syn::Result<TypeSpec> {
    match ty {
        syn::Type::Reference(r) => {
            if r.mutability.is_some() {
                return Err(syn::Error::new_spanned(
                    r,
                    "arrays are immutable in #[jax::jit]: take `Array<..>` or `&Array<..>`, and return updated arrays (`x.at(i).set(v)`)",
                ));
            }
            match type_spec_in(&r.elem, items)? {
                TypeSpec::Array { aval, .. } => Ok(TypeSpec::Array { aval, by_ref: true }),
                TypeSpec::Tuple(_) => Err(syn::Error::new(r.span(), "take tuples by value")),
                other => Ok(other),
            }
        }
        syn::Type::Paren(p) => type_spec_in(&p.elem, items),
        // A type passed through a `macro_rules!` `$t:ty` arrives grouped.
        syn::Type::Group(g) => type_spec_in(&g.elem, items),
        syn::Type::Tuple(t) => Ok(TypeSpec::Tuple(
            t.elems
                .iter()
                .map(|t| type_spec_in(t, items))
                .collect::<syn::Result<_>>()?,
        )),
        syn::Type::Path(p) => {
            if let Some(d) = element_dtype(ty) {
                return Ok(TypeSpec::Scalar(d));
            }
            let last = p.path.segments.last().unwrap();
            if last.ident == "Key" && last.arguments.is_empty() {
                return Ok(TypeSpec::Key);
            }
            if last.ident != "Array" {
                return Err(syn::Error::new(
                    ty.span(),
                    format!(
                        "#[jax::jit] functions take and return `Array<T, dims..>`, Rust scalars (`f32`, `i32`, `bool`) and tuples of them, not `{}`",
                        quote::quote!(#ty)
                    ),
                ));
            }
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return Err(syn::Error::new(ty.span(), "write the element type: `Array<f32, 3, 4>`"));
            };
            let mut it = args.args.iter();
            let elem = match it.next() {
                Some(syn::GenericArgument::Type(t)) => element_dtype(t).ok_or_else(|| {
                    if is_complex_type(t) {
                        syn::Error::new(t.span(), COMPLEX_NOT_IN_JIT)
                    } else {
                        syn::Error::new(t.span(), "the element type must be bool, u8..u64, i8..i64, bf16, f16, f32, f64, Complex<f32> or Complex<f64>")
                    }
                })?,
                _ => return Err(syn::Error::new(ty.span(), "write the element type first: `Array<f32, 3, 4>`")),
            };
            let shape = it.map(|a| dim(a, items)).collect::<syn::Result<Vec<_>>>()?;
            if shape.len() > 6 {
                return Err(syn::Error::new(ty.span(), "arrays have at most 6 dimensions"));
            }
            Ok(TypeSpec::Array {
                aval: Aval {
                    dtype: elem,
                    shape,
                    weak: false,
                },
                by_ref: false,
            })
        }
        // A fixed-size Rust array of pytrees, `[Layer; 3]`: each item a subtree.
        syn::Type::Array(a) => {
            // A number, a const of the mod, or a size an inlined call bound.
            let named = match &a.len {
                syn::Expr::Path(p) => p.path.get_ident().map(|id| named_dim(id.to_string(), items)),
                e => const_usize(e, items, 0).map(Dim::Lit),
            };
            let n = match (&a.len, named) {
                (_, Some(Dim::Lit(n))) => n,
                (syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }), _) => i.base10_parse::<usize>()?,
                (other, _) => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "the length of a Rust array of pytrees must be a number (`[Layer; 3]`); for a batch of arrays write `Array<T, N, ..>`",
                    ))
                }
            };
            let item = type_spec_in(&a.elem, items)?;
            Ok(TypeSpec::List(vec![item; n]))
        }
        syn::Type::ImplTrait(t) => Err(syn::Error::new_spanned(
            t,
            "`impl Trait` parameters are not supported in #[jax::jit]: the function is compiled for concrete types; write `Array<T, dims..>` (generic over `const N: usize` dims if needed)",
        )),
        other => Err(syn::Error::new_spanned(
            other,
            "#[jax::jit] functions take and return `Array<T, dims..>`, Rust scalars and tuples of them",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> syn::Result<TypeSpec> {
        type_spec(&syn::parse_str(s).unwrap())
    }

    #[test]
    fn array_types() {
        let TypeSpec::Array { aval, by_ref } = spec("&Array<f32, 3, N>").unwrap() else {
            panic!()
        };
        assert!(by_ref);
        assert_eq!(aval.to_string(), "f32[3,N]");
        assert_eq!(spec("f64").unwrap(), TypeSpec::Scalar(DType::F64));
        assert!(spec("Vec<f32>").is_err());
        assert!(spec("&mut Array<f32, 3>").is_err());
        assert!(spec("Array<f32, {N * 2}>").is_err());
        assert_eq!(
            spec("jax::Array<i32, { 4 }>")
                .unwrap()
                .aval()
                .unwrap()
                .to_string(),
            "i32[4]"
        );
    }
}
