//! Static indexing inside `#[jax::jit]`: `x.at(i).get()` with integer
//! indices (negative from the end, out of bounds clamped, as JAX's gathers)
//! and `x.slice(s![a..b;step, ..])`, lowered to `slice` and `squeeze` as JAX
//! lowers static indexing.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{Item, Value};
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, Params};
use jax_core::lax::Lax;

struct SItem {
    expr: syn::Expr,
    step: Option<syn::Expr>,
}

impl Parse for SItem {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let expr: syn::Expr = input.parse()?;
        let step = if input.peek(syn::Token![;]) {
            input.parse::<syn::Token![;]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(SItem { expr, step })
    }
}

impl Tracer {
    fn static_index(&mut self, e: &syn::Expr) -> Result<Option<i128>> {
        Ok(match self.expr(e)? {
            Value::Static(Scalar::Int(i)) => Some(i),
            Value::Traced(_) => {
                return Err(syn::Error::new_spanned(
                    e,
                    "Slice entries must be static integers: a traced bound would make the result's shape depend on run-time values. \
                     Use literals, consts or static loop indices; for a window of static size at a traced start write `let w: Array<f32, 3> = lax::dynamic_slice(&x, &[i]);` (the window's size is its type) or `lax::dynamic_slice_in_dim(&x, i, 3, 0)`",
                ))
            }
            _ => return err(e.span(), "an index must be an integer"),
        })
    }

