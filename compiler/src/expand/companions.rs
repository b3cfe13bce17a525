//! The derivative functions of a jitted function's companion module:
//! `f::jvp`, `f::vjp`, `f::grad` and `f::value_and_grad`, each compiled from
//! the jaxpr `ad` derives, so a derivative is fused loops like `f` itself.
//! They are `#[inline]`: one never called costs no code generation.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::backend::body::emit_body;
use crate::frontend::parse::Signature;
use crate::frontend::types::{Items, TypeSpec};
use crate::ir::{Dim, Jaxpr};
use crate::transform::ad::{self, Seed, Wrt};
use crate::X64;

/// What `#[jax::jit(..)]` says about derivatives.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `argnums = 1` or `argnums = (0, 2)`: the arguments `grad` and
    /// `value_and_grad` differentiate (a tuple gives a tuple of gradients).
    pub argnums: Option<(Vec<usize>, bool)>,
    /// `has_aux`: the function returns `(scalar, aux)`; `grad` gives
    /// `(gradient, aux)`.
    pub has_aux: bool,
}

impl Options {
    /// Reads the attribute's arguments: `argnums = N`, `argnums = (N, ..)`,
    /// `has_aux`.
    pub fn parse(attr: TokenStream) -> syn::Result<Options> {
        let mut o = Options::default();
        if attr.is_empty() {
            return Ok(o);
        }
        let parser = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
        let metas = syn::parse::Parser::parse2(parser, attr)?;
        for m in metas {
            match &m {
                syn::Meta::Path(p) if p.is_ident("has_aux") => o.has_aux = true,
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
                        "#[jax::jit] takes `argnums = ..` and `has_aux`",
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
    by_ref: bool,
    spec: TypeSpec,
}

/// The Rust type of an array or scalar spec, fully qualified.
fn spelled(spec: &TypeSpec) -> syn::Type {
    match spec {
        TypeSpec::Scalar(d) => {
            let t = crate::frontend::types::rust_type(*d);
            syn::parse_quote!(#t)
        }
        TypeSpec::Array { aval, .. } => {
            let elem = crate::frontend::types::rust_type(aval.dtype);
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
        TypeSpec::Struct { name, .. } => {
            let id = format_ident!("{}", name);
            syn::parse_quote!(super::#id)
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
        leaf => out.push((expr, leaf.clone())),
    }
}

/// Whether every leaf is an array or scalar (no keys).
fn plain_leaves(spec: &TypeSpec) -> bool {
    match spec {
        TypeSpec::Struct { fields, .. } => fields.iter().all(|(_, s)| plain_leaves(s)),
        TypeSpec::Array { .. } | TypeSpec::Scalar(_) => true,
        _ => false,
    }
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

fn is_float(spec: &TypeSpec) -> bool {
    match spec {
        TypeSpec::Struct { fields, .. } => fields.iter().all(|(_, s)| is_float(s)),
        s => s.aval().is_some_and(|a| a.dtype.is_float()),
    }
}

/// The companion module's derivative functions for `fsig`. `items` are
/// those of the enclosing `#[jax::jit] mod` (its structs are pytrees).
pub fn derivatives(
    fsig: &syn::Signature,
    sig: &Signature,
    j: &Jaxpr,
    options: &Options,
    items: &Items,
) -> TokenStream {
    let mut params = Vec::new();
    for (arg, (name, spec)) in fsig.inputs.iter().zip(&sig.params) {
        let syn::FnArg::Typed(pt) = arg else {
            return quote!();
        };
        if !plain_leaves(spec) {
            return quote!();
        }
        let by_ref = matches!(&*pt.ty, syn::Type::Reference(_));
        let owned = spelled(spec);
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
    let leaf = |t: &TypeSpec| matches!(t, TypeSpec::Array { .. } | TypeSpec::Scalar(_));
    // With `has_aux` the function returns `(scalar, aux)`.
    let (ret, aux) = match (&sig.ret, options.has_aux) {
        (TypeSpec::Tuple(items), true) if items.len() == 2 && items.iter().all(leaf) => {
            (items[0].clone(), Some(items[1].clone()))
        }
        (_, true) => {
            let msg =
                "has_aux: the function must return a pair `(output, aux)` of arrays or scalars";
            return quote!(::core::compile_error!(#msg););
        }
        (r, false) if leaf(r) => (r.clone(), None),
        _ => return quote!(),
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
    let mut free = Vec::new();
    for p in &params {
        symbols(&p.spec, &mut free);
    }
    symbols(&ret, &mut free);
    if let Some(a) = &aux {
        symbols(a, &mut free);
    }
    free.retain(|s| !own.contains(s));
    let g = Gen {
        fsig,
        params,
        ret_ty: spelled(&ret),
        ret,
        aux,
        j,
        free,
        argnums: options.argnums.clone().unwrap_or((vec![0], false)),
        items,
    };
    let mut out = TokenStream::new();
    if let Some(dtype) = g.ret.aval().map(|a| a.dtype).filter(|d| !d.is_float()) {
        return g.non_float_output(dtype);
    }
    if g.aux.is_none() {
        out.extend(g.jvp());
        out.extend(g.vjp());
        out.extend(g.jacobian("jacfwd"));
        out.extend(g.jacobian("jacrev"));
        out.extend(g.jacobian("hessian"));
        out.extend(g.check_grads());
    }
    out.extend(g.grad(false));
    out.extend(g.grad(true));
    out
}

struct Gen<'a> {
    fsig: &'a syn::Signature,
    params: Vec<Param>,
    /// The differentiated output (the first of the pair, with `has_aux`).
    ret_ty: syn::Type,
    ret: TypeSpec,
    /// `has_aux`'s second output.
    aux: Option<TypeSpec>,
    j: &'a Jaxpr,
    /// Extra const generic dimensions (see `derivatives`).
    free: Vec<String>,
    /// The arguments `grad` differentiates, and whether it returns a tuple.
    argnums: (Vec<usize>, bool),
    items: &'a Items,
}

impl Gen<'_> {
    fn span(&self) -> Span {
        self.fsig.ident.span()
    }

    /// How many jaxpr inputs (leaves) each parameter is.
    fn leaf_counts(&self) -> Vec<usize> {
        self.params
            .iter()
            .map(|p| {
                let mut v = Vec::new();
                leaves(&p.spec, quote!(x), &mut v);
                v.len()
            })
            .collect()
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
        let f = format_ident!("{}", name);
        let tr = format_ident!("__{}_error", name);
        let tys: Vec<syn::Ident> = (0..arity).map(|k| format_ident!("__A{}", k)).collect();
        let first = &tys[0];
        let rest = &tys[1..];
        let label = format!("`{}::{name}` cannot be used", self.fsig.ident);
        quote! {
            #[doc(hidden)]
            #[diagnostic::on_unimplemented(message = #msg, label = #label)]
            pub trait #tr {}
            #[doc = #msg]
            #[inline]
            #[allow(dead_code, unused_variables)]
            pub fn #f<#first: #tr, #(#rest),*>(#(_: #tys),*) {
                ::core::unreachable!()
            }
        }
    }

    /// The companions of a function whose output is not a float: its
    /// tangent is JAX's `float0` (no information), so each derivative is a
    /// compile error at its use, with JAX's message where JAX has one.
    fn non_float_output(&self, dtype: jax_dtypes::DType) -> TokenStream {
        let n = self.params.len().max(1);
        let name = dtype.name();
        let f = &self.fsig.ident;
        let reverse = |kind: &str| {
            format!("{kind} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got {name}. `{f}` returns {name}; differentiate a float function of its inputs instead")
        };
        let forward = |kind: &str| {
            format!("the output of `{f}` is {name}, whose tangent is JAX's float0 (it carries no derivative information): {kind} is generated for float outputs only")
        };
        let mut out = TokenStream::new();
        if self.aux.is_none() {
            out.extend(self.lazy_error("jvp", 2, &forward("jvp")));
            out.extend(self.lazy_error("vjp", n, &forward("vjp")));
            out.extend(self.lazy_error("jacfwd", n, &forward("jacfwd")));
            out.extend(self.lazy_error("jacrev", n, &reverse("jacrev")));
            out.extend(self.lazy_error("hessian", n, &reverse("hessian")));
            out.extend(self.lazy_error("__check_grads", n + 1, &forward("check_grads")));
        }
        out.extend(self.lazy_error("grad", n, &reverse("grad")));
        out.extend(self.lazy_error("value_and_grad", n, &reverse("value_and_grad")));
        out
    }

    fn generics(&self) -> (TokenStream, TokenStream) {
        let g = &self.fsig.generics;
        let mut params: Vec<TokenStream> = g.params.iter().map(|p| quote!(#p)).collect();
        for s in &self.free {
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

    /// `f::jvp((a, b), (ta, tb)) -> (R, R)`: the output and its tangent.
    fn jvp(&self) -> TokenStream {
        let n = self.params.len();
        let wrt = self.per_leaf(&vec![true; n]);
        let jaxpr = match ad::jvp(self.j, &wrt, X64, self.span()) {
            Ok(j) => j,
            Err(e) => return self.lazy_error("jvp", 2, &e.to_string()),
        };
        let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
        let mut inputs: Vec<(TokenStream, TypeSpec)> = Vec::new();
        for (k, p) in self.params.iter().enumerate() {
            let i = syn::Index::from(k);
            inputs.push((quote!(__primals.#i), p.spec.clone()));
        }
        for (k, p) in self.params.iter().enumerate() {
            let i = syn::Index::from(k);
            inputs.push((quote!(__tangents.#i), p.spec.clone()));
        }
        let r = &self.ret_ty;
        let ret_ty: syn::Type = syn::parse_quote!((#r, #r));
        let ret = TypeSpec::Tuple(vec![self.ret.clone(), self.ret.clone()]);
        let body = match emit_body(jaxpr, &inputs, &ret_ty, &ret, self.items) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("jvp", 2, &e.to_string()),
        };
        let (generics, wh) = self.generics();
        quote! {
            /// Forward mode (`jax.jvp`): the output and its tangent, for
            /// tangents of the arguments (integer arguments' are ignored).
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn jvp #generics (__primals: (#(#tys,)*), __tangents: (#(#tys,)*)) -> (#r, #r) #wh {
                #body
            }
        }
    }

    /// `f::vjp(a, b) -> (R, pullback)`: the pullback maps an output
    /// cotangent to the cotangents of all arguments, as a tuple.
    fn vjp(&self) -> TokenStream {
        let n = self.params.len();
        let wrt = self.per_leaf(&vec![true; n]);
        let mut jaxpr = match ad::vjp(self.j, &wrt, Seed::Inputs, X64, self.span()) {
            Ok(j) => j,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        // The pullback returns the cotangents only.
        let n_out = self.j.outvars.len();
        jaxpr.outvars.drain(..n_out);
        let names: Vec<&syn::Ident> = self.params.iter().map(|p| &p.name).collect();
        let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
        let owned: Vec<&syn::Type> = self.params.iter().map(|p| &p.owned).collect();
        // The pullback keeps the arguments' leaves (arrays and scalars,
        // which clone cheaply), not the arguments: structs need not be Clone.
        let mut all_leaves: Vec<(TokenStream, TypeSpec)> = Vec::new();
        for p in &self.params {
            let name = &p.name;
            let place = if p.by_ref {
                quote!((*#name))
            } else {
                quote!(#name)
            };
            leaves(&p.spec, place, &mut all_leaves);
        }
        let leaf_names: Vec<syn::Ident> = (0..all_leaves.len())
            .map(|k| format_ident!("__leaf{}", k))
            .collect();
        let leaf_tys: Vec<syn::Type> = all_leaves.iter().map(|(_, s)| spelled(s)).collect();
        let mut inputs: Vec<(TokenStream, TypeSpec)> = leaf_names
            .iter()
            .zip(&all_leaves)
            .map(|(n, (_, s))| (quote!(#n), s.clone()))
            .collect();
        inputs.push((quote!(__ct), self.ret.clone()));
        let cts_ty: syn::Type = syn::parse_quote!((#(#owned,)*));
        let cts = TypeSpec::Tuple(self.params.iter().map(|p| p.spec.clone()).collect());
        let body = match emit_body(jaxpr, &inputs, &cts_ty, &cts, self.items) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        // The output, from the function's own jaxpr (the function itself may
        // be a local item the companion module cannot name).
        let primal_inputs: Vec<(TokenStream, TypeSpec)> = self
            .params
            .iter()
            .map(|p| {
                let name = &p.name;
                (quote!(#name), p.spec.clone())
            })
            .collect();
        let forward = match emit_body(
            self.j.clone(),
            &primal_inputs,
            &self.ret_ty,
            &self.ret,
            self.items,
        ) {
            Ok(b) => b,
            Err(e) => return self.lazy_error("vjp", n.max(1), &e.to_string()),
        };
        let r = &self.ret_ty;
        let (generics, wh) = self.generics();
        let turbofish = self.turbofish();
        let keep: Vec<TokenStream> = all_leaves
            .iter()
            .zip(&leaf_names)
            .zip(&leaf_tys)
            .map(
                |(((place, _), n), ty)| quote!(let #n: #ty = ::core::clone::Clone::clone(&#place);),
            )
            .collect();
        quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn __pullback #generics (#(#leaf_names: #leaf_tys,)* __ct: #r) -> (#(#owned,)*) #wh {
                #body
            }

            /// Reverse mode (`jax.vjp`): the output, and the pullback from an
            /// output cotangent to every argument's cotangent (a tuple, a
            /// 1-tuple for one argument; zeros for integer arguments). The
            /// pullback recomputes the forward pass it needs.
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn vjp #generics (#(#names: #tys),*) -> (#r, ::std::boxed::Box<dyn Fn(#r) -> (#(#owned,)*)>) #wh {
                #(#keep)*
                let __out: #r = { #forward };
                (__out, ::std::boxed::Box::new(move |__ct: #r| __pullback #turbofish (#(::core::clone::Clone::clone(&#leaf_names),)* __ct)))
            }
        }
    }

    /// Explicit const generic arguments for calls (`::<N>`), so calls from
    /// a closure need no inference.
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
            .chain(self.free.iter().map(|s| {
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

    /// `f::__check_grads(modes, args..)`, what `jax::test_util::check_grads!`
    /// calls: jvp and vjp against central differences in one random
    /// direction (see the runtime's `test_util`).
    fn check_grads(&self) -> TokenStream {
        let n = self.params.len();
        if n == 0 {
            return quote!();
        }
        let leaf = |s: &TypeSpec| matches!(s, TypeSpec::Array { .. } | TypeSpec::Scalar(_));
        if !self
            .params
            .iter()
            .all(|p| is_float(&p.spec) && leaf(&p.spec))
            || !is_float(&self.ret)
        {
            return self.lazy_error(
                "__check_grads",
                n + 1,
                "check_grads checks functions of float arrays and scalars returning one float array or scalar",
            );
        }
        // It calls `jvp` and `vjp`, either of which may not exist (a
        // custom_vjp function has no jvp; a loop has no vjp yet).
        let all = self.per_leaf(&vec![true; n]);
        if let Err(e) = ad::jvp(self.j, &all, X64, self.span())
            .and_then(|_| ad::vjp(self.j, &all, Seed::Inputs, X64, self.span()))
        {
            return self.lazy_error("__check_grads", n + 1, &e.to_string());
        }
        let names: Vec<&syn::Ident> = self.params.iter().map(|p| &p.name).collect();
        let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
        let owned: Vec<&syn::Type> = self.params.iter().map(|p| &p.owned).collect();
        let o: Vec<syn::Ident> = (0..n).map(|k| format_ident!("__o{}", k)).collect();
        let t: Vec<syn::Ident> = (0..n).map(|k| format_ident!("__t{}", k)).collect();
        let seeds: Vec<u64> = (0..n as u64).collect();
        let pass = |e: TokenStream, p: &Param| if p.by_ref { quote!(&#e) } else { e };
        let args_at = |a: f64| -> Vec<TokenStream> {
            self.params
                .iter()
                .zip(&o)
                .zip(&t)
                .map(|((p, o), t)| {
                    pass(
                        quote!(::jax::test_util::shift(&#o, &#t, #a * ::jax::test_util::EPS)),
                        p,
                    )
                })
                .collect()
        };
        let (plus, minus) = (args_at(1.0), args_at(-1.0));
        let tangents: Vec<TokenStream> = self
            .params
            .iter()
            .zip(&t)
            .map(|(p, t)| pass(quote!(::core::clone::Clone::clone(&#t)), p))
            .collect();
        let primals: Vec<TokenStream> = self
            .params
            .iter()
            .zip(&o)
            .map(|(p, o)| pass(quote!(::core::clone::Clone::clone(&#o)), p))
            .collect();
        let keep: Vec<TokenStream> = self
            .params
            .iter()
            .zip(&o)
            .map(|(p, o)| {
                let (name, ty) = (&p.name, &p.owned);
                if p.by_ref {
                    quote!(let #o: #ty = ::core::clone::Clone::clone(#name);)
                } else {
                    quote!(let #o: #ty = ::core::clone::Clone::clone(&#name);)
                }
            })
            .collect();
        let idx: Vec<syn::Index> = (0..n).map(syn::Index::from).collect();
        let r = &self.ret_ty;
        let (generics, wh) = self.generics();
        let turbofish = self.turbofish();
        quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn __check_grads #generics (__modes: &[&str], #(#names: #tys),*) #wh {
                use ::jax::test_util::Perturb as _;
                for __m in __modes {
                    ::core::assert!(*__m == "fwd" || *__m == "rev", "check_grads: unknown mode {:?}; the modes are \"fwd\" and \"rev\"", __m);
                }
                #(#keep)*
                #(let #t: #owned = ::jax::test_util::direction(&#o, #seeds);)*
                let __plus: #r = jvp #turbofish ((#(#plus,)*), (#(#tangents,)*)).0;
                let __minus: #r = jvp #turbofish ((#(#minus,)*), (#(#tangents,)*)).0;
                let __numerical: ::std::vec::Vec<f64> = __plus
                    .flat()
                    .iter()
                    .zip(__minus.flat())
                    .map(|(p, m)| (p - m) * (0.5 / ::jax::test_util::EPS))
                    .collect();
                let (__value, __tangent) = jvp #turbofish ((#(#primals,)*), (#(#tangents,)*));
                let __tol = ::jax::test_util::tolerance(__value.dtype());
                if __modes.contains(&"fwd") {
                    ::jax::test_util::assert_close("the jvp tangent", &__tangent.flat(), &__numerical, __tol);
                }
                if __modes.contains(&"rev") {
                    let __u: #r = ::jax::test_util::direction(&__value, 1000);
                    let (_, __pullback) = vjp #turbofish (#(#primals),*);
                    let __cts = __pullback(::core::clone::Clone::clone(&__u));
                    let __projection = 0.0 #(+ ::jax::test_util::inner(&#t.flat(), &__cts.#idx.flat()))*;
                    let __expected = ::jax::test_util::inner(&__numerical, &__u.flat());
                    ::jax::test_util::assert_close("the vjp cotangent projection", &[__projection], &[__expected], __tol);
                }
            }
        }
    }

    /// `f::jacfwd`, `f::jacrev`, `f::hessian` with respect to the first
    /// argument: the result type is the output's dimensions followed by the
    /// argument's (`f32[M]` of `f32[N]` gives `Array<f32, M, N>`).
    fn jacobian(&self, kind: &str) -> TokenStream {
        let n = self.params.len();
        if n == 0 {
            return quote!();
        }
        let first = &self.params[0];
        let (Some(in_aval), Some(out_aval)) = (first.spec.aval(), self.ret.aval()) else {
            return quote!();
        };
        if !in_aval.dtype.is_float() {
            let msg = format!(
                "{kind} requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got {}.",
                in_aval.dtype.name()
            );
            return self.lazy_error(kind, n, &msg);
        }
        if kind == "hessian" && out_aval.rank() != 0 {
            let msg = format!(
                "hessian is the Jacobian of the gradient: `{}` must return a scalar, not {out_aval}",
                self.fsig.ident
            );
            return self.lazy_error(kind, n, &msg);
        }
        let lead = if kind == "hessian" {
            &in_aval
        } else {
            &out_aval
        };
        if lead.rank() + in_aval.rank() > 6 {
            let msg = format!(
                "the {kind} of `{}` would have more than 6 dimensions",
                self.fsig.ident
            );
            return self.lazy_error(kind, n, &msg);
        }
        if !matches!(first.spec, TypeSpec::Array { .. })
            || !matches!(self.ret, TypeSpec::Array { .. })
        {
            let msg = format!("{kind} takes and returns arrays: write the first argument and the result of `{}` as `Array<..>`", self.fsig.ident);
            return self.lazy_error(kind, n, &msg);
        }
        // The directional derivative this Jacobian is made of, compiled once
        // and called per basis vector at run time (nothing is unrolled).
        let mut first_only = vec![false; n];
        first_only[0] = true;
        let wrt = self.per_leaf(&first_only).inputs;
        let base = if kind == "hessian" {
            ad::grad(self.j, 0, X64, self.span())
        } else {
            Ok(self.j.clone())
        };
        let directional = base.and_then(|b| {
            if kind == "jacrev" {
                ad::vjp(&b, &Wrt { inputs: wrt }, Seed::Inputs, X64, self.span())
            } else {
                ad::jvp(&b, &Wrt { inputs: wrt }, X64, self.span())
            }
        });
        let mut jaxpr = match directional {
            Ok(j) => j,
            Err(e) => return self.lazy_error(kind, n, &e.to_string()),
        };
        // Keep only the derivative (after the primal outputs).
        let n_primal = jaxpr.outvars.len() - 1;
        jaxpr.outvars.drain(..n_primal);
        let (dir_name, dir_ty, dir_spec, basis_ty) = if kind == "jacrev" {
            (
                format_ident!("__{}_row", kind),
                first.owned.clone(),
                first.spec.clone(),
                self.ret_ty.clone(),
            )
        } else if kind == "hessian" {
            (
                format_ident!("__{}_column", kind),
                first.owned.clone(),
                first.spec.clone(),
                first.owned.clone(),
            )
        } else {
            (
                format_ident!("__{}_column", kind),
                self.ret_ty.clone(),
                self.ret.clone(),
                first.owned.clone(),
            )
        };
        let mut inputs: Vec<(TokenStream, TypeSpec)> = self
            .params
            .iter()
            .map(|p| {
                let name = &p.name;
                (quote!(#name), p.spec.clone())
            })
            .collect();
        inputs.push((
            quote!(__basis),
            if kind == "jacrev" {
                self.ret.clone()
            } else {
                first.spec.clone()
            },
        ));
        // A Jacobian of plain arguments is made of the companions `jvp` and
        // `__pullback` already hold (the other arguments' tangents zero, their
        // cotangents dropped), rather than a third and fourth copy of the
        // derivative program for rustc to check: one pass per basis vector
        // either way, each computing the other arguments' part too.
        let plain = self
            .params
            .iter()
            .all(|p| matches!(p.spec, TypeSpec::Array { .. } | TypeSpec::Scalar(_)));
        let names: Vec<&syn::Ident> = self.params.iter().map(|p| &p.name).collect();
        let turbofish = self.turbofish();
        let reused: Option<TokenStream> = match kind {
            "jacfwd" if plain => {
                let tangents = self.params.iter().enumerate().map(|(k, p)| {
                    let owned = &p.owned;
                    let t = if k == 0 {
                        quote!(__basis)
                    } else if matches!(p.spec, TypeSpec::Scalar(_)) {
                        quote!(<#owned as ::jax::Element>::ZERO)
                    } else {
                        quote!(<#owned as ::jax::ArrayType>::from_data(::std::vec![<<#owned as ::jax::ArrayType>::Elem as ::jax::Element>::ZERO; <#owned as ::jax::ArrayType>::SIZE]))
                    };
                    if p.by_ref {
                        quote!(&#t)
                    } else {
                        t
                    }
                });
                Some(
                    quote!(jvp #turbofish ((#(::core::clone::Clone::clone(&#names),)*), (#(#tangents,)*)).1),
                )
            }
            "jacrev" if plain => {
                let leaves = self.params.iter().map(|p| {
                    let name = &p.name;
                    if p.by_ref {
                        quote!(::core::clone::Clone::clone(#name))
                    } else {
                        quote!(::core::clone::Clone::clone(&#name))
                    }
                });
                Some(quote!(__pullback #turbofish (#(#leaves,)* __basis).0))
            }
            _ => None,
        };
        let directional_fn = match &reused {
            Some(_) => TokenStream::new(),
            None => {
                let body = match emit_body(jaxpr, &inputs, &dir_ty, &dir_spec, self.items) {
                    Ok(b) => b,
                    Err(e) => return self.lazy_error(kind, n, &e.to_string()),
                };
                let (generics, wh) = self.generics();
                let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
                quote! {
                    #[doc(hidden)]
                    #[inline]
                    #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
                    pub fn #dir_name #generics (#(#names: #tys,)* __basis: #basis_ty) -> #dir_ty #wh {
                        #body
                    }
                }
            }
        };
        let direction = reused.unwrap_or_else(
            || quote!(#dir_name #turbofish (#(::core::clone::Clone::clone(&#names),)* __basis)),
        );
        let mut shape = lead.shape.clone();
        shape.extend(in_aval.shape.iter().cloned());
        // As JAX: forward mode gives the output's tangent dtype, reverse
        // mode (and the Hessian, a Jacobian of the gradient) the argument's.
        let dtype = if kind == "jacfwd" {
            out_aval.dtype
        } else {
            in_aval.dtype
        };
        let spec = TypeSpec::Array {
            aval: crate::ir::Aval {
                dtype,
                shape,
                weak: false,
            },
            by_ref: false,
        };
        let ty = spelled(&spec);
        let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
        let f = format_ident!("{}", kind);
        let doc = match kind {
            "jacfwd" => "The Jacobian with respect to the first argument, by forward mode (`jax.jacfwd`): one jvp per argument element.",
            "jacrev" => "The Jacobian with respect to the first argument, by reverse mode (`jax.jacrev`): one pullback per output element.",
            _ => "The Hessian with respect to the first argument (`jax.hessian`, `jacfwd(grad(f))`).",
        };
        let (generics, wh) = self.generics();
        let elem = crate::frontend::types::rust_type(dtype);
        // The basis vectors: of the output's dtype in reverse mode, else of
        // the argument's.
        let basis_elem = crate::frontend::types::rust_type(if kind == "jacrev" {
            out_aval.dtype
        } else {
            in_aval.dtype
        });
        // Rows (reverse mode) fill the result in order; columns (forward
        // mode) are strided by the argument's size.
        let fill = if kind == "jacrev" {
            quote! {
                for __k in 0..__rows {
                    let mut __e = ::std::vec![<#basis_elem as ::jax::Element>::ZERO; __rows];
                    __e[__k] = <#basis_elem as ::jax::Element>::ONE;
                    let __basis = <#basis_ty as ::jax::ArrayType>::from_data(__e);
                    let __d = #direction;
                    __out[__k * __cols..(__k + 1) * __cols].copy_from_slice(::jax::ArrayType::data(&__d));
                }
            }
        } else {
            quote! {
                for __k in 0..__cols {
                    let mut __e = ::std::vec![<#basis_elem as ::jax::Element>::ZERO; __cols];
                    __e[__k] = <#basis_elem as ::jax::Element>::ONE;
                    let __basis = <#basis_ty as ::jax::ArrayType>::from_data(__e);
                    let __d = #direction;
                    for (__i, __v) in ::jax::ArrayType::data(&__d).iter().enumerate() {
                        __out[__i * __cols + __k] = *__v;
                    }
                }
            }
        };
        let lead_ty = if kind == "hessian" {
            &first.owned
        } else {
            &self.ret_ty
        };
        let first_ty = &first.owned;
        quote! {
            #directional_fn

            #[doc = #doc]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn #f #generics (#(#names: #tys),*) -> #ty #wh {
                // The result is `lead ++ argument`: rows of the output's (or,
                // for the Hessian, the argument's) size, columns of the
                // argument's.
                let __rows = <#lead_ty as ::jax::ArrayType>::SIZE;
                let __cols = <#first_ty as ::jax::ArrayType>::SIZE;
                let mut __out = ::std::vec![<#elem as ::jax::Element>::ZERO; __rows * __cols];
                #fill
                <#ty as ::jax::ArrayType>::from_data(__out)
            }
        }
    }

    /// `f::grad(a, b)` (gradient with respect to the first argument) or
    /// `f::value_and_grad(a, b)`.
    fn grad(&self, with_value: bool) -> TokenStream {
        let name = if with_value { "value_and_grad" } else { "grad" };
        let n = self.params.len();
        let out = self.ret.aval().expect("arrays and scalars have avals");
        if out.rank() != 0 {
            let shape: Vec<String> = out.shape.iter().map(|d| d.to_string()).collect();
            let msg = format!(
                "Gradient only defined for scalar-output functions. Output had shape: ({}{}). `{}` returns {out}; use `{}::vjp` or `jacrev` for non-scalar outputs",
                shape.join(", "),
                if shape.len() == 1 { "," } else { "" },
                self.fsig.ident,
                self.fsig.ident
            );
            return self.lazy_error(name, n.max(1), &msg);
        }
        if n == 0 {
            return quote!();
        }
        let (argnums, as_tuple) = &self.argnums;
        if let Some(&bad) = argnums.iter().find(|&&k| k >= n) {
            let msg = format!("argnums {bad} is out of range for a function of {n} argument(s)");
            return self.lazy_error(name, n, &msg);
        }
        for &k in argnums {
            let p = &self.params[k];
            if !is_float(&p.spec) {
                let dtype = p.spec.aval().map(|a| a.dtype.name()).unwrap_or("?");
                let msg = format!(
                    "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got {dtype}. Choose float arguments with `#[jax::jit(argnums = ..)]`, or use `{}::vjp` (integer arguments get zero cotangents).", self.fsig.ident
                );
                return self.lazy_error(name, n, &msg);
            }
        }
        let mut wrt = vec![false; n];
        for &k in argnums {
            wrt[k] = true;
        }
        let mut jaxpr = match ad::vjp(self.j, &self.per_leaf(&wrt), Seed::One, X64, self.span()) {
            Ok(j) => j,
            Err(e) => return self.lazy_error(name, n, &e.to_string()),
        };
        // The vjp returns gradients in argument order; argnums may not be.
        let mut sorted: Vec<usize> = argnums.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let n_out = self.j.outvars.len();
        let grads: Vec<crate::ir::Atom> = jaxpr.outvars.split_off(n_out);
        let aux_outs: Vec<crate::ir::Atom> = jaxpr.outvars.split_off(1);
        // Each differentiated parameter's leaves, in parameter order.
        let counts = self.leaf_counts();
        let mut per_param: Vec<Vec<crate::ir::Atom>> = Vec::new();
        let mut at = 0;
        for &k in &sorted {
            per_param.push(grads[at..at + counts[k]].to_vec());
            at += counts[k];
        }
        let picked: Vec<crate::ir::Atom> = argnums
            .iter()
            .flat_map(|k| per_param[sorted.iter().position(|s| s == k).unwrap()].clone())
            .collect();
        let names: Vec<&syn::Ident> = self.params.iter().map(|p| &p.name).collect();
        let tys: Vec<&syn::Type> = self.params.iter().map(|p| &p.ty).collect();
        let inputs: Vec<(TokenStream, TypeSpec)> = self
            .params
            .iter()
            .map(|p| {
                let name = &p.name;
                (quote!(#name), p.spec.clone())
            })
            .collect();
        let (g, gspec): (syn::Type, TypeSpec) = if *as_tuple {
            let tys: Vec<&syn::Type> = argnums.iter().map(|&k| &self.params[k].owned).collect();
            (
                syn::parse_quote!((#(#tys,)*)),
                TypeSpec::Tuple(
                    argnums
                        .iter()
                        .map(|&k| self.params[k].spec.clone())
                        .collect(),
                ),
            )
        } else {
            let p = &self.params[argnums[0]];
            (p.owned.clone(), p.spec.clone())
        };
        let r = &self.ret_ty;
        let (ret_ty, ret): (syn::Type, TypeSpec) = match (&self.aux, with_value) {
            (None, true) => {
                jaxpr.outvars.extend(picked);
                (
                    syn::parse_quote!((#r, #g)),
                    TypeSpec::Tuple(vec![self.ret.clone(), gspec]),
                )
            }
            (None, false) => {
                jaxpr.outvars = picked;
                (g, gspec)
            }
            // JAX: value_and_grad gives ((value, aux), grad); grad gives (grad, aux).
            (Some(aux), true) => {
                let a = spelled(aux);
                jaxpr.outvars.extend(aux_outs);
                jaxpr.outvars.extend(picked);
                (
                    syn::parse_quote!(((#r, #a), #g)),
                    TypeSpec::Tuple(vec![
                        TypeSpec::Tuple(vec![self.ret.clone(), aux.clone()]),
                        gspec,
                    ]),
                )
            }
            (Some(aux), false) => {
                let a = spelled(aux);
                jaxpr.outvars = picked;
                jaxpr.outvars.extend(aux_outs);
                (
                    syn::parse_quote!((#g, #a)),
                    TypeSpec::Tuple(vec![gspec, aux.clone()]),
                )
            }
        };
        let body = match emit_body(jaxpr, &inputs, &ret_ty, &ret, self.items) {
            Ok(b) => b,
            Err(e) => return self.lazy_error(name, n, &e.to_string()),
        };
        let f = format_ident!("{}", name);
        let doc = if with_value {
            "The output and its gradient (`jax.value_and_grad`, with respect to the first argument or `argnums`), in one pass."
        } else {
            "The gradient of the (scalar) output (`jax.grad`, with respect to the first argument or `argnums`)."
        };
        let (generics, wh) = self.generics();
        quote! {
            #[doc = #doc]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn #f #generics (#(#names: #tys),*) -> #ret_ty #wh {
                #body
            }
        }
    }
}
