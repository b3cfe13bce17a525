//! Control flow on values known when the function compiles, resolved at
//! trace time as JAX traces Python's: `if` and `match` pick their branch,
//! `for i in lo..hi` is unrolled. A traced condition is JAX's
//! TracerBoolConversionError, pointing to `lax::cond` and friends
//! (`bodies/lax_control.rs`).

use std::collections::HashMap;

use syn::spanned::Spanned;

use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{err, Result};
use crate::ir::Scalar;

impl Tracer {
    /// A condition known now (`what` is the `if` or `while` that needs it).
    pub(crate) fn static_bool(&mut self, cond: &syn::Expr, what: &str) -> Result<bool> {
        match self.expr(cond)? {
            Value::Static(Scalar::Bool(b)) => Ok(b),
            Value::Traced(a) => {
                let aval = self.b.aval(&a);
                Err(syn::Error::new_spanned(
                    cond,
                    format!(
                        "TracerBoolConversionError: Attempted boolean conversion of traced array with shape {aval}. \
                         `{what}` needs a concrete bool, but this value depends on the function's arguments; \
                         use {} instead",
                        if what == "while" { "lax::while_loop" } else { "lax::cond, lax::switch or jnp::where_" }
                    ),
                ))
            }
            _ => err(cond.span(), "expected a bool"),
        }
    }

    pub(crate) fn if_(&mut self, i: &syn::ExprIf) -> Result<Value> {
        if self.static_bool(&i.cond, "if")? {
            self.block(&i.then_branch)
        } else if let Some((_, e)) = &i.else_branch {
            self.expr(e)
        } else {
            Ok(Value::Unit)
        }
    }

    pub(crate) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Result<Value> {
        if !matches!(&*f.expr, syn::Expr::Range(_)) {
            if let Some(items) = self.static_items(&f.expr)? {
                // A Rust array of pytrees (`for layer in &layers`), unrolled.
                let mut unrolled = Unrolled::new(self);
                let n = items.len() as i128;
                for (i, item) in items.into_iter().enumerate() {
                    self.scopes.push(HashMap::new());
                    let r = self
                        .bind_pattern(&f.pat, item)
                        .and_then(|_| self.block(&f.body));
                    self.scopes.pop();
                    r?;
                    unrolled.check(self, f, i as i128 + 1, n)?;
                }
                return Ok(Value::Unit);
            }
        }
        let syn::Expr::Range(r) = &*f.expr else {
            return Err(syn::Error::new_spanned(
                &f.expr,
                "iterators are not supported in #[jax::jit]: loop over a static range `for i in 0..N`, or use lax::fori_loop / lax::scan",
            ));
        };
        let bound = |t: &mut Tracer, e: &Option<Box<syn::Expr>>| -> Result<i128> {
            match e {
                None => err(r.span(), "a loop needs both bounds: `for i in 0..N`"),
                Some(e) => match t.expr(e)? {
                    Value::Static(Scalar::Int(n)) => Ok(n),
                    Value::Symbolic(sym) => err(
                        e.span(),
                        format!("a `for` loop over `{}` would be unrolled when the function is traced, but the tracer does not know this const generic's value; use lax::fori_loop (or a literal or const bound)", sym.expr),
                    ),
                    _ => err(
                        e.span(),
                        "TracerIntegerConversionError: a loop bound must be static (a literal or const), but this one is traced; for a traced bound use lax::fori_loop",
                    ),
                },
            }
        };
        let lo = bound(self, &r.start)?;
        let mut hi = bound(self, &r.end)?;
        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
            hi += 1;
        }
        let syn::Pat::Ident(var) = &*f.pat else {
            return err(f.pat.span(), "name the loop index: `for i in 0..N`");
        };
        // Unrolled at trace time, as JAX traces a Python loop.
        let mut unrolled = Unrolled::new(self);
        for i in lo..hi {
            self.scopes.push(HashMap::new());
            self.define(&var.ident.to_string(), Value::Static(Scalar::Int(i)));
            let r = self.block(&f.body);
            self.scopes.pop();
            r?;
            unrolled.check(self, f, i - lo + 1, hi - lo)?;
        }
        Ok(Value::Unit)
    }

    /// The items of a Rust array a `for` loop iterates over (`&layers`,
    /// `p.layers.iter()`), or `None` when it is not one.
    fn static_items(&mut self, e: &syn::Expr) -> Result<Option<Vec<Value>>> {
        let e = match e {
            syn::Expr::Reference(r) => &*r.expr,
            syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => &*m.receiver,
            e => e,
        };
        if !matches!(e, syn::Expr::Path(_) | syn::Expr::Field(_)) {
            return Ok(None);
        }
        Ok(match self.expr(e)? {
            Value::List(items) => Some(items),
            _ => None,
        })
    }

    /// `match` on a static value: the first arm whose pattern matches.
    pub(crate) fn match_(&mut self, m: &syn::ExprMatch) -> Result<Value> {
        let v = self.expr(&m.expr)?;
        let Value::Static(s) = v else {
            return err(
                m.expr.span(),
                "TracerBoolConversionError: `match` needs a value known at compile time, but this one is traced; use lax::switch or jnp::where_",
            );
        };
        for arm in &m.arms {
            if arm.guard.is_some() {
                return err(arm.span(), "match guards are not supported in #[jax::jit]");
            }
            if let Some(bind) = pattern_matches(&arm.pat, s)? {
                self.scopes.push(HashMap::new());
                if let Some(name) = bind {
                    self.define(&name, Value::Static(s));
                }
                let r = self.expr(&arm.body);
                self.scopes.pop();
                return r;
            }
        }
        err(m.span(), "no arm matches this value")
    }
}

