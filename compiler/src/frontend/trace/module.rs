//! Tracing inside a `#[jax::jit] mod`: struct fields and literals (pytrees),
//! const items, and calls of the mod's functions and methods, which are
//! inlined at trace time as JAX inlines Python calls.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::trace::signature::signature_in;
use crate::frontend::trace::tracer::{Tracer, MAX_DEPTH};
use crate::frontend::trace::types::TypeSpec;
use crate::frontend::trace::value::{Symbolic, Value};
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Dim, Scalar, Var};

impl Tracer {
    /// `p.w`: a struct field, or `t.0`: a tuple element.
    pub(crate) fn field(&mut self, f: &syn::ExprField) -> Result<Value> {
        let base = self.expr(&f.base)?;
        match (&f.member, base) {
            (syn::Member::Named(name), Value::Struct(s, fields)) => fields
                .into_iter()
                .find(|(n, _)| name == n)
                .map(|(_, v)| v)
                .ok_or_else(|| {
                    syn::Error::new(name.span(), format!("`{s}` has no field `{name}`"))
                }),
            (syn::Member::Unnamed(i), Value::Tuple(items)) => {
                items.get(i.index as usize).cloned().ok_or_else(|| {
                    syn::Error::new(i.span(), format!("the tuple has {} elements", items.len()))
                })
            }
            (m, _) => err(m.span(), "this value has no such field"),
        }
    }

    /// `Params { w: .., b: .. }`: fields in the declared order.
    pub(crate) fn struct_literal(&mut self, st: &syn::ExprStruct) -> Result<Value> {
        let name = st.path.segments.last().unwrap().ident.to_string();
        let name = if name == "Self" {
            self.self_name().unwrap_or(name)
        } else {
            name
        };
        let items = self.items.clone();
        let Some(decl) = items.structs.get(&name) else {
            return err(
                st.path.span(),
                format!("`{name}` is not a struct of this #[jax::jit] mod"),
            );
        };
        if let Some(rest) = &st.rest {
            return err(rest.span(), "`..base` is not supported: write every field");
        }
        let mut given: HashMap<String, (Value, Span)> = HashMap::new();
        for fv in &st.fields {
            let syn::Member::Named(f) = &fv.member else {
                return err(fv.member.span(), "name the field");
            };
            let v = self.expr(&fv.expr)?;
            given.insert(f.to_string(), (v, fv.span()));
        }
        let mut fields = Vec::new();
        for (f, ty) in decl {
            let Some((v, span)) = given.remove(&f.to_string()) else {
                return err(st.span(), format!("missing field `{f}` in `{name}`"));
            };
            let spec = crate::frontend::trace::types::type_spec_in(ty, &items)?;
            fields.push((f.to_string(), self.check_type(v, &spec, span)?));
        }
        if let Some(extra) = given.keys().next() {
            return err(st.span(), format!("`{name}` has no field `{extra}`"));
        }
        Ok(Value::Struct(name, fields))
    }

    fn self_name(&self) -> Option<String> {
        match &self.self_ty {
            Some(syn::Type::Path(p)) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }
    }

    /// A `const` item of the mod: its value, evaluated now.
    pub(crate) fn const_item(&mut self, name: &str) -> Result<Option<Value>> {
        let items = self.items.clone();
        let Some(expr) = items.consts.get(name) else {
            return Ok(None);
        };
        let saved = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let v = self.expr(expr);
        self.scopes = saved;
        match v? {
            v @ Value::Static(_) => Ok(Some(v)),
            _ => err(
                expr.span(),
                "a const item must be a number or bool known at compile time",
            ),
        }
    }

