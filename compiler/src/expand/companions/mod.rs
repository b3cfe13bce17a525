//! The derivative functions of a jitted function's companion module:
//! `f::jvp`, `f::vjp`, `f::grad`, `f::value_and_grad`, `f::jacfwd`,
//! `f::jacrev`, `f::hessian` and `f::__check_grads`, each compiled from the
//! jaxpr `ad` derives, so a derivative is fused loops like `f` itself. They
//! are `#[inline]`: one never called costs no code generation.
//!
//! This file decides which companions a function gets ([`derivatives`])
//! and holds what they share: the parameters as the companion module
//! spells them, the leaves of pytree arguments, the generics, and
//! [`Differentiated::lazy_error`] for a derivative that cannot exist. Each
//! derivative kind is generated in its own file.

mod check_grads;
mod grad;
mod jacobian;
mod jvp;
mod vjp;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::frontend::parse::Signature;
use crate::frontend::trace::types::{Items, TypeSpec};
use crate::ir::rust_type;
use crate::ir::{Dim, Jaxpr};
use crate::transform::ad::Wrt;
use jacobian::Jacobian;

/// What `#[jax::jit(..)]` says about derivatives.
#[derive(Default)]
pub(super) struct Options {
    /// `argnums = 1` or `argnums = (0, 2)`: the arguments `grad` and
    /// `value_and_grad` differentiate (a tuple gives a tuple of gradients).
    argnums: Option<(Vec<usize>, bool)>,
    /// `has_aux`: the function returns `(scalar, aux)`; `grad` gives
    /// `(gradient, aux)`.
    has_aux: bool,
    /// `import = "model.jaxpr"`: the program is read from that file, not
    /// traced from a body (`frontend/import.rs`).
    pub(super) import: Option<syn::LitStr>,
}

impl Options {
    /// Reads the attribute's arguments: `argnums = N`, `argnums = (N, ..)`,
    /// `has_aux`.
    pub(super) fn parse(attr: TokenStream) -> syn::Result<Options> {
        let mut o = Options::default();
        if attr.is_empty() {
            return Ok(o);
        }
        let parser = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
        let metas = syn::parse::Parser::parse2(parser, attr)?;
        for m in metas {
            match &m {
                syn::Meta::Path(p) if p.is_ident("has_aux") => o.has_aux = true,
                syn::Meta::NameValue(nv) if nv.path.is_ident("import") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => o.import = Some(s.clone()),
                    other => {
                        return Err(syn::Error::new_spanned(
                            other,
                            "write the jaxpr file's path: `import = \"models/mlp.jaxpr\"`",
                        ))
                    }
                },
                syn::Meta::NameValue(nv) if nv.path.is_ident("has_aux") => {
                    let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Bool(b),
                        ..
                    }) = &nv.value
                    else {
                        return Err(syn::Error::new_spanned(
                            &nv.value,
                            "write `has_aux = true` or `has_aux`",
                        ));
                    };
                    o.has_aux = b.value;
                }
                syn::Meta::NameValue(nv) if nv.path.is_ident("argnums") => {
                    let index = |e: &syn::Expr| -> syn::Result<usize> {
                        match e {
                            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse(),
                            other => Err(syn::Error::new_spanned(other, "argnums are argument positions: `argnums = 1` or `argnums = (0, 1)`")),
                        }
                    };
                    o.argnums = Some(match &nv.value {
                        syn::Expr::Tuple(t) => {
                            (t.elems.iter().map(index).collect::<syn::Result<_>>()?, true)
                        }
                        syn::Expr::Paren(p) => (vec![index(&p.expr)?], false),
                        e => (vec![index(e)?], false),
                    });
                }
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "#[jax::jit] takes `argnums = ..`, `has_aux` and `import = \"file.jaxpr\"`",
                    ))
                }
            }
        }
        Ok(o)
    }
}

/// A parameter of the differentiated function.
struct Param {
    name: syn::Ident,
    /// Its type, spelled from its abstract value (`&::jax::Array<f32, 3>`):
    /// the companion module cannot name the user's imports or local items.
    ty: syn::Type,
    /// Owned (`::jax::Array<f32, 3>`): what its derivative is.
    owned: syn::Type,
    /// Whether the function takes it by reference.
    by_ref: bool,
    /// What it is: an array, a scalar, or a struct of them.
    spec: TypeSpec,
}

