//! Transformations inside jitted bodies: `jax::grad(f)(x)`,
//! `jax::value_and_grad(f)(x)`, `jax::jacfwd`, `jax::jacrev`,
//! `jax::hessian`, `jax::jvp(f, (x,), (t,))` and `jax::vjp(f, x)` (with the
//! pullback it returns), on closures, functions of the `#[jax::jit] mod`,
//! `jnp::`/`lax::` functions, and transformations of those
//! (`jax::grad(jax::grad(jnp::sin))`), nested to any depth; and calls of
//! functions with their own rule (`#[custom_jvp]`, `#[custom_vjp]`).
//!
//! `f` is traced into a jaxpr of its own (the values it captures from the
//! enclosing body become extra inputs that are not differentiated), the
//! transformation turns that jaxpr into another, and the result is inlined
//! where the call is, so an enclosing transformation differentiates it in
//! turn.

use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::bodies::callables::{is_path, kind_of, Callable, Kind};
use crate::frontend::bodies::pytree::{is_tree, GradOptions};
use crate::frontend::trace::layers::Above;
use crate::frontend::trace::module::CustomRule;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::types::Items;
use crate::frontend::trace::value::{flatten, rebuild, Pullback, Value};
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Jaxpr};
use crate::transform::{ad, jacobian};

impl Tracer {
    /// `jax::grad(f)(args)`, `jax::jvp(f, primals, tangents)`, ...: `None`
    /// when `c` is none of these.
    pub(crate) fn call_transformation(&mut self, c: &syn::ExprCall) -> Result<Option<Value>> {
        if is_path(&c.func, "jax", "jvp") {
            return self.jvp_call(c).map(Some);
        }
        if is_path(&c.func, "jax", "vjp") {
            return self.vjp_call(c).map(Some);
        }
        let syn::Expr::Call(inner) = &*c.func else {
            return Ok(None);
        };
        let syn::Expr::Path(p) = &*inner.func else {
            return Ok(None);
        };
        if kind_of(&p.path).is_none()
            && !is_path(&inner.func, "jax", "vmap")
            && !is_path(&inner.func, "jax", "pmap")
        {
            return Ok(None);
        }
        let f = self.callable(&c.func)?;
        let args = self.args(&c.args)?;
        self.apply(&f, args, c.span()).map(Some)
    }

    /// A call of a `#[custom_jvp(rule)]` function of the mod: its body and
    /// its rule traced apart, bound as one `custom_jvp_call`.
    pub(crate) fn custom_jvp_call(
        &mut self,
        f: &syn::ItemFn,
        rule: &str,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        let Some(rule_fn) = self.items.fns.get(rule).cloned() else {
            return err(
                span,
                format!(
                    "`#[custom_jvp({rule})]`: `{rule}` is not a function of this #[jax::jit] mod"
                ),
            );
        };
        let item = Callable::Item(Rc::new(f.clone()));
        // The function's own body, traced without its rule.
        let name = f.sig.ident.to_string();
        self.in_rule.push(name.clone());
        let traced = self.trace_apart(&item, &args, span);
        self.in_rule.retain(|n| n != &name);
        let (fun, actual, free) = traced?;
        if !free.is_empty() {
            return err(
                span,
                "a #[custom_jvp] function cannot read values of the calling body",
            );
        }
        let avals: Vec<crate::ir::Aval> = actual.iter().map(|a| self.b.aval(a)).collect();
        let n = avals.len();
        let mut both = avals.clone();
        both.extend(avals.iter().map(ad::tangent_aval));
        let name = f.sig.ident.to_string();
        self.in_rule.push(name.clone());
        let traced = self.trace_with(both, |t, inputs| {
            let primals = Value::Tuple(inputs[..n].iter().cloned().map(Value::Traced).collect());
            let tangents = Value::Tuple(inputs[n..].iter().cloned().map(Value::Traced).collect());
            let out = t.inline_fn(
                &rule_fn.sig,
                &rule_fn.block,
                vec![(primals, span), (tangents, span)],
                span,
            )?;
            let Value::Tuple(items) = out else {
                return err(span, format!("`{rule}` must return `(output, tangent)`"));
            };
            items.into_iter().map(|v| t.atom(v, span)).collect()
        });
        self.in_rule.retain(|n| n != &name);
        let (jvp, free) = traced?;
        if !free.is_empty() {
            return err(
                span,
                "a custom_jvp rule cannot read values of the calling body",
            );
        }
        let params = crate::prims::Params::CustomJvp(crate::prims::Shared(Rc::new(
            crate::prims::CustomJvp {
                name: f.sig.ident.to_string(),
                fun,
                jvp,
            },
        )));
        let outs = self
            .b
            .bind(&crate::prims::CUSTOM_JVP_CALL, params, actual, span)?;
        Ok(Value::Traced(outs[0].clone()))
    }

