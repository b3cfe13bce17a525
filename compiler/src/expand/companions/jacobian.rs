//! `f::jacfwd`, `f::jacrev` and `f::hessian`: full Jacobians with respect
//! to the first argument, as JAX computes them: the directional derivative
//! (jvp or pullback) batched over the identity basis, one pass
//! (`jacobian::jacobian_batched`). Where an equation has no batching rule yet,
//! one directional derivative per basis vector instead (at run time for
//! arrays). The three differ only in which derivative they batch or repeat
//! and how its results fill the matrix, so they share one generator.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{is_array_or_scalar, leaves, spelled, Differentiated};
use crate::backend::body::emit_body;
use crate::frontend::trace::types::TypeSpec;
use crate::ir::rust_type;
use crate::ir::Aval;
use crate::transform::ad::{self, Seed, Wrt};
use crate::transform::jacobian;
use crate::x64;

/// The largest batched `jacfwd` or `jacrev` body, in bytes of tokens: past
/// it (a long program: a 100-line body's batched Jacobian is 250 kB, one
/// and a half times its `jvp`), the Jacobian loops over the basis calling
/// the `jvp` or `__pullback` companion, so a function's build time stays
/// proportional to its program (`compiler/tests/expansion_size.rs`,
/// `benches/compile_time.py`).
const BATCHED_BYTES: usize = 64 * 1024;

/// Programs longer than this are not even batched to be measured against
/// [`BATCHED_BYTES`]: their batched body is far over it (an equation emits
/// hundreds of bytes), and building and emitting it only to throw it away
/// cost a 200-line body a quarter of its build time.
const BATCHED_EQNS: usize = 128;

/// Which Jacobian: each is a companion function of this name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Jacobian {
    /// `jacfwd`: one jvp per element of the argument, giving columns.
    Forward,
    /// `jacrev`: one pullback per element of the output, giving rows.
    Reverse,
    /// `hessian`: `jacfwd` of the gradient.
    Hessian,
}

impl Jacobian {
    /// The companion function's name, as JAX's function is named.
    fn name(self) -> &'static str {
        match self {
            Jacobian::Forward => "jacfwd",
            Jacobian::Reverse => "jacrev",
            Jacobian::Hessian => "hessian",
        }
    }

    /// The aval whose dimensions lead the result's (the argument's follow):
    /// the output's, or for the Hessian (a Jacobian of the gradient) the
    /// argument's.
    fn lead<'a>(self, in_aval: &'a Aval, out_aval: &'a Aval) -> &'a Aval {
        if self == Jacobian::Hessian {
            in_aval
        } else {
            out_aval
        }
    }
}