    /// `helper(a, b)` or `Self::helper(a)`: a function of the mod, inlined.
    /// A function without arguments that returns a `stax::Layer` or an
    /// `initializers::Initializer` (JAX's module-level `init_fun, apply_fun
    /// = stax.serial(..)`) is that value.
    pub(crate) fn call_item(
        &mut self,
        p: &syn::ExprPath,
        c: &syn::ExprCall,
    ) -> Result<Option<Value>> {
        let items = self.items.clone();
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let (sig, block, self_ty) = match segs.as_slice() {
            [name] => match items.fns.get(name) {
                Some(f) => {
                    let in_rule = self.in_rule.contains(name);
                    if let Some(rule) = custom_rule(&f.attrs).filter(|_| !in_rule) {
                        let args = self.args(&c.args)?;
                        return self.custom_call(f, &rule, args, c.span()).map(Some);
                    }
                    (&f.sig, &*f.block, None)
                }
                None => return Ok(None),
            },
            [ty, name] => {
                let ty = if ty == "Self" {
                    self.self_name().unwrap_or_default()
                } else {
                    ty.clone()
                };
                match items.methods.get(&(ty.clone(), name.clone())) {
                    Some(m) => (&m.sig, &m.block, Some(self_type(&ty))),
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        if builds_static(sig) {
            // `fn net() -> stax::Layer { stax::serial([..]) }`: the value,
            // traced where it is called.
            if !c.args.is_empty() {
                return err(c.span(), format!("`{}` takes no arguments", sig.ident));
            }
            let saved = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
            let r = self.block_with_tail_hint(block, None);
            self.scopes = saved;
            return r.map(Some);
        }
        let turbofish = match &p.path.segments.last().unwrap().arguments {
            syn::PathArguments::AngleBracketed(a) => Some(a),
            _ => None,
        };
        let args = self.args(&c.args)?;
        self.inline(sig, block, self_ty, turbofish, args, c.span())
            .map(Some)
    }

    /// `p.loss(x)` on a struct of the mod: its method, inlined.
    pub(crate) fn call_method_item(
        &mut self,
        recv: &Value,
        m: &syn::ExprMethodCall,
    ) -> Result<Option<Value>> {
        let Value::Struct(ty, _) = recv else {
            return Ok(None);
        };
        let items = self.items.clone();
        let Some(method) = items.methods.get(&(ty.clone(), m.method.to_string())) else {
            return Ok(None);
        };
        let mut args = vec![(recv.clone(), m.receiver.span())];
        args.extend(self.args(&m.args)?);
        self.inline(
            &method.sig,
            &method.block,
            Some(self_type(ty)),
            m.turbofish.as_ref(),
            args,
            m.span(),
        )
        .map(Some)
    }

    /// A function of the mod called with `args`, inlined.
    pub(crate) fn inline_fn(
        &mut self,
        sig: &syn::Signature,
        block: &syn::Block,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        self.inline(sig, block, None, None, args, span)
    }

    /// Traces `block` with its parameters bound to `args`, in a scope of its own.
    fn inline(
        &mut self,
        sig: &syn::Signature,
        block: &syn::Block,
        self_ty: Option<syn::Type>,
        turbofish: Option<&syn::AngleBracketedGenericArguments>,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        if self.depth >= MAX_DEPTH {
            return err(span, format!("calls nest more than {MAX_DEPTH} deep: recursion cannot be traced; use lax::fori_loop or lax::while_loop"));
        }
        let items = self.items.clone();
        let generics: Vec<String> = sig
            .generics
            .params
            .iter()
            .filter_map(|g| match g {
                syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                _ => None,
            })
            .collect();
        // A generic function's sizes come from its arguments (or a
        // turbofish), as rustc infers them: its signature and body are
        // read with them.
        let (items, sizes) = if generics.is_empty() {
            (items, Vec::new())
        } else {
            let mut base = (*items).clone();
            base.sizes.clear();
            let open = signature_in(sig, &base, self_ty.as_ref())?;
            let sizes = self.infer_sizes(sig, &generics, turbofish, &open, &args, span)?;
            base.sizes = sizes.iter().cloned().collect();
            (std::rc::Rc::new(base), sizes)
        };
        let s = signature_in(sig, &items, self_ty.as_ref())?;
        if s.params.len() != args.len() {
            return err(
                span,
                format!(
                    "`{}` takes {} argument(s), got {}",
                    sig.ident,
                    s.params.len(),
                    args.len()
                ),
            );
        }
        let mut bound = Vec::new();
        for ((name, spec), (v, at)) in s.params.iter().zip(args) {
            bound.push((name.to_string(), self.check_type(v, spec, at)?));
        }
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let saved_self = std::mem::replace(&mut self.self_ty, self_ty);
        let saved_items = std::mem::replace(&mut self.items, items);
        self.depth += 1;
        for (name, d) in sizes {
            let v = match d {
                Dim::Lit(n) => Value::Static(Scalar::Int(n as i128)),
                Dim::Sym(expr) => Value::Symbolic(Symbolic { expr, dtype: None }),
            };
            self.define(&name, v);
        }
        for (name, v) in bound {
            self.define(&name, v);
        }
        let start = self.b.jaxpr.eqns.len();
        let r = self
            .block_with_tail_hint(block, Some(s.ret.clone()))
            .and_then(|v| self.check_type(v, &s.ret, span));
        self.depth -= 1;
        self.items = saved_items;
        self.self_ty = saved_self;
        self.scopes = saved_scopes;
        let v = r?;
        if self.kept_programs > 0 {
            return Ok(v);
        }
        self.as_call(&sig.ident.to_string(), start, v, span)
    }

    /// The equations a call of a function of the mod traced (from `start`
    /// on) moved into a `jit` call of their own, printed as its body (JAX
    /// inlines a Python function's call): before emission, the calls of a
    /// body called often enough are emitted as one function they all call
    /// (`prims::inline_calls`), so an unrolled loop of calls (`for _ in
    /// 0..STEPS { f = advect(f, vx, vy) }`) builds one body, not one per
    /// iteration; its derivatives keep the calls (`jit`'s rules). A body
    /// too short to be worth a function stays inline.
    fn as_call(&mut self, name: &str, start: usize, v: Value, span: Span) -> Result<Value> {
        use std::collections::HashSet;
        let eqns = &self.b.jaxpr.eqns[start..];
        if crate::ir::eqn_count(eqns) < crate::prims::OUTLINED_BODY || !data_only(&v) {
            return Ok(v);
        }
        let defined: HashSet<Var> = eqns.iter().flat_map(|e| e.outs.iter().copied()).collect();
        // Its operands: what the equations read and did not compute.
        let mut ins: Vec<Var> = Vec::new();
        let mut seen: HashSet<Var> = HashSet::new();
        for e in eqns {
            for a in &e.ins {
                if let Atom::Var(x) = a {
                    if !defined.contains(x) && seen.insert(*x) {
                        ins.push(*x);
                    }
                }
            }
        }
        // Its results: the values the function returned that it computed.
        let mut outs: Vec<Var> = Vec::new();
        let mut returned: HashSet<Var> = HashSet::new();
        visit_atoms(&v, &mut |a| {
            if let Atom::Var(x) = a {
                if defined.contains(x) && returned.insert(*x) {
                    outs.push(*x);
                }
            }
        });
        if outs.is_empty() {
            return Ok(v);
        }
        let body = crate::ir::Jaxpr {
            avals: self.b.jaxpr.avals.clone(),
            constvars: Vec::new(),
            invars: ins.clone(),
            eqns: self.b.jaxpr.eqns.split_off(start),
            outvars: outs.iter().map(|x| Atom::Var(*x)).collect(),
        };
        let results = self.b.bind(
            &crate::prims::JIT,
            crate::prims::inlined_call_params(name, body),
            ins.into_iter().map(Atom::Var).collect(),
            span,
        )?;
        let new: std::collections::HashMap<Var, Atom> = outs.into_iter().zip(results).collect();
        Ok(map_atoms(&v, &|a| match a {
            Atom::Var(x) => new.get(x).cloned().unwrap_or_else(|| a.clone()),
            lit => lit.clone(),
        }))
    }

    /// The sizes of a generic function's const generics at one call: each
    /// from the turbofish (`elbo::<32>(x)`), else from the dimensions of
    /// the arguments its parameters' types name it in.
    fn infer_sizes(
        &self,
        sig: &syn::Signature,
        generics: &[String],
        turbofish: Option<&syn::AngleBracketedGenericArguments>,
        open: &crate::frontend::trace::signature::Signature,
        args: &[(Value, Span)],
        span: Span,
    ) -> Result<Vec<(String, Dim)>> {
        let mut found: HashMap<String, (Dim, String)> = HashMap::new();
        if let Some(t) = turbofish {
            let consts: Vec<&syn::GenericArgument> = t
                .args
                .iter()
                .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
                .collect();
            if consts.len() != generics.len() {
                return err(
                    t.span(),
                    format!(
                        "`{}` has {} const generic(s) ({}), given {}",
                        sig.ident,
                        generics.len(),
                        generics.join(", "),
                        consts.len()
                    ),
                );
            }
            for (g, a) in generics.iter().zip(consts) {
                let v = match a {
                    syn::GenericArgument::Const(e) => self.const_size(e)?,
                    syn::GenericArgument::Type(syn::Type::Path(p))
                        if p.path.get_ident().is_some() =>
                    {
                        let e = syn::Expr::Path(syn::ExprPath {
                            attrs: vec![],
                            qself: None,
                            path: p.path.clone(),
                        });
                        self.const_size(&e)?
                    }
                    _ => None,
                };
                let Some(d) = v else {
                    return err(
                        a.span(),
                        format!("`{g}` must be a size the compiler sees: a number, a const of the mod or a const generic"),
                    );
                };
                found.insert(g.clone(), (d, "the turbofish".into()));
            }
        }
        for ((name, spec), (v, at)) in open.params.iter().zip(args) {
            self.sizes_of(
                spec,
                v,
                generics,
                &name.to_string(),
                &sig.ident,
                &mut found,
                *at,
            )?;
        }
        generics
            .iter()
            .map(|g| match found.remove(g) {
                Some((d, _)) => Ok((g.clone(), d)),
                None => err(
                    span,
                    format!(
                        "cannot infer the const generic `{g}` of `{f}` from its arguments (no parameter's array type has it as a dimension): write `{f}::<{}>(..)`, each a number, a const of the mod or a const generic",
                        generics.join(", "),
                        f = sig.ident
                    ),
                ),
            })
            .collect()
    }

    /// A size written in a turbofish: a number, a const of the mod, a size
    /// bound by an enclosing inlined call, or a const generic of the
    /// function being traced.
    pub(crate) fn const_size(&self, e: &syn::Expr) -> Result<Option<Dim>> {
        let e = match e {
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => e,
                _ => e,
            },
            e => e,
        };
        if let syn::Expr::Path(p) = e {
            if let Some(id) = p.path.get_ident() {
                match self.lookup(&id.to_string()) {
                    Some(Value::Symbolic(s)) if s.dtype.is_none() => {
                        return Ok(Some(Dim::Sym(s.expr.clone())))
                    }
                    Some(Value::Static(Scalar::Int(n))) if *n >= 0 => {
                        return Ok(Some(Dim::Lit(*n as usize)))
                    }
                    _ => {}
                }
            }
        }
        let ty: syn::Type = syn::parse_quote!(Array<f32, {#e}>);
        Ok(
            crate::frontend::trace::types::type_spec_in(&ty, &self.items)
                .ok()
                .and_then(|t| t.aval())
                .map(|a| a.shape[0].clone()),
        )
    }

    /// Binds the const generics `spec` names as dimensions to those of `v`.
    #[allow(clippy::too_many_arguments)]
    fn sizes_of(
        &self,
        spec: &TypeSpec,
        v: &Value,
        generics: &[String],
        param: &str,
        f: &syn::Ident,
        found: &mut HashMap<String, (Dim, String)>,
        span: Span,
    ) -> Result<()> {
        match (spec, v) {
            (TypeSpec::Array { aval, .. }, Value::Traced(a)) => {
                let got = self.b.aval(a);
                if got.shape.len() != aval.shape.len() {
                    return Ok(());
                }
                for (want, have) in aval.shape.iter().zip(&got.shape) {
                    let Dim::Sym(g) = want else { continue };
                    if !generics.contains(g) {
                        continue;
                    }
                    match found.get(g) {
                        Some((d, from)) if d != have => {
                            return err(
                                span,
                                format!("`{f}`'s const generic `{g}` is {d} from {from} but {have} from `{param}`"),
                            )
                        }
                        Some(_) => {}
                        None => {
                            found.insert(g.clone(), (have.clone(), format!("`{param}`")));
                        }
                    }
                }
                Ok(())
            }
            (TypeSpec::Tuple(ts) | TypeSpec::List(ts), Value::Tuple(vs) | Value::List(vs)) => {
                for (t, v) in ts.iter().zip(vs) {
                    self.sizes_of(t, v, generics, param, f, found, span)?;
                }
                Ok(())
            }
            (TypeSpec::Struct { fields, .. }, Value::Struct(_, vs)) => {
                for ((_, t), (_, v)) in fields.iter().zip(vs) {
                    self.sizes_of(t, v, generics, param, f, found, span)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// A function's own derivative rule.
pub(crate) enum CustomRule {
    /// `#[custom_jvp(rule)]`.
    Jvp(String),
    /// `#[custom_vjp(fwd, bwd)]`.
    Vjp(String, String),
}

/// The rule a function declares with `#[custom_jvp(..)]` or
/// `#[custom_vjp(..)]`, if any.
pub(crate) fn custom_rule(attrs: &[syn::Attribute]) -> Option<CustomRule> {
    for a in attrs {
        if a.path().is_ident("custom_jvp") {
            let id: syn::Ident = a.parse_args().ok()?;
            return Some(CustomRule::Jvp(id.to_string()));
        }
        if a.path().is_ident("custom_vjp") {
            let ids = a
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated,
                )
                .ok()?;
            let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
            if let [fwd, bwd] = ids.as_slice() {
                return Some(CustomRule::Vjp(fwd.clone(), bwd.clone()));
            }
            return None;
        }
    }
    None
}

fn self_type(name: &str) -> syn::Type {
    syn::parse_str(name).expect("a struct name is a type")
}

/// Whether a value is data alone (arrays, numbers, tuples, structs, lists
/// of them): what a call kept as a `jit` call may return (`as_call`); a
/// closure or a pending `x.at(..)` holds values the call computed apart
/// from its results.
fn data_only(v: &Value) -> bool {
    match v {
        Value::Traced(_) | Value::Static(_) | Value::Symbolic(_) | Value::Unit | Value::Str(_) => {
            true
        }
        Value::Tuple(items) | Value::List(items) => items.iter().all(data_only),
        Value::Struct(_, fields) => fields.iter().all(|(_, v)| data_only(v)),
        _ => false,
    }
}

/// Each traced atom of a [`data_only`] value, in order.
fn visit_atoms(v: &Value, f: &mut impl FnMut(&Atom)) {
    match v {
        Value::Traced(a) => f(a),
        Value::Tuple(items) | Value::List(items) => items.iter().for_each(|v| visit_atoms(v, f)),
        Value::Struct(_, fields) => fields.iter().for_each(|(_, v)| visit_atoms(v, f)),
        _ => {}
    }
}

/// A [`data_only`] value with each traced atom replaced by `f`'s.
fn map_atoms(v: &Value, f: &impl Fn(&Atom) -> Atom) -> Value {
    match v {
        Value::Traced(a) => Value::Traced(f(a)),
        Value::Tuple(items) => Value::Tuple(items.iter().map(|v| map_atoms(v, f)).collect()),
        Value::List(items) => Value::List(items.iter().map(|v| map_atoms(v, f)).collect()),
        Value::Struct(name, fields) => Value::Struct(
            name.clone(),
            fields
                .iter()
                .map(|(k, v)| (k.clone(), map_atoms(v, f)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether a function of the mod builds a compile-time value of the
/// library (it takes nothing and returns a `stax::Layer` or an
/// `initializers::Initializer`): it is not compiled, it runs eagerly as
/// written, and a body calling it traces its value.
pub(crate) fn builds_static(sig: &syn::Signature) -> bool {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return false;
    };
    let syn::Type::Path(p) = &**ty else {
        return false;
    };
    let last = p.path.segments.last().map(|s| s.ident.to_string());
    sig.inputs.is_empty()
        && sig.generics.params.is_empty()
        && matches!(last.as_deref(), Some("Layer" | "Initializer"))
}