    /// `kind(f)(args)`: the transformed jaxpr, inlined. A Jacobian
    /// (`jacfwd`, `jacrev`, `hessian`) is one batched pass, the jvp or
    /// pullback `vmap`ped over the identity basis as JAX computes it, or
    /// one inlined pass per basis vector where a primitive of `f` has no
    /// batching rule yet (`jacobian::jacobian`).
    pub(crate) fn transform(
        &mut self,
        kind: Kind,
        f: &Callable,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        if kind == Kind::Checkpoint {
            return self.keeping_programs(|t| t.checkpoint_call(f, args, span));
        }
        if args.is_empty() {
            return err(
                span,
                "a transformed function needs an argument to differentiate",
            );
        }
        if matches!(kind, Kind::Grad | Kind::ValueAndGrad)
            && matches!(args[0].0, Value::Tuple(_) | Value::Struct(..))
        {
            return self.grad_of_tree(kind, f, args, span);
        }
        if args.iter().any(|(v, _)| is_tree(v)) {
            return self.transform_tree(kind, f, &GradOptions::default(), args, span);
        }
        let (j, actual, free) = self.trace_apart(f, &args, span)?;
        let out = j.atom_aval(&j.outvars[0]).clone();
        let x = j.aval(j.invars[0]).clone();
        if matches!(kind, Kind::Grad | Kind::ValueAndGrad | Kind::Hessian) && out.rank() != 0 {
            return err(
                span,
                format!(
                    "Gradient only defined for scalar-output functions. Output had shape: {}.",
                    crate::prims::tuple(&out.shape)
                ),
            );
        }
        if !x.dtype.is_float() {
            return err(
                args[0].1,
                format!("grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got {}.", x.dtype.name()),
            );
        }
        let x64 = self.b.x64;
        let program = match kind {
            Kind::Grad => ad::grad(&j, 0, x64, span),
            Kind::ValueAndGrad => {
                let mut wrt = vec![false; j.invars.len()];
                wrt[0] = true;
                ad::vjp(&j, &ad::Wrt { inputs: wrt }, ad::Seed::One, x64, span)
            }
            Kind::Jacfwd => jacobian::jacfwd(&j, 0, x64, span),
            Kind::Jacrev => jacobian::jacrev(&j, 0, x64, span),
            Kind::Hessian => jacobian::hessian(&j, 0, x64, span),
            Kind::Checkpoint => unreachable!("handled first"),
        }?;
        let mut inputs = actual;
        inputs.extend(free);
        let outs = self.b.inline(&program, &inputs)?;
        Ok(match kind {
            Kind::ValueAndGrad => Value::Tuple(outs.into_iter().map(Value::Traced).collect()),
            _ => Value::Traced(outs[0].clone()),
        })
    }