impl std::fmt::Display for Jacobian {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The first struct in an output, by name.
fn struct_in(spec: &TypeSpec) -> Option<&str> {
    match spec {
        TypeSpec::Struct { name, .. } => Some(name),
        TypeSpec::Tuple(items) | TypeSpec::List(items) => items.iter().find_map(struct_in),
        _ => None,
    }
}

/// A tuple or `[T; N]` tree of `spec`'s structure from its leaves' values.
fn rebuild(spec: &TypeSpec, leaves: &mut impl Iterator<Item = TokenStream>) -> TokenStream {
    match spec {
        TypeSpec::Tuple(items) => {
            let items: Vec<TokenStream> = items.iter().map(|s| rebuild(s, leaves)).collect();
            quote!((#(#items,)*))
        }
        TypeSpec::List(items) => {
            let items: Vec<TokenStream> = items.iter().map(|s| rebuild(s, leaves)).collect();
            quote!([#(#items),*])
        }
        _ => leaves.next().expect("a leaf per leaf"),
    }
}

/// The Jacobian of a pytree output `spec` with respect to an argument of
/// `in_aval` (a Rust scalar when `scalar_in`): the same tree, each leaf the
/// leaf's dimensions then the argument's, in the output leaf's dtype for
/// `jacfwd` and the argument's for `jacrev` (as JAX). `Err`: a leaf's rank
/// past 6.
fn jacobian_tree(
    spec: &TypeSpec,
    in_aval: &Aval,
    kind: Jacobian,
    scalar_in: bool,
) -> Result<TypeSpec, usize> {
    let each = |items: &[TypeSpec]| -> Result<Vec<TypeSpec>, usize> {
        items
            .iter()
            .map(|s| jacobian_tree(s, in_aval, kind, scalar_in))
            .collect()
    };
    Ok(match spec {
        TypeSpec::Tuple(items) => TypeSpec::Tuple(each(items)?),
        TypeSpec::List(items) => TypeSpec::List(each(items)?),
        leaf => {
            let out = leaf.aval().expect("a pytree of arrays and scalars");
            let dtype = if kind == Jacobian::Forward {
                out.dtype
            } else {
                in_aval.dtype
            };
            let mut shape = out.shape.clone();
            shape.extend(in_aval.shape.iter().cloned());
            if shape.len() > 6 {
                return Err(shape.len());
            }
            if scalar_in && matches!(leaf, TypeSpec::Scalar(_)) {
                TypeSpec::Scalar(dtype)
            } else {
                TypeSpec::Array {
                    aval: Aval {
                        dtype,
                        shape,
                        weak: false,
                    },
                    by_ref: false,
                }
            }
        }
    })
}

impl Differentiated<'_> {
    /// `f::jacfwd`, `f::jacrev`, `f::hessian` with respect to the first
    /// argument: the result type is the output's dimensions followed by the
    /// argument's (`f32[M]` of `f32[N]` gives `Array<f32, M, N>`; a scalar
    /// of a scalar, `f32` of `f32`, gives `f32`, as `jax.hessian(f)(0.5)`).
    /// Computed as JAX does, in one batched pass (the jvp or pullback
    /// `vmap`ped over the identity basis); where an equation of the
    /// derivative has no batching rule yet, one pass per basis vector.
    pub(super) fn jacobian(&self, kind: Jacobian) -> TokenStream {
        let n = self.params.len();
        if n == 0 {
            return quote!();
        }
        let first = &self.params[0];
        let Some(in_aval) = first.spec.aval() else {
            let msg = format!("{kind} differentiates the first argument, which must be an array or a scalar: `{}` takes a pytree first (inside a body, `jax::{kind}` takes pytrees)", self.fsig.ident);
            return self.lazy_error(kind.name(), n, &msg);
        };
        let Some(out_aval) = self.ret.aval() else {
            return self.tree_jacobian(kind, &in_aval);
        };
        if let Some(msg) = self.jacobian_misuse(kind, &in_aval, &out_aval) {
            return self.lazy_error(kind.name(), n, &msg);
        }
        let mut shape = kind.lead(&in_aval, &out_aval).shape.clone();
        shape.extend(in_aval.shape.iter().cloned());
        // As JAX: forward mode gives the output's tangent dtype, reverse
        // mode (and the Hessian, a Jacobian of the gradient) the argument's.
        let dtype = if kind == Jacobian::Forward {
            out_aval.dtype
        } else {
            in_aval.dtype
        };
        // A scalar's derivative by a scalar is a scalar of the same Rust type.
        let scalars =
            matches!(first.spec, TypeSpec::Scalar(_)) && matches!(self.ret, TypeSpec::Scalar(_));
        let spec = if scalars && shape.is_empty() {
            TypeSpec::Scalar(dtype)
        } else {
            TypeSpec::Array {
                aval: Aval {
                    dtype,
                    shape,
                    weak: false,
                },
                by_ref: false,
            }
        };
        let ty = spelled(&spec, self.items);
        let (helper, body) = match self.batched_jacobian(kind, &ty, &spec) {
            Ok(Some(body)) => (TokenStream::new(), body),
            Ok(None) => match self.per_basis_jacobian(kind, &ty, &spec) {
                Ok(b) => b,
                Err(msg) => return self.lazy_error(kind.name(), n, &msg),
            },
            Err(msg) => return self.lazy_error(kind.name(), n, &msg),
        };
        let names = self.param_names();
        let tys = self.param_types();
        let f = format_ident!("{}", kind.name());
        let doc = match kind {
            Jacobian::Forward => "The Jacobian with respect to the first argument, by forward mode (`jax.jacfwd`): the jvp batched over the argument's basis vectors.",
            Jacobian::Reverse => "The Jacobian with respect to the first argument, by reverse mode (`jax.jacrev`): the pullback batched over the output's basis vectors.",
            Jacobian::Hessian => "The Hessian with respect to the first argument (`jax.hessian`, `jacfwd(grad(f))`).",
        };
        let (generics, wh) = self.generics();
        quote! {
            #helper

            #[doc = #doc]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn #f #generics (#(#names: #tys),*) -> #ty #wh {
                #body
            }
        }
    }

    /// `f::jacfwd` / `f::jacrev` of a function returning a pytree of arrays
    /// and scalars (tuples, `[T; N]`): the same tree with each leaf's
    /// Jacobian in its place (the leaf's shape, then the argument's), as
    /// JAX's. A struct output is an error: its fields' types cannot hold
    /// their Jacobians.
    fn tree_jacobian(&self, kind: Jacobian, in_aval: &Aval) -> TokenStream {
        let n = self.params.len();
        let f = &self.fsig.ident;
        let ret = self.ret_text();
        let error = |msg: String| self.lazy_error(kind.name(), n, &msg);
        if !in_aval.dtype.is_float() {
            return error(format!(
                "{kind} requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got {}.",
                in_aval.dtype.name()
            ));
        }
        if kind == Jacobian::Hessian {
            return error(format!(
                "hessian is the Jacobian of the gradient: `{f}` must return a scalar, not {ret}"
            ));
        }
        if let Some(name) = struct_in(&self.ret) {
            return error(format!(
                "the {kind} of `{f}`, which returns {ret}, would be a `{name}` whose fields are their Jacobians (each field's shape, then the argument's), which its fields' types cannot hold: return a tuple of the fields for a tuple of Jacobians"
            ));
        }
        let mut leaf_specs = Vec::new();
        leaves(&self.ret, quote!(), &mut leaf_specs);
        if kind == Jacobian::Reverse {
            if let Some(d) = leaf_specs
                .iter()
                .filter_map(|(_, s)| s.aval())
                .map(|a| a.dtype)
                .find(|d| !d.is_float())
            {
                return error(format!(
                    "jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got {}. For differentiation of functions with integer outputs, use jax.vjp directly. `{f}` returns {ret}: use `{f}::vjp`, or `{f}::jacfwd` (integer outputs' Jacobians are zeros)",
                    d.name()
                ));
            }
        }
        let scalar_in = matches!(self.params[0].spec, TypeSpec::Scalar(_));
        let spec = match jacobian_tree(&self.ret, in_aval, kind, scalar_in) {
            Ok(s) => s,
            Err(rank) => {
                return error(format!(
                    "the {kind} of `{f}` would have a leaf of {rank} dimensions, more than 6"
                ))
            }
        };
        let ty = spelled(&spec, self.items);
        let forward = kind == Jacobian::Forward;
        // As for one output: batched up to the budget, then a loop over the
        // basis calling the `jvp` or `__pullback` companion (which needs
        // plain arguments and an array first: its basis vectors).
        let loops = matches!(self.params[0].spec, TypeSpec::Array { .. })
            && self.params.iter().all(|p| is_array_or_scalar(&p.spec));
        let batched = if loops && self.program.eqns.len() > BATCHED_EQNS {
            Ok(None)
        } else {
            jacobian::jacobian_of_each(self.program, 0, forward, loops, x64(), self.span())
                .map_err(|e| e.to_string())
        };
        let body = match batched {
            Ok(Some(j)) => emit_body(j, &self.params_as_inputs(), &ty, &spec, self.items)
                .map_err(|e| e.to_string())
                .map(|b| (TokenStream::new(), b))
                .and_then(|(h, b)| {
                    if loops && b.to_string().len() > BATCHED_BYTES {
                        self.tree_jacobian_loops(kind, &spec)
                    } else {
                        Ok((h, b))
                    }
                }),
            Ok(None) => self.tree_jacobian_loops(kind, &spec),
            Err(msg) => Err(msg),
        };
        let (helper, body) = match body {
            Ok(b) => b,
            Err(msg) => return error(msg),
        };
        let names = self.param_names();
        let tys = self.param_types();
        let c = format_ident!("{}", kind.name());
        let doc = if forward {
            "The Jacobian of each output with respect to the first argument, by forward mode (`jax.jacfwd`): a tree of the output's structure, each leaf the leaf's shape followed by the argument's."
        } else {
            "The Jacobian of each output with respect to the first argument, by reverse mode (`jax.jacrev`): a tree of the output's structure, each leaf the leaf's shape followed by the argument's."
        };
        let (generics, wh) = self.generics();
        quote! {
            #helper

            #[doc = #doc]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn #c #generics (#(#names: #tys),*) -> #ty #wh {
                #body
            }
        }
    }

    /// A tree Jacobian (`spec`) by a loop at run time over the basis, as
    /// [`Self::per_basis_jacobian`] for one output: forward mode one `jvp`
    /// per element of the (array) first argument, each output leaf's
    /// tangent a column of its Jacobian; reverse mode one `__pullback` per
    /// element of each output leaf, the cotangent one-hot in that leaf and
    /// zero in the others, giving a row of that leaf's Jacobian.
    fn tree_jacobian_loops(
        &self,
        kind: Jacobian,
        spec: &TypeSpec,
    ) -> Result<(TokenStream, TokenStream), String> {
        let first = &self.params[0].owned;
        let basis_ty = if kind == Jacobian::Reverse {
            &self.ret_ty
        } else {
            first
        };
        let (helper, direction) = self.directional(kind, basis_ty)?;
        let mut outs = Vec::new();
        leaves(&self.ret, quote!(__d), &mut outs);
        let mut jacs = Vec::new();
        leaves(spec, quote!(__j), &mut jacs);
        let buffers: Vec<syn::Ident> = (0..outs.len())
            .map(|k| format_ident!("__out{}", k))
            .collect();
        // Each leaf: its Rust type, the number of its elements, its element type.
        let leaf = |s: &TypeSpec| -> (syn::Type, TokenStream, syn::Type) {
            let ty = spelled(s, self.items);
            let dtype = s.aval().expect("a leaf").dtype;
            let elem = rust_type(dtype);
            let size = if matches!(s, TypeSpec::Scalar(_)) {
                quote!(1usize)
            } else {
                quote!(<#ty as ::jax::ArrayType>::SIZE)
            };
            (ty, size, syn::parse_quote!(#elem))
        };
        let mut alloc = Vec::new();
        let mut finish = Vec::new();
        for ((buf, (_, out_spec)), (_, jac_spec)) in buffers.iter().zip(&outs).zip(&jacs) {
            let (_, rows, _) = leaf(out_spec);
            let (jac_ty, _, elem) = leaf(jac_spec);
            alloc.push(quote!(let mut #buf = ::std::vec![<#elem as ::jax::Element>::ZERO; #rows * __cols];));
            finish.push(if matches!(jac_spec, TypeSpec::Scalar(_)) {
                quote!(#buf[0])
            } else {
                quote!(<#jac_ty as ::jax::ArrayType>::from_data(#buf))
            });
        }
        let result = rebuild(spec, &mut finish.into_iter());
        let body = if kind == Jacobian::Reverse {
            // One pass per element of each output leaf.
            let mut passes = Vec::new();
            for (k, buf) in buffers.iter().enumerate() {
                let (_, rows, _) = leaf(&outs[k].1);
                let cts: Vec<TokenStream> = outs
                    .iter()
                    .enumerate()
                    .map(|(i, (_, s))| {
                        let (ty, size, elem) = leaf(s);
                        let one = if i == k {
                            quote!(__e[__r] = <#elem as ::jax::Element>::ONE;)
                        } else {
                            quote!()
                        };
                        if matches!(s, TypeSpec::Scalar(_)) {
                            quote!({ let mut __e = [<#elem as ::jax::Element>::ZERO]; #one __e[0] })
                        } else {
                            quote!({
                                let mut __e = ::std::vec![<#elem as ::jax::Element>::ZERO; #size];
                                #one
                                <#ty as ::jax::ArrayType>::from_data(__e)
                            })
                        }
                    })
                    .collect();
                let basis = rebuild(&self.ret, &mut cts.into_iter());
                passes.push(quote! {
                    for __r in 0..#rows {
                        let __basis: #basis_ty = #basis;
                        let __d = #direction;
                        #buf[__r * __cols..(__r + 1) * __cols].copy_from_slice(::jax::ArrayType::data(&__d));
                    }
                });
            }
            quote!(#(#passes)*)
        } else {
            let in_elem = rust_type(self.params[0].spec.aval().expect("an array").dtype);
            let scatter: Vec<TokenStream> = buffers
                .iter()
                .zip(&outs)
                .map(|(buf, (place, s))| {
                    if matches!(s, TypeSpec::Scalar(_)) {
                        quote!(#buf[__k] = #place;)
                    } else {
                        quote! {
                            for (__i, __v) in ::jax::ArrayType::data(&#place).iter().enumerate() {
                                #buf[__i * __cols + __k] = *__v;
                            }
                        }
                    }
                })
                .collect();
            quote! {
                for __k in 0..__cols {
                    let mut __e = ::std::vec![<#in_elem as ::jax::Element>::ZERO; __cols];
                    __e[__k] = <#in_elem as ::jax::Element>::ONE;
                    let __basis = <#first as ::jax::ArrayType>::from_data(__e);
                    let __d = #direction;
                    #(#scatter)*
                }
            }
        };
        Ok((
            helper,
            quote! {
                // Columns of the argument's size; each leaf's rows are its own.
                let __cols = <#first as ::jax::ArrayType>::SIZE;
                #(#alloc)*
                #body
                #result
            },
        ))
    }

    /// The program a `kind` Jacobian differentiates: the function's, or for
    /// the Hessian its gradient's.
    fn jacobian_base(&self, kind: Jacobian) -> Result<crate::ir::Jaxpr, String> {
        if kind == Jacobian::Hessian {
            ad::grad(self.program, 0, x64(), self.span()).map_err(|e| e.to_string())
        } else {
            Ok(self.program.clone())
        }
    }

    /// The body of a `kind` Jacobian in one batched pass, as JAX computes
    /// it (`jacobian::jacobian_batched`). `Ok(None)`: an equation has no batching
    /// rule yet (or the batched program does not emit); `Err`: why it
    /// cannot be derived.
    fn batched_jacobian(
        &self,
        kind: Jacobian,
        ty: &syn::Type,
        spec: &TypeSpec,
    ) -> Result<Option<TokenStream>, String> {
        let base = self.jacobian_base(kind)?;
        let forward = kind != Jacobian::Reverse;
        // The loop over basis vectors calls the `jvp` and `__pullback`
        // companions, adding no code; a batched body is a copy of the
        // derivative program for rustc to compile, kept to long programs'
        // budget (`BATCHED_BYTES`).
        let loops = kind != Jacobian::Hessian
            && matches!(self.params[0].spec, TypeSpec::Array { .. })
            && matches!(self.ret, TypeSpec::Array { .. });
        if loops && base.eqns.len() > BATCHED_EQNS {
            return Ok(None);
        }
        let Some(jaxpr) = jacobian::jacobian_batched(&base, 0, forward, x64(), self.span())
            .map_err(|e| e.to_string())?
        else {
            return Ok(None);
        };
        let Ok(body) = emit_body(jaxpr, &self.params_as_inputs(), ty, spec, self.items) else {
            return Ok(None);
        };
        if loops && body.to_string().len() > BATCHED_BYTES {
            return Ok(None);
        }
        Ok(Some(body))
    }

    /// The body of a `kind` Jacobian by one pass per basis vector, where it
    /// cannot be batched (and a helper function it calls, if any): with a
    /// scalar argument or output, the passes unrolled in one program; with
    /// arrays, a loop at run time over the directional derivative, compiled
    /// once.
    fn per_basis_jacobian(
        &self,
        kind: Jacobian,
        ty: &syn::Type,
        spec: &TypeSpec,
    ) -> Result<(TokenStream, TokenStream), String> {
        let first = &self.params[0];
        let (Some(in_aval), Some(out_aval)) = (first.spec.aval(), self.ret.aval()) else {
            unreachable!("a Jacobian of arrays or scalars");
        };
        if !matches!(first.spec, TypeSpec::Array { .. })
            || !matches!(self.ret, TypeSpec::Array { .. })
        {
            let base = self.jacobian_base(kind)?;
            let forward = kind != Jacobian::Reverse;
            let jaxpr = jacobian::jacobian_per_basis(&base, 0, forward, x64(), self.span())
                .map_err(|e| e.to_string())?;
            let body = emit_body(jaxpr, &self.params_as_inputs(), ty, spec, self.items)
                .map_err(|e| e.to_string())?;
            return Ok((TokenStream::new(), body));
        }
        // The basis vectors: of the output's type in reverse mode, else of
        // the argument's.
        let basis_ty = if kind == Jacobian::Reverse {
            &self.ret_ty
        } else {
            &first.owned
        };
        let (directional_fn, direction) = self.directional(kind, basis_ty)?;
        let dtype = if kind == Jacobian::Forward {
            out_aval.dtype
        } else {
            in_aval.dtype
        };
        let elem = rust_type(dtype);
        let basis_elem = rust_type(if kind == Jacobian::Reverse {
            out_aval.dtype
        } else {
            in_aval.dtype
        });
        // Rows (reverse mode) fill the result in order; columns (forward
        // mode) are strided by the argument's size.
        let fill = if kind == Jacobian::Reverse {
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
        let lead_ty = if kind == Jacobian::Hessian {
            &first.owned
        } else {
            &self.ret_ty
        };
        let first_ty = &first.owned;
        let body = quote! {
            // The result is `lead ++ argument`: rows of the output's (or,
            // for the Hessian, the argument's) size, columns of the
            // argument's.
            let __rows = <#lead_ty as ::jax::ArrayType>::SIZE;
            let __cols = <#first_ty as ::jax::ArrayType>::SIZE;
            let mut __out = ::std::vec![<#elem as ::jax::Element>::ZERO; __rows * __cols];
            #fill
            <#ty as ::jax::ArrayType>::from_data(__out)
        };
        Ok((directional_fn, body))
    }

    /// Why this function has no `kind` Jacobian (`in_aval` is its first
    /// argument's, `out_aval` its output's), with JAX's message where JAX
    /// has one.
    fn jacobian_misuse(&self, kind: Jacobian, in_aval: &Aval, out_aval: &Aval) -> Option<String> {
        if !in_aval.dtype.is_float() {
            return Some(format!(
                "{kind} requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got {}.",
                in_aval.dtype.name()
            ));
        }
        if kind == Jacobian::Hessian && out_aval.rank() != 0 {
            return Some(format!(
                "hessian is the Jacobian of the gradient: `{}` must return a scalar, not {out_aval}",
                self.fsig.ident
            ));
        }
        if kind.lead(in_aval, out_aval).rank() + in_aval.rank() > 6 {
            return Some(format!(
                "the {kind} of `{}` would have more than 6 dimensions",
                self.fsig.ident
            ));
        }
        if !is_array_or_scalar(&self.params[0].spec) {
            return Some(format!("{kind} differentiates the first argument, which must be an array or a scalar: `{}` takes a struct first", self.fsig.ident));
        }
        None
    }

    /// The directional derivative a per-basis `kind` Jacobian is made of,
    /// compiled once and called per basis vector `__basis: basis_ty` at run time
    /// (nothing is unrolled): the hidden function it calls (none where the
    /// companions `jvp` or `__pullback` serve), and the call. `Err`: why it
    /// cannot be derived.
    fn directional(
        &self,
        kind: Jacobian,
        basis_ty: &syn::Type,
    ) -> Result<(TokenStream, TokenStream), String> {
        let first = &self.params[0];
        let mut first_only = vec![false; self.params.len()];
        first_only[0] = true;
        let wrt = self.per_leaf(&first_only).inputs;
        let base = if kind == Jacobian::Hessian {
            ad::grad(self.program, 0, x64(), self.span())
        } else {
            Ok(self.program.clone())
        };
        let directional = base.and_then(|b| {
            if kind == Jacobian::Reverse {
                ad::vjp(&b, &Wrt { inputs: wrt }, Seed::Inputs, x64(), self.span())
            } else {
                ad::jvp(&b, &Wrt { inputs: wrt }, x64(), self.span())
            }
        });
        let mut jaxpr = directional.map_err(|e| e.to_string())?;
        // Keep only the derivative (after the primal outputs).
        let n_primal = jaxpr.outvars.len() - 1;
        jaxpr.outvars.drain(..n_primal);
        let names = self.param_names();
        let turbofish = self.turbofish();
        // A Jacobian of plain arguments is made of the companions `jvp` and
        // `__pullback` already hold (the other arguments' tangents zero, their
        // cotangents dropped), rather than a third and fourth copy of the
        // derivative program for rustc to check: one pass per basis vector
        // either way, each computing the other arguments' part too.
        let plain = self.params.iter().all(|p| is_array_or_scalar(&p.spec));
        match kind {
            Jacobian::Forward if plain => {
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
                let call = quote!(jvp #turbofish ((#(::core::clone::Clone::clone(&#names),)*), (#(#tangents,)*)).1);
                return Ok((TokenStream::new(), call));
            }
            Jacobian::Reverse if plain => {
                let leaves = self.params.iter().map(|p| {
                    let name = &p.name;
                    if p.by_ref {
                        quote!(::core::clone::Clone::clone(#name))
                    } else {
                        quote!(::core::clone::Clone::clone(&#name))
                    }
                });
                let call = quote!(__pullback #turbofish (#(#leaves,)* __basis).0);
                return Ok((TokenStream::new(), call));
            }
            _ => {}
        }
        // A row (reverse mode) is of the argument's type; a column of the
        // output's, or for the Hessian (of the gradient), the argument's.
        let (dir_name, dir_ty, dir_spec) = match kind {
            Jacobian::Reverse => (
                format_ident!("__{}_row", kind.name()),
                &first.owned,
                &first.spec,
            ),
            Jacobian::Hessian => (
                format_ident!("__{}_column", kind.name()),
                &first.owned,
                &first.spec,
            ),
            Jacobian::Forward => (
                format_ident!("__{}_column", kind.name()),
                &self.ret_ty,
                &self.ret,
            ),
        };
        let mut inputs = self.params_as_inputs();
        let basis_spec = if kind == Jacobian::Reverse {
            &self.ret
        } else {
            &first.spec
        };
        inputs.push((quote!(__basis), basis_spec.clone()));
        let body =
            emit_body(jaxpr, &inputs, dir_ty, dir_spec, self.items).map_err(|e| e.to_string())?;
        let (generics, wh) = self.generics();
        let tys = self.param_types();
        let function = quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case)]
            pub fn #dir_name #generics (#(#names: #tys,)* __basis: #basis_ty) -> #dir_ty #wh {
                #body
            }
        };
        let call = quote!(#dir_name #turbofish (#(::core::clone::Clone::clone(&#names),)* __basis));
        Ok((function, call))
    }
}
