//! What `#[jax::jit]` expands to ([`expand`]): a function traced,
//! simplified and emitted with the same signature, beside its companion
//! module (`jaxpr()`, the derivatives of [`companions`], `lowered()`,
//! `cost_analysis()`); every function and method of a `#[jax::jit] mod`
//! likewise; and, for what does not compile, a fallback that keeps the
//! signature beside the errors.

mod aliases;
mod companions;
mod debug_nans;
pub(crate) mod pytree;

use std::rc::Rc;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::backend::body::{build_result, emit_program_donating, emit_rows};
use crate::backend::emit;
use crate::frontend::parse;
use crate::frontend::trace::types::{Items, TypeSpec};
use crate::ir::print;
use crate::ir::{Aval, Jaxpr};
use crate::limits;
use crate::transform::simplify;
use crate::x64;
use companions::{derivatives, Options};
use debug_nans::debug_nans;

/// One function (or method) to compile.
struct Function<'a> {
    attrs: &'a [syn::Attribute],
    vis: &'a syn::Visibility,
    sig: &'a syn::Signature,
    block: &'a syn::Block,
}

impl<'a> From<&'a syn::ItemFn> for Function<'a> {
    fn from(f: &'a syn::ItemFn) -> Self {
        Function {
            attrs: &f.attrs,
            vis: &f.vis,
            sig: &f.sig,
            block: &f.block,
        }
    }
}

impl<'a> From<&'a syn::ImplItemFn> for Function<'a> {
    fn from(f: &'a syn::ImplItemFn) -> Self {
        Function {
            attrs: &f.attrs,
            vis: &f.vis,
            sig: &f.sig,
            block: &f.block,
        }
    }
}

/// What [`compile`] makes of a function.
struct Compiled {
    /// The function itself: the same signature, a fused body.
    function: TokenStream,
    /// The traced jaxpr as `jax.make_jaxpr` prints it (`f::jaxpr()`).
    jaxpr_text: String,
    /// The traced jaxpr, unsimplified: what the derivatives transform.
    traced: Jaxpr,
    /// The parameters' and the result's types.
    signature: parse::Signature,
    /// `f::lowered()` and `f::cost_analysis()` (see [`introspection`]).
    introspection: TokenStream,
}

/// Traces, simplifies and emits one function (a method when `self_ty` is
/// given); `items` are those of the enclosing `#[jax::jit] mod`, if any.
fn compile(f: &Function, items: &Rc<Items>, self_ty: Option<&syn::Type>) -> syn::Result<Compiled> {
    let sig = parse::signature_in(f.sig, items, self_ty)?;
    let t = parse::trace_body(
        f.block,
        &sig,
        &f.sig.output,
        items.clone(),
        self_ty.cloned(),
        x64(),
    )?;
    let library = library_use_checks(&t.library_uses);
    emit_function(f, items, self_ty, sig, t.b.jaxpr, &t.b.constraints, library)
}