    /// `jax::grad(f)(params, ..)` and `value_and_grad` where `params` is a
    /// tuple or a struct (a pytree): the gradient is the same tree, one
    /// cotangent per leaf.
    fn grad_of_tree(
        &mut self,
        kind: Kind,
        f: &Callable,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        let mut leaves: Vec<Atom> = Vec::new();
        let mut n_first = 0;
        for (k, (v, s)) in args.iter().enumerate() {
            let mut vs = Vec::new();
            flatten(v, &mut vs);
            if k == 0 {
                n_first = vs.len();
            }
            for leaf in vs {
                leaves.push(self.atom(leaf, *s)?);
            }
        }
        for a in &leaves[..n_first] {
            let d = self.b.aval(a).dtype;
            if !d.is_float() {
                return err(
                    args[0].1,
                    format!("grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got {}.", d.name()),
                );
            }
        }
        let avals = leaves.iter().map(|a| self.b.aval(a)).collect();
        let templates: Vec<(Value, Span)> = args.clone();
        let (j, free) = self.trace_with(avals, |t, inputs| {
            let mut it = inputs.into_iter().map(Value::Traced);
            let rebuilt = templates
                .iter()
                .map(|(tpl, s)| (rebuild(tpl, &mut it), *s))
                .collect();
            let out = t.apply(f, rebuilt, span)?;
            match out {
                Value::Traced(_) | Value::Static(_) => Ok(vec![t.atom(out, span)?]),
                _ => err(
                    span,
                    "a differentiated function must return one array or scalar",
                ),
            }
        })?;
        let out = j.atom_aval(&j.outvars[0]).clone();
        if out.rank() != 0 {
            return err(
                span,
                format!(
                    "Gradient only defined for scalar-output functions. Output had shape: {}.",
                    crate::prims::tuple(&out.shape)
                ),
            );
        }
        let mut wrt = vec![false; j.invars.len()];
        wrt[..n_first].iter_mut().for_each(|w| *w = true);
        let program = ad::vjp(
            &j,
            &ad::Wrt { inputs: wrt },
            ad::Seed::One,
            self.b.x64,
            span,
        )?;
        let mut inputs = leaves;
        inputs.extend(free);
        let outs = self.b.inline(&program, &inputs)?;
        let grads = rebuild(
            &args[0].0,
            &mut outs[1..].iter().cloned().map(Value::Traced),
        );
        Ok(match kind {
            Kind::ValueAndGrad => Value::Tuple(vec![Value::Traced(outs[0].clone()), grads]),
            _ => grads,
        })
    }

    /// `jax::vjp(f, x, ..)`: `(f(x), pullback)`; calling `pullback(ct)`
    /// gives the tuple of the primals' cotangents.
    fn vjp_call(&mut self, c: &syn::ExprCall) -> Result<Value> {
        let Some((first, rest)) = c
            .args
            .iter()
            .collect::<Vec<_>>()
            .split_first()
            .map(|(a, b)| (*a, b.to_vec()))
        else {
            return err(
                c.span(),
                "`jax::vjp` takes a function and its arguments: `jax::vjp(f, x)`",
            );
        };
        let f = self.callable(first)?;
        let mut primals = Vec::new();
        for a in rest {
            primals.push((self.expr(a)?, a.span()));
        }
        if primals.is_empty() {
            return err(
                c.span(),
                "`jax::vjp` takes a function and its arguments: `jax::vjp(f, x)`",
            );
        }
        if primals.iter().any(|(v, _)| is_tree(v)) {
            return self.vjp_tree(&f, primals, c.span());
        }
        let (j, actual, free) = self.trace_apart(&f, &primals, c.span())?;
        let n = primals.len();
        let mut wrt = vec![true; n];
        wrt.extend(std::iter::repeat_n(false, free.len()));
        let mut program = ad::vjp(
            &j,
            &ad::Wrt { inputs: wrt },
            ad::Seed::Inputs,
            self.b.x64,
            c.span(),
        )?;
        // The output now; the pullback recomputes what it needs, and the
        // simplifier merges the two forward passes.
        let mut inputs = actual;
        inputs.extend(free);
        let out = self.b.inline(&j, &inputs)?;
        program.outvars.drain(..j.outvars.len());
        let pullback = Pullback {
            program,
            inputs,
            primals: Vec::new(),
            out: None,
        };
        Ok(Value::Tuple(vec![
            Value::Traced(out[0].clone()),
            Value::Pullback(Rc::new(pullback)),
        ]))
    }

    /// `pullback(ct)`.
    pub(crate) fn call_pullback(
        &mut self,
        pb: &Pullback,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        if args.len() != 1 {
            return err(
                span,
                "a pullback takes one argument: the output's cotangent",
            );
        }
        let (ct, s) = args.into_iter().next().unwrap();
        if let Some(out) = &pb.out {
            return self.call_tree_pullback(pb, out, ct, s);
        }
        let mut inputs = pb.inputs.clone();
        inputs.push(self.atom(ct, s)?);
        let cts = self.b.inline(&pb.program, &inputs)?;
        Ok(Value::Tuple(cts.into_iter().map(Value::Traced).collect()))
    }

