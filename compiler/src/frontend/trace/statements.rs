//! Blocks and statements: `let` bindings and their patterns, written types
//! checked against values, and the error accumulation that lets one build
//! report every independent error (a failed `let` poisons its names).

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::{is_poisoned, poisoned, Tracer};
use crate::frontend::trace::types::{type_spec_in, TypeSpec};
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};
use crate::ir::{Aval, Dim};
use jax_dtypes::DType;

impl Tracer {
    pub(crate) fn block(&mut self, block: &syn::Block) -> Result<Value> {
        self.block_with_tail_hint(block, None)
    }

    /// A block whose tail expression has the written type `tail` (the function body).
    pub(crate) fn block_with_tail_hint(
        &mut self,
        block: &syn::Block,
        tail: Option<TypeSpec>,
    ) -> Result<Value> {
        self.scopes.push(HashMap::new());
        let r = self.stmts(&block.stmts, tail);
        self.scopes.pop();
        r
    }

    /// Statements in order. A failing statement is reported and tracing
    /// goes on, so one build shows every independent error; names it would
    /// have defined are poisoned, so their uses add no secondary errors.
    fn stmts(&mut self, stmts: &[syn::Stmt], tail: Option<TypeSpec>) -> Result<Value> {
        let mut last = Value::Unit;
        let mut errors: Option<syn::Error> = None;
        let mut saw_poison = false;
        for (i, stmt) in stmts.iter().enumerate() {
            last = Value::Unit;
            let r = match stmt {
                syn::Stmt::Local(local) => self.local(local).inspect_err(|_| {
                    self.poison_pattern(&local.pat);
                }),
                syn::Stmt::Expr(e, semi) => {
                    let is_tail = semi.is_none() && i + 1 == stmts.len();
                    if is_tail {
                        self.hint = tail.clone();
                    }
                    self.expr(e).map(|v| {
                        if is_tail {
                            last = v;
                        }
                    })
                }
                syn::Stmt::Item(item) => err(
                    item.span(),
                    "items inside a #[jax::jit] body are not supported; define them in a #[jax::jit] mod",
                ),
                syn::Stmt::Macro(m) => self.mac(&m.mac).map(|_| ()),
            };
            if let Err(e) = r {
                for e in e {
                    if is_poisoned(&e) {
                        saw_poison = true;
                    } else if let Some(all) = &mut errors {
                        all.combine(e);
                    } else {
                        errors = Some(e);
                    }
                }
            }
        }
        match errors {
            Some(e) => Err(e),
            None if saw_poison => Err(poisoned()),
            None => Ok(last),
        }
    }