/// The Rust type of an array, scalar or struct spec as the companion
/// module names it: fully qualified, or the struct as its sibling.
fn spelled(spec: &TypeSpec, items: &Items) -> syn::Type {
    match spec {
        TypeSpec::Scalar(d) => {
            let t = rust_type(*d);
            syn::parse_quote!(#t)
        }
        TypeSpec::Array { aval, .. } => {
            let elem = rust_type(aval.dtype);
            let dims: Vec<TokenStream> = aval
                .shape
                .iter()
                .map(|d| match d {
                    Dim::Lit(n) => {
                        let n = proc_macro2::Literal::usize_unsuffixed(*n);
                        quote!(#n)
                    }
                    Dim::Sym(s) => {
                        let id = format_ident!("{}", s);
                        quote!(#id)
                    }
                })
                .collect();
            syn::parse_quote!(::jax::Array<#elem #(, #dims)*>)
        }
        // A pytree of the `#[jax::jit] mod`: the companion module is its sibling.
        // A struct defined outside, as the signature names it (the companion
        // module sees the parent's names through `use super::*`).
        TypeSpec::Struct { name, .. } if items.paths.contains_key(name) => {
            let p = &items.paths[name];
            syn::parse_quote!(#p)
        }
        TypeSpec::Struct { name, .. } => {
            let id = format_ident!("{}", name);
            syn::parse_quote!(super::#id)
        }
        TypeSpec::Tuple(list) => {
            let items = list.iter().map(|s| spelled(s, items));
            syn::parse_quote!((#(#items,)*))
        }
        TypeSpec::List(list) => {
            let item = spelled(&list[0], items);
            let n = list.len();
            syn::parse_quote!([#item; #n])
        }
        _ => unreachable!("derivatives are generated for arrays, scalars and structs"),
    }
}

/// The array and scalar leaves of a value (struct fields in order), as
/// places below `expr`, with their specs.
fn leaves(spec: &TypeSpec, expr: TokenStream, out: &mut Vec<(TokenStream, TypeSpec)>) {
    match spec {
        TypeSpec::Struct { fields, .. } => {
            for (f, s) in fields {
                let f = format_ident!("{}", f);
                leaves(s, quote!(#expr.#f), out);
            }
        }
        TypeSpec::Tuple(items) => {
            for (k, s) in items.iter().enumerate() {
                let k = syn::Index::from(k);
                leaves(s, quote!(#expr.#k), out);
            }
        }
        TypeSpec::List(items) => {
            for (k, s) in items.iter().enumerate() {
                leaves(s, quote!(#expr[#k]), out);
            }
        }
        leaf => out.push((expr, leaf.clone())),
    }
}

/// How many array and scalar leaves a value has (its jaxpr variables).
fn leaf_count(spec: &TypeSpec) -> usize {
    let mut v = Vec::new();
    leaves(spec, quote!(x), &mut v);
    v.len()
}

/// Whether every leaf is an array or scalar (no keys).
fn plain_leaves(spec: &TypeSpec) -> bool {
    match spec {
        // `jax::optim` states (named `optim::..`) hold an integer count: no derivatives.
        TypeSpec::Struct { name, .. } if name.contains("::") => false,
        TypeSpec::Struct { fields, .. } => fields.iter().all(|(_, s)| plain_leaves(s)),
        TypeSpec::List(items) => !items.is_empty() && items.iter().all(plain_leaves),
        TypeSpec::Tuple(items) => !items.is_empty() && items.iter().all(plain_leaves),
        TypeSpec::Array { .. } | TypeSpec::Scalar(_) => true,
        _ => false,
    }
}

/// Whether a spec is one array or scalar (not a struct, tuple or key).
fn is_array_or_scalar(spec: &TypeSpec) -> bool {
    matches!(spec, TypeSpec::Array { .. } | TypeSpec::Scalar(_))
}

/// Symbolic dimensions of a spec.
fn symbols(spec: &TypeSpec, out: &mut Vec<String>) {
    if let Some(a) = spec.aval() {
        for d in &a.shape {
            if let Dim::Sym(s) = d {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
        }
    }
}

/// Whether every leaf is a float or complex (what `grad` differentiates).
fn is_inexact(spec: &TypeSpec) -> bool {
    match spec {
        TypeSpec::Struct { fields, .. } => fields.iter().all(|(_, s)| is_inexact(s)),
        TypeSpec::List(items) | TypeSpec::Tuple(items) => items.iter().all(is_inexact),
        s => s.aval().is_some_and(|a| a.dtype.is_inexact()),
    }
}

/// Whether every leaf is a float (what `check_grads` accepts).
fn is_float(spec: &TypeSpec) -> bool {
    match spec {
        TypeSpec::Struct { fields, .. } => fields.iter().all(|(_, s)| is_float(s)),
        TypeSpec::List(items) | TypeSpec::Tuple(items) => items.iter().all(is_float),
        s => s.aval().is_some_and(|a| a.dtype.is_float()),
    }
}

/// The companion module's derivative functions for `fsig` (traced as
/// `sig` and `program`): nothing where the arguments or the result are not
/// arrays, scalars or structs of them, a `lazy_error` where a derivative
/// cannot exist. `items` are those of the enclosing `#[jax::jit] mod` (its
/// structs are pytrees).
pub(super) fn derivatives(
    fsig: &syn::Signature,
    sig: &Signature,
    program: &Jaxpr,
    options: &Options,
    items: &Items,
) -> TokenStream {
    let mut params = Vec::new();
    for (arg, (name, spec)) in fsig.inputs.iter().zip(&sig.params) {
        let syn::FnArg::Typed(pt) = arg else {
            return quote!();
        };
        // Tuples inside structs are pytrees here; a tuple parameter keeps
        // having no derivatives (`f::jvp` takes a tuple of the arguments).
        if !plain_leaves(spec) || matches!(spec, TypeSpec::Tuple(_)) {
            return quote!();
        }
        let by_ref = matches!(&*pt.ty, syn::Type::Reference(_));
        let owned = spelled(spec, items);
        let ty = if by_ref {
            syn::parse_quote!(&#owned)
        } else {
            owned.clone()
        };
        params.push(Param {
            name: name.clone(),
            ty,
            owned,
            by_ref,
            spec: spec.clone(),
        });
    }
    // With `has_aux` the function returns `(output, aux)`. An output (and an
    // aux) is an array, a scalar, or a pytree of them (tuples, structs,
    // `[T; N]`), as JAX's.
    let (ret, aux) = match (&sig.ret, options.has_aux) {
        (TypeSpec::Tuple(items), true) if items.len() == 2 && items.iter().all(plain_leaves) => {
            (items[0].clone(), Some(items[1].clone()))
        }
        (_, true) => {
            let msg =
                "has_aux: the function must return a pair `(output, aux)` of arrays, scalars or pytrees of them";
            return quote!(::core::compile_error!(#msg););
        }
        (r, false) if plain_leaves(r) => (r.clone(), None),
        (r, false) => return no_tangent_output(fsig, params.len(), r),
    };
    // Dimensions that are not the function's own const generics (consts of
    // the enclosing scope, possibly local to a block the companion module
    // cannot see) become const generics of the derived functions, inferred
    // from the arguments.
    let own: Vec<String> = fsig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut free_dims = Vec::new();
    for p in &params {
        symbols(&p.spec, &mut free_dims);
    }
    symbols(&ret, &mut free_dims);
    if let Some(a) = &aux {
        symbols(a, &mut free_dims);
    }
    free_dims.retain(|s| !own.contains(s));
    let f = Differentiated {
        fsig,
        params,
        ret_ty: spelled(&ret, items),
        ret,
        aux,
        program,
        free_dims,
        argnums: options.argnums.clone().unwrap_or((vec![0], false)),
        items,
    };
    let mut out = TokenStream::new();
    // The output's leaves: all integer or bool, no derivative at all; some,
    // tangents of zeros (JAX's float0) beside the float ones.
    let dtypes = f.output_dtypes();
    if let Some(&dtype) = dtypes.iter().find(|d| !d.is_inexact()) {
        if dtypes.iter().all(|d| !d.is_inexact()) {
            return f.non_float_output(dtype);
        }
    }
    if let Some(&dtype) = dtypes.iter().find(|d| d.is_inexact() && !d.is_float()) {
        return f.complex_output(dtype);
    }
    out.extend(f.jvp());
    out.extend(f.vjp());
    if f.aux.is_none() {
        out.extend(f.jacobian(Jacobian::Forward));
        out.extend(f.jacobian(Jacobian::Reverse));
        out.extend(f.jacobian(Jacobian::Hessian));
        out.extend(f.check_grads());
    } else {
        out.extend(f.aux_without_jacobians());
    }
    out.extend(f.grad());
    out.extend(f.value_and_grad());
    out
}

/// A companion `name` of `f` that exists (so calls resolve) but whose every
/// call is a compile error saying `msg`: its first argument's type must
/// implement a trait nothing implements, whose diagnostic is `msg`.
fn lazy_error(f: &syn::Ident, name: &str, arity: usize, msg: &str) -> TokenStream {
    let c = format_ident!("{}", name);
    let tr = format_ident!("__{}_error", name);
    let tys: Vec<syn::Ident> = (0..arity).map(|k| format_ident!("__A{}", k)).collect();
    let first = &tys[0];
    let rest = &tys[1..];
    let label = format!("`{f}::{name}` cannot be used");
    quote! {
        #[doc(hidden)]
        #[diagnostic::on_unimplemented(message = #msg, label = #label)]
        pub trait #tr {}
        #[doc = #msg]
        #[inline]
        #[allow(dead_code, unused_variables, clippy::all)]
        pub fn #c<#first: #tr, #(#rest),*>(#(_: #tys),*) {
            ::core::unreachable!()
        }
    }
}

/// What in an output has no tangent (a key, an optimizer state's integer
/// count, nothing at all), described for an error.
fn without_tangent(spec: &TypeSpec) -> Option<String> {
    match spec {
        TypeSpec::Key => Some("a `jax::random::Key`".into()),
        TypeSpec::Struct { name, .. } if name.contains("::") => Some(format!(
            "the optimizer state `{name}`, whose step count is an integer"
        )),
        TypeSpec::Tuple(items) if items.is_empty() => Some("nothing (`()`)".into()),
        TypeSpec::Struct { fields, .. } => fields.iter().find_map(|(_, s)| without_tangent(s)),
        TypeSpec::Tuple(items) | TypeSpec::List(items) => items.iter().find_map(without_tangent),
        TypeSpec::Array { .. } | TypeSpec::Scalar(_) => None,
    }
}

/// The companions of a function of `n` differentiable parameters whose
/// output holds something without a tangent (a key, an optimizer state):
/// each derivative a compile error at its use saying so.
fn no_tangent_output(fsig: &syn::Signature, n: usize, ret: &TypeSpec) -> TokenStream {
    let f = &fsig.ident;
    let what = without_tangent(ret).unwrap_or_else(|| "a value that is not an array".into());
    let msg = |kind: &str| {
        format!("the output of `{f}` holds {what}, which has no tangent: {kind} is generated for functions returning arrays, scalars and pytrees of them (tuples, structs, `[T; N]`); differentiate a function returning only those")
    };
    let n = n.max(1);
    let mut out = TokenStream::new();
    for (name, arity) in [
        ("jvp", 2),
        ("vjp", n),
        ("jacfwd", n),
        ("jacrev", n),
        ("hessian", n),
        ("__check_grads", n + 1),
        ("grad", n),
        ("value_and_grad", n),
    ] {
        let kind = name.trim_start_matches("__");
        out.extend(lazy_error(f, name, arity, &msg(kind)));
    }
    out
}

/// The function whose companions are generated: its parameters and output
/// as the companion module spells them, and the jaxpr `ad` transforms.
struct Differentiated<'a> {
    fsig: &'a syn::Signature,
    params: Vec<Param>,
    /// The differentiated output (the first of the pair, with `has_aux`).
    ret_ty: syn::Type,
    ret: TypeSpec,
    /// `has_aux`'s second output.
    aux: Option<TypeSpec>,
    /// The traced program (with a `#[custom_jvp]`/`#[custom_vjp]` rule, the
    /// call of the rule): what the derivatives are derived from.
    program: &'a Jaxpr,
    /// Extra const generic dimensions (see `derivatives`).
    free_dims: Vec<String>,
    /// The arguments `grad` differentiates, and whether it returns a tuple.
    argnums: (Vec<usize>, bool),
    /// The enclosing `#[jax::jit] mod`'s items (its structs are pytrees).
    items: &'a Items,
}

impl Differentiated<'_> {
    /// The dtypes of the output's leaves, in order.
    fn output_dtypes(&self) -> Vec<jax_dtypes::DType> {
        let mut out = Vec::new();
        leaves(&self.ret, quote!(), &mut out);
        out.iter()
            .filter_map(|(_, s)| s.aval().map(|a| a.dtype))
            .collect()
    }

    /// The output's type as JAX prints a pytree of abstract values:
    /// `(f32[3], f32[])`, a struct as `Out(a=f32[3], b=f32[])`.
    fn ret_text(&self) -> String {
        fn text(spec: &TypeSpec) -> String {
            match spec {
                TypeSpec::Tuple(items) | TypeSpec::List(items) => {
                    let (open, close) = if matches!(spec, TypeSpec::List(_)) {
                        ("[", "]")
                    } else {
                        ("(", ")")
                    };
                    let parts: Vec<String> = items.iter().map(text).collect();
                    let comma = if items.len() == 1 && open == "(" {
                        ","
                    } else {
                        ""
                    };
                    format!("{open}{}{comma}{close}", parts.join(", "))
                }
                TypeSpec::Struct { name, fields } => {
                    let parts: Vec<String> = fields
                        .iter()
                        .map(|(f, s)| format!("{f}={}", text(s)))
                        .collect();
                    format!("{name}({})", parts.join(", "))
                }
                s => s.aval().map(|a| a.to_string()).unwrap_or_default(),
            }
        }
        text(&self.ret)
    }

    /// Where derivation errors point: the function's name.
    fn span(&self) -> Span {
        self.fsig.ident.span()
    }

    /// The parameters' names, in order.
    fn param_names(&self) -> Vec<&syn::Ident> {
        self.params.iter().map(|p| &p.name).collect()
    }

    /// The parameters' types as the companion module spells them.
    fn param_types(&self) -> Vec<&syn::Type> {
        self.params.iter().map(|p| &p.ty).collect()
    }

    /// The parameters, by name, as the inputs of an emitted body.
    fn params_as_inputs(&self) -> Vec<(TokenStream, TypeSpec)> {
        self.params
            .iter()
            .map(|p| {
                let name = &p.name;
                (quote!(#name), p.spec.clone())
            })
            .collect()
    }

    /// How many jaxpr inputs (leaves) each parameter is.
    fn leaf_counts(&self) -> Vec<usize> {
        self.params.iter().map(|p| leaf_count(&p.spec)).collect()
    }

    /// Per-parameter choices, repeated for each parameter's leaves.
    fn per_leaf(&self, per_param: &[bool]) -> Wrt {
        Wrt {
            inputs: self
                .leaf_counts()
                .iter()
                .zip(per_param)
                .flat_map(|(&c, &w)| std::iter::repeat_n(w, c))
                .collect(),
        }
    }

    /// A function that exists (so calls resolve) but whose every call is a
    /// compile error saying `msg`: its first argument's type must implement
    /// a trait nothing implements, whose diagnostic is `msg`.
    fn lazy_error(&self, name: &str, arity: usize, msg: &str) -> TokenStream {
        lazy_error(&self.fsig.ident, name, arity, msg)
    }

    /// The companions of a function whose output is not a float: its
    /// tangent is JAX's `float0` (no information), so each derivative is a
    /// compile error at its use, with JAX's message where JAX has one.
    fn non_float_output(&self, dtype: jax_dtypes::DType) -> TokenStream {
        let n = self.params.len().max(1);
        let name = dtype.name();
        let f = &self.fsig.ident;
        let (returns, is) = if self.ret.aval().is_some() {
            (
                name.to_string(),
                format!("the output of `{f}` is {name}, whose tangent is JAX's float0 (it carries"),
            )
        } else {
            let ret = self.ret_text();
            (
                ret.clone(),
                format!(
                    "the outputs of `{f}` are {ret}, whose tangents are JAX's float0 (they carry"
                ),
            )
        };
        let reverse = |kind: &str| {
            format!("{kind} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got {name}. `{f}` returns {returns}; differentiate a float function of its inputs instead")
        };
        let forward = |kind: &str| {
            format!("{is} no derivative information): {kind} is generated for float outputs only")
        };
        let mut out = TokenStream::new();
        out.extend(self.lazy_error("jvp", 2, &forward("jvp")));
        out.extend(self.lazy_error("vjp", n, &forward("vjp")));
        if self.aux.is_none() {
            out.extend(self.lazy_error("jacfwd", n, &forward("jacfwd")));
            out.extend(self.lazy_error("jacrev", n, &reverse("jacrev")));
            out.extend(self.lazy_error("hessian", n, &reverse("hessian")));
            out.extend(self.lazy_error("__check_grads", n + 1, &forward("check_grads")));
        } else {
            out.extend(self.aux_without_jacobians());
        }
        out.extend(self.lazy_error("grad", n, &reverse("grad")));
        out.extend(self.lazy_error("value_and_grad", n, &reverse("value_and_grad")));
        out
    }

    /// A `has_aux` function's Jacobians, Hessian and `check_grads`: not
    /// generated (JAX's would return `(jacobian, aux)`), each a compile error
    /// at its use saying what to call instead.
    fn aux_without_jacobians(&self) -> TokenStream {
        let n = self.params.len().max(1);
        let f = &self.fsig.ident;
        let msg = |kind: &str| {
            format!("`{f}` has `has_aux`, and `{f}::{kind}` is not generated for it: its companions are `grad`, `value_and_grad`, `jvp` (`(output, tangent, aux)`) and `vjp` (`(output, pullback, aux)`); for the {kind}, remove `has_aux` and return the output alone")
        };
        let mut out = TokenStream::new();
        for (name, arity) in [("jacfwd", n), ("jacrev", n), ("hessian", n)] {
            out.extend(self.lazy_error(name, arity, &msg(name)));
        }
        out.extend(self.lazy_error("__check_grads", n + 1, &msg("check_grads")));
        out
    }

    /// A complex output: forward and reverse mode as usual, and JAX's error
    /// for what needs a real output (grad, jacrev, hessian, check_grads).
    fn complex_output(&self, dtype: jax_dtypes::DType) -> TokenStream {
        let n = self.params.len().max(1);
        let name = dtype.name();
        let f = &self.fsig.ident;
        let reverse = |kind: &str| {
            format!("{kind} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got {name}. For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions involving complex outputs, use jax.vjp directly. `{f}` returns {name}: use `{f}::vjp`, or differentiate a real function of it (`jnp::abs`, `jnp::real`)")
        };
        let mut out = TokenStream::new();
        out.extend(self.jvp());
        out.extend(self.vjp());
        if self.aux.is_some() {
            out.extend(self.aux_without_jacobians());
        } else {
            let msg = format!("`{f}::jacfwd` of a complex output ({name}) is not supported yet: use `{f}::jvp` once per input direction");
            out.extend(self.lazy_error("jacfwd", n, &msg));
            out.extend(self.lazy_error("jacrev", n, &reverse("jacrev")));
            out.extend(self.lazy_error("hessian", n, &reverse("hessian")));
            out.extend(self.lazy_error("__check_grads", n + 1, &reverse("check_grads")));
        }
        out.extend(self.lazy_error("grad", n, &reverse("grad")));
        out.extend(self.lazy_error("value_and_grad", n, &reverse("value_and_grad")));
        out
    }

    /// A companion's generics and where clause: the function's, with the
    /// free dimensions as const generics after them.
    fn generics(&self) -> (TokenStream, TokenStream) {
        let g = &self.fsig.generics;
        let mut params: Vec<TokenStream> = g.params.iter().map(|p| quote!(#p)).collect();
        for s in &self.free_dims {
            let id = format_ident!("{}", s);
            params.push(quote!(const #id: usize));
        }
        let wh = &g.where_clause;
        (
            if params.is_empty() {
                quote!()
            } else {
                quote!(<#(#params),*>)
            },
            quote!(#wh),
        )
    }

    /// Explicit generic arguments (the function's type and const generics,
    /// then the free dimensions: `::<T, N>`) for one companion's calls of
    /// another, so calls from a closure need no inference.
    fn turbofish(&self) -> TokenStream {
        let names: Vec<TokenStream> = self
            .fsig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Const(c) => {
                    let id = &c.ident;
                    Some(quote!(#id))
                }
                syn::GenericParam::Type(t) => {
                    let id = &t.ident;
                    Some(quote!(#id))
                }
                syn::GenericParam::Lifetime(_) => None,
            })
            .chain(self.free_dims.iter().map(|s| {
                let id = format_ident!("{}", s);
                quote!(#id)
            }))
            .collect();
        if names.is_empty() {
            quote!()
        } else {
            quote!(::<#(#names),*>)
        }
    }
}