    /// `jax::jvp(f, (x, ..), (t, ..))`: `(f(x), tangent)`.
    fn jvp_call(&mut self, c: &syn::ExprCall) -> Result<Value> {
        if c.args.len() != 3 {
            return err(
                c.span(),
                "`jax::jvp` takes a function, a tuple of primals and a tuple of tangents",
            );
        }
        let f = self.callable(&c.args[0])?;
        let tuple = |t: &mut Tracer, e: &syn::Expr| -> Result<Vec<(Value, Span)>> {
            match t.expr(e)? {
                Value::Tuple(items) => Ok(items.into_iter().map(|v| (v, e.span())).collect()),
                _ => err(
                    e.span(),
                    "write the primals and the tangents as tuples: `(x,)`",
                ),
            }
        };
        let primals = tuple(self, &c.args[1])?;
        let tangents = tuple(self, &c.args[2])?;
        if primals.len() != tangents.len() {
            return err(c.span(), "`jax::jvp` needs one tangent per primal");
        }
        if primals.iter().any(|(v, _)| is_tree(v)) {
            return self.jvp_tree(&f, primals, tangents, c.span());
        }
        let (j, actual, free) = self.trace_apart(&f, &primals, c.span())?;
        let n = primals.len();
        let mut wrt = vec![true; n];
        wrt.extend(std::iter::repeat_n(false, free.len()));
        let program = ad::jvp(&j, &ad::Wrt { inputs: wrt }, self.b.x64, c.span())?;
        let mut inputs = actual;
        inputs.extend(free);
        for (v, s) in tangents {
            inputs.push(self.atom(v, s)?);
        }
        let outs = self.b.inline(&program, &inputs)?;
        Ok(Value::Tuple(outs.into_iter().map(Value::Traced).collect()))
    }
}