    /// The items of `s![..]`.
    fn s_macro(&mut self, m: &syn::Macro) -> Result<Vec<Item>> {
        let items = m.parse_body_with(Punctuated::<SItem, syn::Token![,]>::parse_terminated)?;
        let mut out = Vec::new();
        for it in items {
            let step = match &it.step {
                Some(s) => self.static_index(s)?.unwrap_or(1),
                None => 1,
            };
            if step <= 0 {
                return err(
                    it.expr.span(),
                    "negative or zero steps are not supported in #[jax::jit] yet",
                );
            }
            match &it.expr {
                syn::Expr::Range(r) => {
                    let bound =
                        |t: &mut Tracer, b: &Option<Box<syn::Expr>>| -> Result<Option<i128>> {
                            match b {
                                Some(e) => t.static_index(e),
                                None => Ok(None),
                            }
                        };
                    let start = bound(self, &r.start)?;
                    let mut end = bound(self, &r.end)?;
                    if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                        end = end.map(|e| e + 1);
                    }
                    out.push(Item::Range { start, end, step });
                }
                e => match self.static_index(e)? {
                    Some(i) if it.step.is_none() => out.push(Item::Int(i)),
                    _ => return err(e.span(), "a step applies to a range: `a..b;step`"),
                },
            }
        }
        Ok(out)
    }

    /// The items of an `x.at(..)` index: an integer (static or traced), a
    /// tuple of them, or `s![..]`.
    pub(crate) fn index_items(&mut self, e: &syn::Expr) -> Result<Vec<Item>> {
        match e {
            syn::Expr::Macro(m) if m.mac.path.is_ident("s") => self.s_macro(&m.mac),
            syn::Expr::Tuple(t) => t
                .elems
                .iter()
                .map(|e| match e {
                    syn::Expr::Range(r) => self.range_item(r),
                    e => self.int_item(e),
                })
                .collect(),
            e => Ok(vec![self.int_item(e)?]),
        }
    }

    /// A range in an index tuple (`(idx, ..)`, `(1..3, i)`): static bounds.
    fn range_item(&mut self, r: &syn::ExprRange) -> Result<Item> {
        let mut bound = |b: &Option<Box<syn::Expr>>| -> Result<Option<i128>> {
            match b {
                Some(e) => self.static_index(e),
                None => Ok(None),
            }
        };
        let start = bound(&r.start)?;
        let mut end = bound(&r.end)?;
        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
            end = end.map(|e| e + 1);
        }
        Ok(Item::Range {
            start,
            end,
            step: 1,
        })
    }

    fn int_item(&mut self, e: &syn::Expr) -> Result<Item> {
        match self.expr(e)? {
            Value::Static(Scalar::Int(i)) => Ok(Item::Int(i)),
            Value::Traced(a) if self.b.aval(&a).rank() == 0 && self.b.aval(&a).dtype.is_integer() => {
                Ok(Item::Dynamic(a))
            }
            Value::Traced(a) if self.b.aval(&a).rank() > 0 && self.b.aval(&a).dtype.is_integer() => {
                Ok(Item::Array(a))
            }
            Value::Traced(a) => err(
                e.span(),
                format!(
                    "an index must be an integer or an integer array, got {}; convert it with `.astype::<i32>()` (JAX: \"Indexer must have integer or boolean type\")",
                    self.b.aval(&a)
                ),
            ),
            _ => err(
                e.span(),
                "an index must be an integer, an integer array, a range, or a tuple of them",
            ),
        }
    }

    /// `x.at(i).get()` with traced integers: negative positions count from
    /// the end (`select_n(i < 0, i, i + n)`), then `dynamic_slice` (which
    /// clamps into bounds) and `squeeze`, as JAX lowers a traced index.
    fn dynamic_get(&mut self, x: Atom, items: &[Item], span: Span) -> Result<Atom> {
        let a = self.b.aval(&x);
        if items.len() > a.rank() {
            return err(
                span,
                format!("too many indices for {a}: {} given", items.len()),
            );
        }
        let i32 = jax_dtypes::DType::I32;
        let lit = |v: i128| crate::ir::builder::literal(Scalar::Int(v), Aval::scalar(i32, true));
        let mut starts = Vec::new();
        let mut sizes = Vec::new();
        for k in 0..a.rank() {
            let Dim::Lit(n) = a.shape[k] else {
                return err(
                    span,
                    format!(
                        "indexing an axis of symbolic size {} is not supported",
                        a.shape[k]
                    ),
                );
            };
            match items.get(k) {
                None => {
                    starts.push(lit(0));
                    sizes.push(n);
                }
                Some(Item::Int(i)) => {
                    starts.push(lit(if *i < 0 { i + n as i128 } else { *i }));
                    sizes.push(1);
                }
                Some(Item::Dynamic(i)) if self.b.aval(i).dtype.kind() == jax_dtypes::Kind::UInt => {
                    // JAX's `_normalize_index`: an unsigned index is never
                    // negative, so it goes to `dynamic_slice` as it is, which
                    // clamps it (converting it to int32 would wrap it).
                    starts.push(i.clone());
                    sizes.push(1);
                }
                Some(Item::Dynamic(i)) => {
                    let neg = crate::frontend::trace::jnp::binary(
                        &mut self.b,
                        &prims::LT,
                        i.clone(),
                        lit(0),
                        span,
                    )?;
                    let strong = self.at(span).convert_element_type(i.clone(), i32, false)?;
                    let wrapped = crate::frontend::trace::jnp::binary(
                        &mut self.b,
                        &prims::ADD,
                        strong.clone(),
                        lit(n as i128),
                        span,
                    )?;
                    // An int32 index is selected as it is (JAX's jaxpr); a
                    // wider one (int64 with x64) as converted, so both
                    // cases have one dtype.
                    let as_is = if self.b.aval(i).dtype == i32 {
                        i.clone()
                    } else {
                        strong
                    };
                    starts.push(
                        self.at(span)
                            .apply(&prims::SELECT_N, vec![neg, as_is, wrapped])?,
                    );
                    sizes.push(1);
                }
                Some(Item::Range { .. } | Item::Array(_)) => {
                    return err(
                        span,
                        "slices with a traced index are not supported in #[jax::jit] yet",
                    );
                }
            }
        }
        let mut ins = vec![x];
        ins.extend(starts);
        let sliced = self.b.bind1(
            &prims::DYNAMIC_SLICE,
            Params::DynamicSlice { sizes },
            ins,
            span,
        )?;
        let squeeze: Vec<usize> = (0..items.len()).collect();
        self.at(span).squeeze(sliced, squeeze)
    }

    /// `x.at(index).set(v)` (or `add`, `mul`, `min`, `max`) with integer
    /// indices on the leading axes: JAX's `scatter`, whose indices operand is
    /// built from the literals as JAX builds it. Negative indices count from
    /// the end; an index out of bounds drops the update.
    pub(crate) fn static_update(
        &mut self,
        x: Atom,
        items: &[Item],
        kind: &str,
        v: Atom,
        mode: crate::prims::IndexMode,
        span: Span,
    ) -> Result<Atom> {
        let prim: crate::prims::Prim = match kind {
            "set" => &prims::SCATTER,
            "add" => &prims::SCATTER_ADD,
            "mul" => &prims::SCATTER_MUL,
            "min" => &prims::SCATTER_MIN,
            "max" => &prims::SCATTER_MAX,
            other => {
                return err(
                    span,
                    format!("`.at(i).{other}(v)` does not exist; use set, add, mul, min or max"),
                )
            }
        };
        self.indexed_update(x, items, prim, v, mode, span)
    }

    /// `x[index]` read as JAX reads a static index: integers clamp into
    /// range (negative ones count from the end first), ranges clamp as
    /// Python slices; then `slice` and `squeeze`.
    pub(crate) fn static_get(&mut self, x: Atom, items: &[Item], span: Span) -> Result<Atom> {
        if Self::has_index_array(items) {
            return self.gather_get(x, items, None, None, span);
        }
        if items.iter().any(|i| matches!(i, Item::Dynamic(_))) {
            return self.dynamic_get(x, items, span);
        }
        let a = self.b.aval(&x);
        if items.len() > a.rank() {
            return err(
                span,
                format!("too many indices for {a}: {} given", items.len()),
            );
        }
        let mut start = Vec::new();
        let mut limit = Vec::new();
        let mut strides = Vec::new();
        let mut squeeze = Vec::new();
        for k in 0..a.rank() {
            let Dim::Lit(n) = a.shape[k] else {
                return err(
                    span,
                    format!(
                        "indexing an axis of symbolic size {} is not supported",
                        a.shape[k]
                    ),
                );
            };
            let n = n as i128;
            match items.get(k) {
                None => {
                    start.push(0);
                    limit.push(n as usize);
                    strides.push(1);
                }
                Some(Item::Dynamic(_) | Item::Array(_)) => {
                    unreachable!("traced indices go through dynamic_get, arrays through gather_get")
                }
                Some(Item::Int(i)) => {
                    let i = if *i < 0 { i + n } else { *i };
                    let i = i.clamp(0, (n - 1).max(0));
                    start.push(i as usize);
                    limit.push(i as usize + 1);
                    strides.push(1);
                    squeeze.push(k);
                }
                Some(Item::Range {
                    start: s,
                    end: e,
                    step,
                }) => {
                    let norm = |v: i128| if v < 0 { (v + n).max(0) } else { v.min(n) };
                    let s = s.map_or(0, norm);
                    let e = e.map_or(n, norm).max(s);
                    start.push(s as usize);
                    limit.push(e as usize);
                    strides.push(*step as usize);
                }
            }
        }
        let whole = start.iter().all(|&s| s == 0)
            && limit.iter().zip(&a.shape).all(|(&l, d)| Dim::Lit(l) == *d)
            && strides.iter().all(|&s| s == 1);
        let sliced = if whole {
            x
        } else {
            let strides = if strides.iter().all(|&s| s == 1) {
                None
            } else {
                Some(strides)
            };
            self.at(span).slice(x, start, limit, strides)?
        };
        if squeeze.is_empty() {
            Ok(sliced)
        } else {
            self.at(span).squeeze(sliced, squeeze)
        }
    }
}
