//! A jaxpr as the statements of a Rust function body: its inputs bound to
//! parameter expressions, its equations emitted (as one program, or as a
//! row program), and its outputs built into the written return type. Used
//! for the jitted function itself (`expand`) and its derivatives (`grad`).

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::backend::emit;
use crate::backend::rows::{Class, RowPlan};
use crate::frontend::parse;
use crate::frontend::trace::types::{Items, TypeSpec};
use crate::ir::{Atom, Aval, Jaxpr};
use crate::transform::simplify;

/// The statements computing a jaxpr and the expression of its result, in
/// the written return type: the body of a derived function (no row
/// programs). `params` are the input expressions and their types.
pub(crate) fn emit_body(
    mut jaxpr: Jaxpr,
    params: &[(TokenStream, TypeSpec)],
    ret_ty: &syn::Type,
    ret: &TypeSpec,
    items: &Items,
) -> syn::Result<TokenStream> {
    simplify::simplify(&mut jaxpr);
    let inputs = params.iter().map(|(e, s)| (e.clone(), s));
    let (stmts, outs) = emit_program(emit::Emitter::new(&jaxpr), &jaxpr, inputs)?;
    let out_avals: Vec<Aval> = jaxpr
        .outvars
        .iter()
        .map(|a| jaxpr.atom_aval(a).clone())
        .collect();
    let mut k = 0;
    let result = build_result(ret_ty, ret, &outs, &out_avals, &mut k, items);
    Ok(quote! { #(#stmts)* #result })
}

/// The statements of a whole program and its output expressions, with
/// `inputs` bound to its parameters in order.
pub(crate) fn emit_program<'s>(
    mut em: emit::Emitter,
    jaxpr: &Jaxpr,
    inputs: impl Iterator<Item = (TokenStream, &'s TypeSpec)>,
) -> syn::Result<(Vec<TokenStream>, Vec<TokenStream>)> {
    for (v, values) in &jaxpr.constvars {
        em.constant(*v, values);
    }
    let mut next = 0;
    for (expr, spec) in inputs {
        bind_inputs(&mut em, jaxpr, expr, spec, &mut next, None);
    }
    em.eqns()?;
    Ok(em.finish())
}

/// The jitted function's own program ([`emit_program`]) with its array
/// arguments taken by value (`by_value`, per parameter; leaves of a struct
/// or tuple taken by value too) donated: each buffer is moved in
/// (`__rt::donate`: the array's own when its `Arc` is unique, else a copy),
/// so the program writes a result over it once it is dead, returns it, or
/// gives it to the pool. A donation the program neither writes over nor
/// returns is bound borrowed instead (a shared argument would be copied for
/// nothing); it goes to the pool when the argument drops. Also returns
/// whether any argument is donated (its buffer no longer the caller's).
pub(crate) fn emit_program_donating(
    jaxpr: &Jaxpr,
    params: &[(TokenStream, TypeSpec)],
    by_value: &[bool],
) -> syn::Result<(Vec<TokenStream>, Vec<TokenStream>, bool)> {
    let mut donate: HashSet<usize> = HashSet::new();
    let mut next = 0;
    for ((_, spec), &by_value) in params.iter().zip(by_value) {
        array_leaves(jaxpr, spec, &mut next, by_value, &mut donate);
    }
    for round in 0.. {
        let mut em = emit::Emitter::new(jaxpr);
        for (v, values) in &jaxpr.constvars {
            em.constant(*v, values);
        }
        let mut next = 0;
        for (expr, spec) in params {
            bind_donating(&mut em, jaxpr, expr.clone(), spec, &mut next, &donate);
        }
        em.eqns()?;
        let (stmts, outs) = em.finish();
        let used: HashSet<usize> = donate
            .iter()
            .copied()
            .filter(|&k| em.donation_used(jaxpr.invars[k]))
            .collect();
        // Binding one input borrowed changes little else: a round or two.
        if used == donate || round == 2 {
            return Ok((stmts, outs, !donate.is_empty()));
        }
        donate = used;
    }
    unreachable!("the loop returns")
}

/// The input positions of the array leaves (not scalars) of a parameter,
/// into `out` when `take` (the parameter is taken by value).
fn array_leaves(
    j: &Jaxpr,
    spec: &TypeSpec,
    next: &mut usize,
    take: bool,
    out: &mut HashSet<usize>,
) {
    match spec {
        TypeSpec::Tuple(items) => items
            .iter()
            .for_each(|s| array_leaves(j, s, next, take, out)),
        TypeSpec::Struct { fields, .. } => fields
            .iter()
            .for_each(|(_, s)| array_leaves(j, s, next, take, out)),
        TypeSpec::Array { by_ref, .. } => {
            if take && !by_ref && j.aval(j.invars[*next]).rank() > 0 {
                out.insert(*next);
            }
            *next += 1;
        }
        // Rust cannot move an element out of `[T; N]` by index: a list's
        // leaves are bound borrowed, never donated.
        TypeSpec::List(items) => items
            .iter()
            .for_each(|s| array_leaves(j, s, next, false, out)),
        TypeSpec::Scalar(_) | TypeSpec::Key => *next += 1,
    }
}

/// [`bind_inputs`], with the inputs at positions in `donate` moved in.
fn bind_donating(
    em: &mut emit::Emitter,
    j: &Jaxpr,
    expr: TokenStream,
    spec: &TypeSpec,
    next: &mut usize,
    donate: &HashSet<usize>,
) {
    match spec {
        TypeSpec::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                let idx = syn::Index::from(i);
                bind_donating(em, j, quote!(#expr.#idx), item, next, donate);
            }
        }
        TypeSpec::Struct { fields, .. } => {
            for (f, item) in fields {
                let f = format_ident!("{}", f);
                bind_donating(em, j, quote!(#expr.#f), item, next, donate);
            }
        }
        TypeSpec::Array { .. } if donate.contains(next) => {
            em.input_donated(j.invars[*next], expr);
            *next += 1;
        }
        _ => bind_inputs(em, j, expr, spec, next, None),
    }
}

/// A row program's plan, and the prefetch hints for the next row of each
/// row input, gathered while binding them.
pub(crate) struct RowInputs<'a> {
    plan: &'a RowPlan,
    prefetch: Vec<TokenStream>,
}

/// Binds each array leaf of a parameter to its input variable; in a row
/// program, row arrays bind to the current row's slice.
pub(crate) fn bind_inputs(
    em: &mut emit::Emitter,
    j: &Jaxpr,
    expr: TokenStream,
    spec: &TypeSpec,
    next: &mut usize,
    mut rows: Option<&mut RowInputs<'_>>,
) {
    match spec {
        TypeSpec::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                let idx = syn::Index::from(i);
                bind_inputs(em, j, quote!(#expr.#idx), item, next, rows.as_deref_mut());
            }
        }
        TypeSpec::Struct { fields, .. } => {
            for (f, item) in fields {
                let f = format_ident!("{}", f);
                bind_inputs(em, j, quote!(#expr.#f), item, next, rows.as_deref_mut());
            }
        }
        TypeSpec::List(items) => {
            for (i, item) in items.iter().enumerate() {
                bind_inputs(em, j, quote!(#expr[#i]), item, next, rows.as_deref_mut());
            }
        }
        TypeSpec::Scalar(_) => {
            em.input(j.invars[*next], expr, true);
            *next += 1;
        }
        TypeSpec::Key => {
            em.input_data(
                j.invars[*next],
                quote!(::jax::__rt::random::key_words(&#expr)),
                None,
            );
            *next += 1;
        }
        TypeSpec::Array { .. } => {
            let v = j.invars[*next];
            match rows {
                Some(rows) if rows.plan.class[&v] == Class::Row => {
                    let n = emit::size_tokens(&rows.plan.row.aval(v).shape);
                    rows.prefetch.push(quote!(
                        ::jax::__rt::par::prefetch_row(::jax::__rt::data(&#expr), (__row + 1) * #n, #n);
                    ));
                    em.input_data(
                        v,
                        quote!(&::jax::__rt::data(&#expr)[__row * #n..(__row + 1) * #n]),
                        None,
                    );
                }
                _ => em.input(v, expr, false),
            }
            *next += 1;
        }
    }
}

/// A row program: the row body in a loop over the rows, its buffers
/// allocated once before the loop, each row's results copied into the
/// outputs. Returns the statements and the output buffers.
pub(crate) fn emit_rows(
    plan: &RowPlan,
    full: &Jaxpr,
    sig: &parse::Signature,
) -> syn::Result<(Vec<TokenStream>, Vec<TokenStream>)> {
    let mut em = emit::Emitter::new(&plan.row);
    em.hoist_buffers();
    let direct = full.outvars.len() == 1 && full.atom_aval(&full.outvars[0]).rank() >= 2;
    if let (true, Atom::Var(v)) = (direct, &full.outvars[0]) {
        em.write_output_into(*v, format_ident!("__o"));
    }
    let mut next = 0;
    let mut inputs = RowInputs {
        plan,
        prefetch: Vec::new(),
    };
    for (name, spec) in &sig.params {
        bind_inputs(
            &mut em,
            &plan.row,
            quote!(#name),
            spec,
            &mut next,
            Some(&mut inputs),
        );
    }
    // Each row input's next row is asked for before this row is computed:
    // a row of a page starts on a page the hardware prefetcher has not seen.
    let prefetch = inputs.prefetch;
    em.eqns()?;
    let (body, row_outs) = em.finish();
    let hoisted = em.take_hoisted();
    let rows = emit::dim_tokens(&plan.rows);
    let mut decls = Vec::new();
    let mut stores = Vec::new();
    let mut outs = Vec::new();
    for (k, (a, row_out)) in full.outvars.iter().zip(&row_outs).enumerate() {
        let aval = full.atom_aval(a);
        let ty = crate::ir::rust_type(aval.dtype);
        let name = format_ident!("__out{}", k);
        let total = emit::size_tokens(&aval.shape);
        decls.push(
            quote!(let mut #name: ::std::vec::Vec<#ty> = ::jax::__rt::buffer::<#ty>(#total);),
        );
        if aval.rank() == 1 {
            stores.push(quote!(#name[__row] = #row_out;));
        } else {
            let n = emit::size_tokens(&aval.shape[1..]);
            stores.push(quote!(#name[__row * #n..(__row + 1) * #n].copy_from_slice(&#row_out);));
        }
        outs.push(quote!(#name));
    }
    let stmts = if full.outvars.len() == 1 {
        // One output: rows run in parallel chunks, each chunk with its own
        // scratch buffers, writing its rows of the output in place.
        let out = format_ident!("__out0");
        let aval = full.atom_aval(&full.outvars[0]);
        let row_len = emit::size_tokens(&aval.shape[1..]);
        let row_out = &row_outs[0];
        let store = if aval.rank() == 1 {
            quote!(__o[0] = #row_out;)
        } else if em.wrote_target() {
            quote!()
        } else {
            quote!(__o.copy_from_slice(&#row_out);)
        };
        let decl = &decls[0];
        // The body once per SIMD level (see `par::dispatch3`).
        let chunk_body = quote! {
            |(__row0, __chunk)| {
                #(#hoisted)*
                // Rows of no elements make an empty output: no chunks.
                for (__r, __o) in __chunk.chunks_exact_mut(::core::cmp::max(#row_len, 1)).enumerate() {
                    let __row = __row0 + __r;
                    #(#prefetch)*
                    #(#body)*
                    #store
                }
            }
        };
        vec![quote! {
            #decl
            ::jax::__per_level!(for_each_rows3(
                &mut #out,
                #row_len,
                ::jax::__rt::par::rows_per_chunk(#row_len * 40),
                #chunk_body
            ));
        }]
    } else {
        vec![quote! {
            #(#decls)*
            #(#hoisted)*
            for __row in 0..#rows {
                #(#prefetch)*
                #(#body)*
                #(#stores)*
            }
        }]
    };
    Ok((stmts, outs))
}

/// The function's result from the output expressions, in the written type.
pub(crate) fn build_result(
    ty: &syn::Type,
    spec: &TypeSpec,
    outs: &[TokenStream],
    avals: &[Aval],
    k: &mut usize,
    items: &Items,
) -> TokenStream {
    match (spec, ty) {
        (TypeSpec::Tuple(specs), syn::Type::Tuple(t)) => {
            let parts: Vec<TokenStream> = specs
                .iter()
                .zip(&t.elems)
                .map(|(s, ty)| build_result(ty, s, outs, avals, k, items))
                .collect();
            quote!((#(#parts,)*))
        }
        (_, syn::Type::Paren(p)) => build_result(&p.elem, spec, outs, avals, k, items),
        (_, syn::Type::Group(g)) => build_result(&g.elem, spec, outs, avals, k, items),
        (TypeSpec::List(specs), syn::Type::Array(a)) => {
            let parts: Vec<TokenStream> = specs
                .iter()
                .map(|s| build_result(&a.elem, s, outs, avals, k, items))
                .collect();
            quote!([#(#parts,)*])
        }
        (TypeSpec::Struct { name, fields }, _) => {
            // `jax::optim`'s state structs are the runtime's, generic over the params.
            let optim = crate::frontend::trace::optim::state_result_fields(name, ty);
            let (path, decl) = match &optim {
                Some((path, decl)) => (path.clone(), decl),
                None => (quote!(#ty), &items.structs[name]),
            };
            let parts: Vec<TokenStream> = fields
                .iter()
                .zip(decl)
                .map(|((_, s), (f, fty))| {
                    let v = build_result(fty, s, outs, avals, k, items);
                    quote!(#f: #v)
                })
                .collect();
            quote!(#path { #(#parts,)* })
        }
        (TypeSpec::Scalar(_), _) => {
            let o = &outs[*k];
            *k += 1;
            quote!(#o)
        }
        (TypeSpec::Key, _) => {
            let o = &outs[*k];
            *k += 1;
            quote!(::jax::random::wrap_key_data(&<::jax::Array<u32, 2> as ::jax::ArrayType>::from_data(#o)))
        }
        _ => {
            let (o, aval) = (&outs[*k], &avals[*k]);
            *k += 1;
            let data = if aval.rank() == 0 {
                quote!(::std::vec![#o])
            } else {
                quote!(#o)
            };
            let weak = aval.weak;
            quote!(<#ty as ::jax::ArrayType>::set_weak(<#ty as ::jax::ArrayType>::from_data(#data), #weak))
        }
    }
}