/// Whether a pattern matches a static scalar: `Some(binding)` if it does.
fn pattern_matches(p: &syn::Pat, s: crate::ir::Scalar) -> Result<Option<Option<String>>> {
    use crate::ir::Scalar;
    let lit_value = |e: &syn::Expr| -> Result<Scalar> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => Ok(Scalar::Int(i.base10_parse()?)),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(b),
                ..
            }) => Ok(Scalar::Bool(b.value)),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match &*u.expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => Ok(Scalar::Int(-i.base10_parse::<i128>()?)),
                other => err(
                    other.span(),
                    "match patterns are literals, ranges, `_` or names",
                ),
            },
            other => err(
                other.span(),
                "match patterns are literals, ranges, `_` or names",
            ),
        }
    };
    Ok(match p {
        syn::Pat::Wild(_) => Some(None),
        syn::Pat::Ident(id) if id.subpat.is_none() => Some(Some(id.ident.to_string())),
        syn::Pat::Lit(l) => (lit_value(&syn::Expr::Lit(l.clone()))? == s).then_some(None),
        syn::Pat::Or(o) => {
            for case in &o.cases {
                if let Some(b) = pattern_matches(case, s)? {
                    return Ok(Some(b));
                }
            }
            None
        }
        syn::Pat::Range(r) => {
            let (Scalar::Int(v), lo, hi) = (
                s,
                r.start.as_ref().map(|e| lit_value(e)).transpose()?,
                r.end.as_ref().map(|e| lit_value(e)).transpose()?,
            ) else {
                return err(r.span(), "range patterns match integers");
            };
            let ge = match lo {
                Some(Scalar::Int(l)) => v >= l,
                _ => true,
            };
            let lt = match (hi, &r.limits) {
                (Some(Scalar::Int(h)), syn::RangeLimits::HalfOpen(_)) => v < h,
                (Some(Scalar::Int(h)), syn::RangeLimits::Closed(_)) => v <= h,
                _ => true,
            };
            (ge && lt).then_some(None)
        }
        other => {
            return err(
                other.span(),
                "match patterns are literals, ranges, `_` or names",
            )
        }
    })
}

/// The equations a `for` loop has unrolled into so far, checked against
/// `limits::MAX_UNROLLED_EQUATIONS` after each iteration, so a loop
/// that would build for minutes is an error at once.
struct Unrolled {
    /// The builder's equations when the loop started, then when the last
    /// iteration was counted.
    seen: usize,
    /// The equations of the iterations so far, nested programs included.
    total: usize,
}

impl Unrolled {
    fn new(t: &Tracer) -> Unrolled {
        Unrolled {
            seen: t.b.jaxpr.eqns.len(),
            total: 0,
        }
    }

    fn check(&mut self, t: &Tracer, f: &syn::ExprForLoop, done: i128, of: i128) -> Result<()> {
        use crate::limits::MAX_UNROLLED_EQUATIONS;
        let eqns = &t.b.jaxpr.eqns;
        // A nested program may be bound over earlier equations only by the
        // builder that made them, so the new ones are those past `seen`.
        self.total += crate::ir::eqn_count(&eqns[self.seen.min(eqns.len())..]);
        self.seen = eqns.len();
        if self.total <= MAX_UNROLLED_EQUATIONS {
            return Ok(());
        }
        let estimate = (self.total as i128 / done.max(1)) * of;
        Err(syn::Error::new(
            f.for_token.span,
            format!(
                "this `for` loop unrolls into more than {MAX_UNROLLED_EQUATIONS} equations \
                 ({} after {done} of its {of} iterations, about {estimate} in all): a loop over a \
                 static range is unrolled when the function is traced, as JAX unrolls a Python loop, \
                 and a program this long takes rustc minutes to build. Write it as \
                 `lax::fori_loop(lo, hi, |i, carry| .., init)` or `lax::scan`, which compile the \
                 body once",
                self.total
            ),
        ))
    }
}