/// For each library function called by a bare name (`logsumexp(x)`), a
/// check that the name in scope is the function it was traced as: the name
/// imported (`unresolved import` otherwise), and the same item as the one
/// a glob of its module brings (`is ambiguous` otherwise, naming both).
fn library_use_checks(uses: &[(syn::Ident, &str)]) -> TokenStream {
    let mut seen = std::collections::HashSet::new();
    let checks = uses
        .iter()
        .filter(|(id, _)| seen.insert(id.to_string()))
        .map(|(id, path)| {
            let span = id.span();
            let segs = path.split("::").map(|s| syn::Ident::new(s, span));
            quote::quote_spanned! {span=>
                #[allow(unused_imports)]
                use #id as _;
                {
                    #[allow(unused_imports)]
                    use #(::#segs)*::*;
                    #[allow(unused_imports)]
                    use #id as _;
                }
            }
        });
    quote!(#(#checks)*)
}

/// A function whose program is read from a file (`import = "..."`).
fn compile_imported(f: &Function, items: &Rc<Items>, lit: &syn::LitStr) -> syn::Result<Compiled> {
    let sig = parse::signature_in(f.sig, items, None)?;
    let (path, jaxpr) = crate::frontend::import::read(lit)?;
    crate::frontend::import::check_signature(f.sig, &sig, &jaxpr, &lit.value())?;
    let mut compiled = emit_function(
        f,
        items,
        None,
        sig,
        jaxpr,
        &Default::default(),
        TokenStream::new(),
    )?;
    // Rebuilt when the file changes.
    let path = path.to_string_lossy().to_string();
    let function = compiled.function;
    compiled.function = quote! {
        const _: &str = ::core::include_str!(#path);
        #function
    };
    Ok(compiled)
}

/// Simplifies and emits a function's program (traced, or imported).
fn emit_function(
    f: &Function,
    items: &Rc<Items>,
    self_ty: Option<&syn::Type>,
    sig: parse::Signature,
    traced: Jaxpr,
    constraints: &crate::ir::shapes::Constraints,
    library: TokenStream,
) -> syn::Result<Compiled> {
    let text = print::print_jaxpr(&crate::prims::inline_for_printing(&traced));
    let mut jaxpr = traced.clone();
    simplify::simplify(&mut jaxpr);
    // Arguments taken by value are donated (not a method's: `self` stays
    // borrowed as written).
    let by_value: Vec<bool> = f
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(t) => self_ty.is_none() && !matches!(*t.ty, syn::Type::Reference(_)),
            syn::FnArg::Receiver(_) => false,
        })
        .collect();
    let (stmts, outs, donating) = match crate::backend::rows::row_plan(&jaxpr) {
        Some(plan) => {
            let (stmts, outs) = emit_rows(&plan, &jaxpr, &sig)?;
            (stmts, outs, false)
        }
        None => {
            let params: Vec<(TokenStream, TypeSpec)> =
                named(&sig).map(|(e, s)| (e, s.clone())).collect();
            emit_program_donating(&jaxpr, &params, &by_value)?
        }
    };
    let syn::ReturnType::Type(_, ret_ty) = &f.sig.output else {
        unreachable!("signature_in() requires a return type")
    };
    let out_avals: Vec<Aval> = jaxpr
        .outvars
        .iter()
        .map(|a| jaxpr.atom_aval(a).clone())
        .collect();
    // The outputs, bound to names: `jax_debug_nans` checks them.
    let names: Vec<TokenStream> = (0..outs.len())
        .map(|k| {
            let n = format_ident!("__out{}", k);
            quote!(#n)
        })
        .collect();
    let mut k = 0;
    let result = build_result(ret_ty, &sig.ret, &names, &out_avals, &mut k, items);
    let checks = constraints.equal.iter().map(|(a, b, msg)| {
        let (a, b) = (emit::dim_tokens(a), emit::dim_tokens(b));
        quote!(const { ::std::assert!(#a == #b, #msg) };)
    });
    let (debug_check, replay, keep) = match self_ty {
        None => debug_nans(f, &sig, &traced, &names, &out_avals, donating)?,
        Some(_) => (TokenStream::new(), TokenStream::new(), TokenStream::new()),
    };
    // Last first: only the first output of a buffer moves it, later ones
    // copy it.
    let (names_rev, outs_rev): (Vec<_>, Vec<_>) = names.iter().zip(&outs).rev().unzip();
    let (vis, fsig) = (f.vis, f.sig);
    let attrs = own_attrs(f.attrs);
    // A NaN panic names the caller's line, as JAX's traceback ends at the call.
    let track_caller = (!debug_check.is_empty()).then(|| quote!(#[track_caller]));
    // Never inlined unless the user asks: a jitted body holds a loop per
    // SIMD level, and LLVM inlining a function called once made its caller
    // one huge function (20 such functions called from `main`: 52 s of
    // release build against 3.9 s). A call costs nothing next to the body.
    let inline =
        (!attrs.iter().any(|a| a.path().is_ident("inline"))).then(|| quote!(#[inline(never)]));
    let uses = crate::frontend::lib::jnp::numeric::module_uses(f.block);
    let body = quote! {
        #(#attrs)*
        #track_caller
        #inline
        #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
        #vis #fsig {
            #uses
            #library
            #(#checks)*
            #replay
            #keep
            #(#stmts)*
            #(let #names_rev = #outs_rev;)*
            #debug_check
            #result
        }
    };
    let introspection = introspection(&body, &jaxpr);
    Ok(Compiled {
        function: body,
        jaxpr_text: text,
        traced,
        signature: sig,
        introspection,
    })
}

/// `f::lowered()` (the emitted function, formatted) and, for static shapes,
/// `f::cost_analysis()`: JAX's `jit(f).lower(..).as_text()` and
/// `.cost_analysis()`.
fn introspection(body: &TokenStream, jaxpr: &Jaxpr) -> TokenStream {
    // As an optimized build compiles it: a loop body once per SIMD level.
    let body = crate::backend::emit::optimized_form(body.clone());
    let lowered = syn::parse2::<syn::File>(body.clone())
        .map(|f| prettyplease::unparse(&f))
        .unwrap_or_else(|_| body.to_string());
    let cost = crate::backend::cost::analyze(jaxpr).map(|c| {
        let (f, t, b) = (c.flops, c.transcendentals, c.bytes);
        quote! {
            /// What one call computes and moves (see [`::jax::CostAnalysis`]).
            #[allow(dead_code)]
            pub fn cost_analysis() -> ::jax::CostAnalysis {
                ::jax::CostAnalysis { flops: #f, transcendentals: #t, bytes_accessed: #b }
            }
        }
    });
    quote! {
        /// The Rust code `#[jax::jit]` emitted for the function.
        #[allow(dead_code)]
        pub fn lowered() -> &'static str {
            #lowered
        }
        #cost
    }
}

/// The attributes to keep on the emitted function: not ours.
fn own_attrs(attrs: &[syn::Attribute]) -> Vec<&syn::Attribute> {
    attrs
        .iter()
        .filter(|a| !a.path().is_ident("custom_jvp") && !a.path().is_ident("custom_vjp"))
        .collect()
}

/// A signature's parameters as input expressions.
pub(super) fn named(sig: &parse::Signature) -> impl Iterator<Item = (TokenStream, &TypeSpec)> {
    sig.params.iter().map(|(name, spec)| (quote!(#name), spec))
}

/// The companion module of a function: `name::jaxpr()`, then `derived`
/// (the derivatives and the introspection functions).
fn companion(
    name: &syn::Ident,
    vis: &syn::Visibility,
    text: &str,
    derived: TokenStream,
) -> TokenStream {
    let doc = format!("Transformations of [`{name}`], generated by `#[jax::jit]`.");
    quote! {
        #[doc = #doc]
        #[allow(non_snake_case)]
        #vis mod #name {
            // What a struct's field types name (derivatives of pytrees
            // build the struct); the derived signatures are spelled out.
            #[allow(unused_imports)]
            use super::*;

            /// The traced program, printed like `jax.make_jaxpr`.
            #[allow(dead_code)]
            pub fn jaxpr() -> ::jax::Jaxpr {
                ::jax::Jaxpr::from_text(#text)
            }

            #derived
        }
    }
}

/// What stands in for a function that did not compile, beside its errors:
/// the same signature (and companion module), so callers still type-check
/// and only the real errors are reported.
fn fallback(f: &Function, with_companion: bool) -> TokenStream {
    let (vis, sig) = (f.vis, f.sig);
    let attrs = own_attrs(f.attrs);
    let companion = if with_companion {
        let name = &sig.ident;
        quote! {
            #[allow(non_snake_case, dead_code)]
            #vis mod #name {
                pub fn jaxpr() -> ::jax::Jaxpr {
                    ::core::unreachable!("this function did not compile")
                }
            }
        }
    } else {
        quote!()
    };
    quote! {
        #(#attrs)*
        #[allow(unused_variables, unused_mut, dead_code)]
        #vis #sig {
            ::core::unreachable!("this function did not compile")
        }
        #companion
    }
}

/// A function whose body is not Rust at all (rustc reports it too): its
/// signature alone, so callers type-check and the output still parses.
fn signature_fallback(item: TokenStream) -> Option<TokenStream> {
    let (attrs, vis, sig, _) = signature_and_body(item).ok()?;
    let block = syn::parse_quote!({});
    Some(fallback(
        &Function {
            attrs: &attrs,
            vis: &vis,
            sig: &sig,
            block: &block,
        },
        true,
    ))
}

/// A function item read as its signature and its body's tokens, unparsed
/// (`None` for a signature ending in `;`, an imported function's form).
type SignatureAndBody = (
    Vec<syn::Attribute>,
    syn::Visibility,
    syn::Signature,
    Option<proc_macro2::Group>,
);

fn signature_and_body(item: TokenStream) -> syn::Result<SignatureAndBody> {
    use syn::parse::Parser;
    let parser = |input: syn::parse::ParseStream| {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis: syn::Visibility = input.parse()?;
        let sig: syn::Signature = input.parse()?;
        let body = if input.peek(syn::token::Brace) {
            Some(input.parse::<proc_macro2::Group>()?)
        } else {
            input.parse::<syn::Token![;]>()?;
            None
        };
        Ok((attrs, vis, sig, body))
    };
    parser.parse2(item)
}

/// See [`crate::expand_jit`].
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Err(e) = limits::check_group_nesting(&item) {
        let error = e.to_compile_error();
        let fallback = signature_fallback(item).unwrap_or_default();
        return quote! { #error #fallback };
    }
    let mut errors = Vec::new();
    let options = match Options::parse(attr.clone()) {
        Ok(o) => o,
        Err(e) => {
            errors.push(e);
            Default::default()
        }
    };
    if let Some(lit) = &options.import {
        let output = expand_imported(&attr, item, lit, None, &options, &mut errors);
        let errors = errors.iter().map(syn::Error::to_compile_error);
        return quote! { #(#errors)* #output };
    }
    let output = match syn::parse2::<syn::Item>(item.clone()) {
        // A struct defined elsewhere: ask its `#[derive(jax::Pytree)]` macro.
        Ok(syn::Item::Fn(f)) if pytree::unknown_struct(&f.sig, &Items::default()).is_some() => {
            let path = pytree::unknown_struct(&f.sig, &Items::default()).unwrap();
            return pytree::ask_for(&path, &TokenStream::new(), &attr, &item);
        }
        Ok(syn::Item::Fn(f)) => expand_fn(&f, None, None, &options, &mut errors),
        Ok(syn::Item::Mod(m)) => match expand_mod(m, &mut errors, &options) {
            Some(tokens) => tokens,
            None => item,
        },
        Ok(other) => {
            errors.push(syn::Error::new_spanned(
                other,
                "#[jax::jit] applies to a `fn` or an inline `mod`",
            ));
            item
        }
        Err(e) => {
            errors.push(e);
            signature_fallback(item).unwrap_or_default()
        }
    };
    let had_errors = !errors.is_empty();
    let mut shown: Vec<syn::Error> = errors
        .into_iter()
        .flatten()
        .filter(|e| !crate::frontend::parse::is_poisoned(e))
        .collect();
    if had_errors && shown.is_empty() {
        shown.push(syn::Error::new(
            proc_macro2::Span::call_site(),
            "internal error in #[jax::jit]: a failure was not reported; please file a bug with this function",
        ));
    }
    let errors = shown.iter().map(syn::Error::to_compile_error);
    quote! { #(#errors)* #output }
}

/// `#[jax::jit(import = "file.jaxpr")] fn f(..) -> ..;`: a signature
/// without a body, whose program is the file's.
fn expand_imported(
    attr: &TokenStream,
    item: TokenStream,
    lit: &syn::LitStr,
    structs: Option<(Items, &TokenStream)>,
    options: &Options,
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let (attrs, vis, sig, body) = match signature_and_body(item.clone()) {
        Ok(parts) => parts,
        Err(e) => {
            errors.push(e);
            return TokenStream::new();
        }
    };
    let block: syn::Block = syn::parse_quote!({});
    let func = Function {
        attrs: &attrs,
        vis: &vis,
        sig: &sig,
        block: &block,
    };
    if let Some(body) = body {
        errors.push(syn::Error::new(
            body.span(),
            "an imported function has no body (its program is the jaxpr file's): end the signature with `;`",
        ));
        return fallback(&func, true);
    }
    let (items, defs) = match structs {
        Some((items, defs)) => (items, defs.clone()),
        None => (Items::default(), TokenStream::new()),
    };
    // A struct defined elsewhere: ask its `#[derive(jax::Pytree)]` macro.
    if let Some(path) = pytree::unknown_struct(&sig, &items) {
        return pytree::ask_for(&path, &defs, attr, &item);
    }
    let items = Rc::new(items);
    let Compiled {
        function,
        jaxpr_text,
        traced,
        signature,
        introspection,
    } = match compile_imported(&func, &items, lit) {
        Ok(c) => c,
        Err(e) => {
            errors.push(e);
            return fallback(&func, true);
        }
    };
    let derived = derivatives(&sig, &signature, &traced, options, &items);
    let companion = companion(
        &sig.ident,
        &vis,
        &jaxpr_text,
        quote!(#derived #introspection),
    );
    quote!(#function #companion)
}

/// `::jax::__jit_with_structs!`: a function whose signature names structs
/// defined outside, with their fields now known (see [`pytree`]).
pub(crate) fn expand_with_structs(input: TokenStream) -> TokenStream {
    if let Err(e) = limits::check_group_nesting(&input) {
        return e.to_compile_error();
    }
    let w = match syn::parse2::<pytree::WithStructs>(input) {
        Ok(w) => w,
        Err(e) => return e.to_compile_error(),
    };
    let mut items = Items::default();
    for (path, s) in &w.structs {
        let syn::Fields::Named(named) = &s.fields else {
            continue;
        };
        let fields = named
            .named
            .iter()
            .map(|f| (f.ident.clone().unwrap(), f.ty.clone()))
            .collect();
        items.structs.insert(s.ident.to_string(), fields);
        items.paths.insert(s.ident.to_string(), path.clone());
    }
    let mut errors = Vec::new();
    let options = match Options::parse(w.attr.clone()) {
        Ok(o) => o,
        Err(e) => {
            errors.push(e);
            Default::default()
        }
    };
    if let Some(lit) = &options.import {
        let output = expand_imported(
            &w.attr,
            w.item.clone(),
            lit,
            Some((items, &w.defs)),
            &options,
            &mut errors,
        );
        let errors = errors.iter().map(syn::Error::to_compile_error);
        return quote! { #(#errors)* #output };
    }
    let f = match syn::parse2::<syn::ItemFn>(w.item.clone()) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    if let Some(path) = pytree::unknown_struct(&f.sig, &items) {
        return pytree::ask_for(&path, &w.defs, &w.attr, &w.item);
    }
    let output = expand_fn(&f, None, Some(Rc::new(items)), &options, &mut errors);
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote! { #(#errors)* #output }
}

/// A free function as emitted: compiled, beside its companion module (the
/// jaxpr, the derivatives, the introspection), or its fallback. `module`
/// holds the items of the enclosing `#[jax::jit] mod`, if any: there a
/// function may be a helper only ever inlined, and a `#[custom_jvp]` or
/// `#[custom_vjp]` rule (a function of the module) gives its derivatives.
fn expand_fn(
    f: &syn::ItemFn,
    module: Option<&Rc<Items>>,
    outside: Option<Rc<Items>>,
    options: &Options,
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let func = Function::from(f);
    let items = module.cloned().or(outside).unwrap_or_default();
    let Compiled {
        function,
        jaxpr_text,
        traced,
        signature,
        introspection,
    } = match compile(&func, &items, None) {
        Ok(compiled) => compiled,
        Err(e) => {
            errors.push(e);
            return fallback(&func, true);
        }
    };
    let (function, traced) = match module {
        None => (function, traced),
        Some(_) => {
            // A helper may only be called (inlined) by other functions.
            let function = quote!(#[allow(dead_code)] #function);
            // A #[custom_jvp] function's own derivatives use its rule.
            let traced = match crate::frontend::trace::module::custom_rule(&f.attrs) {
                Some(rule) => match crate::frontend::parse::custom_program(
                    &traced,
                    f,
                    &rule,
                    items.clone(),
                    x64(),
                ) {
                    Ok(j) => j,
                    Err(e) => {
                        errors.push(e);
                        traced
                    }
                },
                None => traced,
            };
            (function, traced)
        }
    };
    let derived = derivatives(&f.sig, &signature, &traced, options, &items);
    let companion = companion(
        &f.sig.ident,
        &f.vis,
        &jaxpr_text,
        quote!(#derived #introspection),
    );
    quote!(#function #companion)
}

/// A `#[jax::jit] mod`: structs are pytrees, consts are evaluated, every
/// function is compiled (calls between them are inlined), and methods of
/// `impl` blocks are compiled with `Self::NAME_jaxpr()` beside them (a module
/// cannot live inside an `impl`). `None` when nothing could be compiled.
fn expand_mod(
    m: syn::ItemMod,
    errors: &mut Vec<syn::Error>,
    options: &Options,
) -> Option<TokenStream> {
    let Some((_, content)) = &m.content else {
        errors.push(syn::Error::new_spanned(
            &m,
            "#[jax::jit] needs an inline module: `mod name { ... }`",
        ));
        return None;
    };
    // A model's params type (`type Params = stax::params_of!(net, [..]);`)
    // computed from the model, then type aliases written out: the
    // signatures then name arrays and tuples directly.
    let resolved;
    let content = if content
        .iter()
        .any(|it| matches!(it, syn::Item::Type(t) if crate::frontend::lib::optim::stax::is_params_of(&t.ty).is_some()))
    {
        let items = Rc::new(module_items(content, &mut Vec::new()));
        match crate::frontend::parse::resolve_params_types(content, items, x64()) {
            Ok(c) => {
                resolved = c;
                &resolved
            }
            Err(e) => {
                errors.push(e);
                return None;
            }
        }
    } else {
        content
    };
    let content = &aliases::expand(content);
    let items = Rc::new(module_items(content, errors));
    let auto = pytree::auto_impls(content);
    let (out, bodies) =
        crate::backend::emit::in_module(|| mod_items(content, &items, &auto, errors, options));
    let (attrs, vis, ident) = (&m.attrs, &m.vis, &m.ident);
    Some(quote! { #(#attrs)* #vis mod #ident { #(#out)* #(#bodies)* } })
}

/// The items of a `#[jax::jit] mod` as emitted.
fn mod_items(
    content: &[syn::Item],
    items: &Rc<Items>,
    auto: &std::collections::HashSet<String>,
    errors: &mut Vec<syn::Error>,
    options: &Options,
) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for it in content {
        match it {
            // A model or initializer builder (`fn net() -> stax::Layer`):
            // Rust as written, traced where a body calls it.
            syn::Item::Fn(f) if crate::frontend::trace::module::builds_static(&f.sig) => {
                out.push(quote!(#[allow(dead_code)] #f))
            }
            syn::Item::Fn(f) => out.push(expand_fn(f, Some(items), None, options, errors)),
            syn::Item::Impl(imp) if imp.trait_.is_none() => {
                let self_ty = &*imp.self_ty;
                let fns = imp.items.iter().map(|ii| match ii {
                    syn::ImplItem::Fn(f) => expand_method(f, self_ty, items, errors),
                    other => quote!(#other),
                });
                let fns: Vec<TokenStream> = fns.collect();
                let (attrs, generics) = (&imp.attrs, &imp.generics);
                out.push(quote! { #(#attrs)* impl #generics #self_ty { #(#fns)* } });
            }
            // Consts are also inlined at trace time; they may have no other use.
            syn::Item::Const(c) => out.push(quote!(#[allow(dead_code)] #c)),
            // A struct is a pytree eagerly too (`jax::tree::map`, optimizers):
            // the same impl `#[derive(jax::Pytree)]` writes (see
            // `pytree::auto_impls` for which structs).
            syn::Item::Struct(st)
                if auto.contains(&st.ident.to_string())
                    && items.structs.contains_key(&st.ident.to_string()) =>
            {
                let imp = pytree::pytree_impl(&st.ident, &items.structs[&st.ident.to_string()]);
                out.push(quote!(#st #imp));
            }
            // The library's names a body uses (`stax::Dense`, `optimizers`)
            // are read when it compiles; the code it becomes may not use them.
            syn::Item::Use(u) => out.push(quote!(#[allow(unused_imports)] #u)),
            // Aliases are written out in the signatures (`aliases`).
            syn::Item::Type(t) => out.push(quote!(#[allow(dead_code)] #t)),
            other => out.push(quote!(#other)),
        }
    }
    out
}

/// What the functions of a `#[jax::jit] mod` can name: its structs, consts,
/// functions and inherent methods.
fn module_items(content: &[syn::Item], errors: &mut Vec<syn::Error>) -> Items {
    let mut items = Items::default();
    for it in content {
        match it {
            syn::Item::Struct(s) => {
                let fields = match &s.fields {
                    syn::Fields::Named(named) => named
                        .named
                        .iter()
                        .map(|f| (f.ident.clone().unwrap(), f.ty.clone()))
                        .collect(),
                    other => {
                        errors.push(syn::Error::new_spanned(
                            other,
                            "structs of a #[jax::jit] mod have named fields",
                        ));
                        continue;
                    }
                };
                items.structs.insert(s.ident.to_string(), fields);
            }
            syn::Item::Const(c) => {
                items.consts.insert(c.ident.to_string(), (*c.expr).clone());
            }
            syn::Item::Fn(f) => {
                items.fns.insert(f.sig.ident.to_string(), f.clone());
            }
            syn::Item::Impl(imp) if imp.trait_.is_none() => {
                let syn::Type::Path(p) = &*imp.self_ty else {
                    continue;
                };
                let ty = p.path.segments.last().unwrap().ident.to_string();
                for ii in &imp.items {
                    if let syn::ImplItem::Fn(f) = ii {
                        items
                            .methods
                            .insert((ty.clone(), f.sig.ident.to_string()), f.clone());
                    }
                }
            }
            _ => {}
        }
    }
    items
}

/// A method of an `impl` block of a `#[jax::jit] mod`, compiled, with
/// `Self::NAME_jaxpr()` beside it (methods get no companion module or
/// derivatives); or its fallback.
fn expand_method(
    f: &syn::ImplItemFn,
    self_ty: &syn::Type,
    items: &Rc<Items>,
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let func = Function::from(f);
    match compile(&func, items, Some(self_ty)) {
        Ok(Compiled {
            function,
            jaxpr_text,
            ..
        }) => {
            let name = format_ident!("{}_jaxpr", f.sig.ident);
            let vis = &f.vis;
            let doc = format!(
                "The traced program of [`Self::{}`], printed like `jax.make_jaxpr`.",
                f.sig.ident
            );
            quote! {
                #function
                #[doc = #doc]
                #[allow(dead_code)]
                #vis fn #name() -> ::jax::Jaxpr {
                    ::jax::Jaxpr::from_text(#jaxpr_text)
                }
            }
        }
        Err(e) => {
            errors.push(e);
            fallback(&func, false)
        }
    }
}