    /// Marks the names a failed `let` would have bound.
    fn poison_pattern(&mut self, pat: &syn::Pat) {
        match pat {
            syn::Pat::Ident(id) => self.define(&id.ident.to_string(), Value::Poison),
            syn::Pat::Type(pt) => self.poison_pattern(&pt.pat),
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| self.poison_pattern(p)),
            syn::Pat::Slice(t) => t.elems.iter().for_each(|p| self.poison_pattern(p)),
            _ => {}
        }
    }

    fn local(&mut self, local: &syn::Local) -> Result<()> {
        let Some(init) = &local.init else {
            return err(local.span(), "give the variable a value: `let x = ...;`");
        };
        if let Some((_, diverge)) = &init.diverge {
            return err(
                diverge.span(),
                "`let ... else` is not supported in #[jax::jit]",
            );
        }
        if let syn::Pat::Type(pt) = &local.pat {
            self.hint = type_spec_in(&pt.ty, &self.items).ok();
        }
        // `let [a, b] = random::split(k);`, `let ks: [Key; 3] = ..`.
        if let Some(keys) = key_array_hint(self, &local.pat) {
            self.hint = Some(keys);
        }
        let v = self.expr(&init.expr)?;
        self.bind_pattern(&local.pat, v)
    }

    /// Binds a pattern of a `let` or a closure parameter (a name, `_`, a
    /// typed name or a tuple).
    pub(crate) fn bind_pattern(&mut self, pat: &syn::Pat, v: Value) -> Result<()> {
        match pat {
            syn::Pat::Ident(id) => {
                self.define(&id.ident.to_string(), v);
                Ok(())
            }
            syn::Pat::Wild(_) => Ok(()),
            syn::Pat::Type(pt) if matches!(&*pt.ty, syn::Type::Array(_)) => {
                self.bind_pattern(&pt.pat, v)
            }
            syn::Pat::Slice(sl) => {
                let Value::List(items) = v else {
                    return err(sl.span(), "this value is not a Rust array");
                };
                if items.len() != sl.elems.len() {
                    return err(
                        sl.span(),
                        format!(
                            "expected an array of {} values, got {}",
                            sl.elems.len(),
                            items.len()
                        ),
                    );
                }
                for (p, v) in sl.elems.iter().zip(items) {
                    self.bind_pattern(p, v)?;
                }
                Ok(())
            }
            syn::Pat::Type(pt) => {
                let want = type_spec_in(&pt.ty, &self.items)?;
                let v = self.check_type(v, &want, pt.ty.span())?;
                self.bind_pattern(&pt.pat, v)
            }
            syn::Pat::Tuple(t) => {
                let Value::Tuple(items) = v else {
                    return err(t.span(), "this value is not a tuple");
                };
                if items.len() != t.elems.len() {
                    return err(
                        t.span(),
                        format!(
                            "expected a tuple of {} values, got {}",
                            t.elems.len(),
                            items.len()
                        ),
                    );
                }
                for (p, v) in t.elems.iter().zip(items) {
                    self.bind_pattern(p, v)?;
                }
                Ok(())
            }
            other => err(other.span(), "use a name or a tuple of names here"),
        }
    }

    /// Checks a value against a written type; weak values adapt to it.
    pub(crate) fn check_type(&mut self, v: Value, want: &TypeSpec, span: Span) -> Result<Value> {
        match want {
            TypeSpec::Tuple(ts) => {
                let Value::Tuple(items) = v else {
                    return err(span, "expected a tuple");
                };
                if items.len() != ts.len() {
                    return err(
                        span,
                        format!(
                            "expected a tuple of {} values, got {}",
                            ts.len(),
                            items.len()
                        ),
                    );
                }
                let items = items
                    .into_iter()
                    .zip(ts)
                    .map(|(v, t)| self.check_type(v, t, span))
                    .collect::<Result<_>>()?;
                Ok(Value::Tuple(items))
            }
            TypeSpec::List(ts) => {
                let Value::List(items) = v else {
                    return err(
                        span,
                        format!("expected a Rust array of {} values", ts.len()),
                    );
                };
                if items.len() != ts.len() {
                    return err(
                        span,
                        format!(
                            "expected a Rust array of {} values, got {}",
                            ts.len(),
                            items.len()
                        ),
                    );
                }
                let items = items
                    .into_iter()
                    .zip(ts)
                    .map(|(v, t)| self.check_type(v, t, span))
                    .collect::<Result<_>>()?;
                Ok(Value::List(items))
            }
            TypeSpec::Struct { name, fields } => {
                let Value::Struct(got_name, values) = v else {
                    return err(span, format!("expected a `{name}`"));
                };
                if &got_name != name {
                    return err(span, format!("expected a `{name}`, got a `{got_name}`"));
                }
                let values = values
                    .into_iter()
                    .zip(fields)
                    .map(|((f, v), (_, t))| Ok((f, self.check_type(v, t, span)?)))
                    .collect::<Result<_>>()?;
                Ok(Value::Struct(got_name, values))
            }
            _ => {
                let want_aval = want.aval().unwrap();
                let a = self.atom(v, span)?;
                let got = self.b.aval(&a);
                let same = got.shape.len() == want_aval.shape.len()
                    && got.shape.iter().zip(&want_aval.shape).all(|(x, y)| {
                        crate::ir::shapes::same_dim(
                            x,
                            y,
                            &format!("the value is {got} but the type says {want_aval}"),
                            &mut self.b.constraints,
                        )
                    });
                if !same {
                    return err(
                        span,
                        format!(
                            "mismatched shapes: the value is {got} but the type is {want_aval}"
                        ),
                    );
                }
                if got.dtype != want_aval.dtype {
                    if !got.weak {
                        return err(
                            span,
                            format!(
                                "mismatched dtypes: the value is {got} but the type is {want_aval}; convert with `.astype::<{}>()`",
                                crate::ir::rust_type(want_aval.dtype)
                            ),
                        );
                    }
                    let a = jnp::convert(&mut self.b, a, want_aval.dtype, got.weak, span)?;
                    return Ok(Value::Traced(a));
                }
                Ok(Value::Traced(a))
            }
        }
    }
}

/// The hint `random::split` reads its count from: `n` keys.
fn keys_hint(n: usize) -> TypeSpec {
    TypeSpec::Tuple(vec![TypeSpec::Key; n])
}

/// `split::<N>`: `N` a number, a const of the mod, or a const generic (the
/// keys then are one key array, `u32[N, 2]`, as JAX's `split(k, n)`).
pub(crate) fn key_count_hint(t: &Tracer, n: &syn::Expr) -> Option<TypeSpec> {
    match t.const_size(n).ok()?? {
        Dim::Lit(n) => Some(keys_hint(n)),
        n @ Dim::Sym(_) => Some(TypeSpec::Array {
            aval: Aval {
                dtype: DType::U32,
                shape: vec![n, Dim::Lit(2)],
                weak: false,
            },
            by_ref: false,
        }),
    }
}

/// The count a generic argument of `split::<N>` gives (a bare `N` parses
/// as a type).
pub(crate) fn key_count_arg(t: &Tracer, g: &syn::GenericArgument) -> Option<TypeSpec> {
    match g {
        syn::GenericArgument::Const(e) => key_count_hint(t, e),
        syn::GenericArgument::Type(syn::Type::Path(p)) if p.path.get_ident().is_some() => {
            let e = syn::Expr::Path(syn::ExprPath {
                attrs: vec![],
                qself: None,
                path: p.path.clone(),
            });
            key_count_hint(t, &e)
        }
        _ => None,
    }
}

/// The count of keys a `let` pattern asks for: `[a, b]`, or a written
/// `[Key; N]`.
pub(crate) fn key_array_hint(t: &Tracer, pat: &syn::Pat) -> Option<TypeSpec> {
    match pat {
        syn::Pat::Slice(s) => Some(keys_hint(s.elems.len())),
        syn::Pat::Type(pt) => match &*pt.ty {
            syn::Type::Array(a) if is_key_type(&a.elem) => key_count_hint(t, &a.len),
            syn::Type::Array(_) => None,
            _ => key_array_hint(t, &pt.pat),
        },
        _ => None,
    }
}

/// `Key` or `random::Key`.
fn is_key_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Key"),
        syn::Type::Group(g) => is_key_type(&g.elem),
        _ => false,
    }
}