impl Tracer {
    /// A call of a `#[custom_vjp(fwd, bwd)]` function of the mod: the
    /// function, `fwd` (output and residuals) and `bwd` (residuals and
    /// output cotangent to argument cotangents) traced apart, bound as one
    /// `custom_vjp_call`.
    pub(crate) fn custom_vjp_call(
        &mut self,
        f: &syn::ItemFn,
        fwd: &str,
        bwd: &str,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        let get = |t: &Tracer, name: &str| {
            t.items.fns.get(name).cloned().ok_or_else(|| {
                syn::Error::new(span, format!("`#[custom_vjp({fwd}, {bwd})]`: `{name}` is not a function of this #[jax::jit] mod"))
            })
        };
        let (fwd_fn, bwd_fn) = (get(self, fwd)?, get(self, bwd)?);
        let item = Callable::Item(Rc::new(f.clone()));
        // The function's own body, traced without its rule.
        let name = f.sig.ident.to_string();
        self.in_rule.push(name.clone());
        let traced = self.trace_apart(&item, &args, span);
        self.in_rule.retain(|n| n != &name);
        let (fun, actual, free) = traced?;
        if !free.is_empty() {
            return err(
                span,
                "a #[custom_vjp] function cannot read values of the calling body",
            );
        }
        let avals: Vec<crate::ir::Aval> = actual.iter().map(|a| self.b.aval(a)).collect();
        let out_aval = fun.atom_aval(&fun.outvars[0]).clone();
        let name = f.sig.ident.to_string();
        self.in_rule.push(name.clone());
        // fwd: the output, then the residuals' leaves; keep their structure.
        let mut residual_template: Option<Value> = None;
        let fwd_traced = self.trace_with(avals.clone(), |t, inputs| {
            let args = inputs
                .into_iter()
                .map(|a| (Value::Traced(a), span))
                .collect();
            let out = t.inline_fn(&fwd_fn.sig, &fwd_fn.block, args, span)?;
            let Value::Tuple(mut items) = out else {
                return err(span, format!("`{fwd}` must return `(output, residuals)`"));
            };
            if items.len() != 2 {
                return err(span, format!("`{fwd}` must return `(output, residuals)`"));
            }
            let res = items.pop().unwrap();
            let out = items.pop().unwrap();
            let mut leaves = Vec::new();
            flatten(&res, &mut leaves);
            let mut atoms = vec![t.atom(out, span)?];
            for l in leaves {
                atoms.push(t.atom(l, span)?);
            }
            residual_template = Some(res);
            Ok(atoms)
        });
        let bwd_traced = fwd_traced.and_then(|(fwd_j, free)| {
            if !free.is_empty() {
                return err(
                    span,
                    format!("`{fwd}` cannot read values of the calling body"),
                );
            }
            let template = residual_template.take().expect("fwd was traced");
            let mut bwd_avals: Vec<crate::ir::Aval> = fwd_j.outvars[1..]
                .iter()
                .map(|a| fwd_j.atom_aval(a).clone())
                .collect();
            bwd_avals.push(ad::tangent_aval(&out_aval));
            let n_res = bwd_avals.len() - 1;
            let (bwd_j, free) = self.trace_with(bwd_avals, |t, inputs| {
                let mut leaves = inputs[..n_res].iter().cloned().map(Value::Traced);
                let res = rebuild(&template, &mut leaves);
                let ct = Value::Traced(inputs[n_res].clone());
                let out = t.inline_fn(
                    &bwd_fn.sig,
                    &bwd_fn.block,
                    vec![(res, span), (ct, span)],
                    span,
                )?;
                let mut cts = Vec::new();
                flatten(&out, &mut cts);
                cts.into_iter().map(|v| t.atom(v, span)).collect()
            })?;
            if !free.is_empty() {
                return err(
                    span,
                    format!("`{bwd}` cannot read values of the calling body"),
                );
            }
            Ok((fwd_j, bwd_j))
        });
        self.in_rule.retain(|n| n != &name);
        let (fwd_j, bwd_j) = bwd_traced?;
        if bwd_j.outvars.len() != actual.len() {
            return err(
                span,
                format!(
                    "`{bwd}` must return one cotangent per argument of `{name}` ({}), as a tuple",
                    actual.len()
                ),
            );
        }
        let params = crate::prims::Params::CustomVjp(crate::prims::Shared(Rc::new(
            crate::prims::CustomVjp {
                name,
                fun,
                fwd: fwd_j,
                bwd: bwd_j,
            },
        )));
        let outs = self
            .b
            .bind(&crate::prims::CUSTOM_VJP_CALL, params, actual, span)?;
        Ok(Value::Traced(outs[0].clone()))
    }
}

/// The jaxpr of a `#[custom_jvp]` function as its own derivatives see it:
/// one `custom_jvp_call` of its body and rule, so `f::grad` uses the rule.
pub(crate) fn custom_program(
    j: &Jaxpr,
    f: &syn::ItemFn,
    rule: &CustomRule,
    items: Rc<Items>,
    x64: bool,
    above: &'static Above,
) -> Result<Jaxpr> {
    let mut t = Tracer::new(x64, above);
    t.items = items;
    let span = f.sig.ident.span();
    let args: Vec<(Value, Span)> = j
        .invars
        .iter()
        .map(|v| (Value::Traced(t.b.input(j.aval(*v).clone())), span))
        .collect();
    let out = call_with_rule(&mut t, f, rule, args, span)?;
    let out = t.atom(out, span)?;
    t.b.jaxpr.outvars = vec![out];
    Ok(t.b.jaxpr)
}

/// A call of `f`, a function of the mod with the custom derivative `rule`
/// (the tracer's `Above::custom_call`).
pub(crate) fn call_with_rule(
    t: &mut Tracer,
    f: &syn::ItemFn,
    rule: &CustomRule,
    args: Vec<(Value, Span)>,
    span: Span,
) -> Result<Value> {
    match rule {
        CustomRule::Jvp(r) => t.keeping_programs(|t| t.custom_jvp_call(f, r, args, span)),
        CustomRule::Vjp(fwd, bwd) => {
            t.keeping_programs(|t| t.custom_vjp_call(f, fwd, bwd, args, span))
        }
    }
}
