//! Pytrees through the transformations inside bodies: `jax::grad(f,
//! argnums = (0, 2), has_aux = true)`, `jax::jacfwd`/`jacrev` of a struct,
//! `jax::vjp` and `jax::jvp` on tuples, structs and Rust arrays of them.
//!
//! Every argument is flattened to its leaves (JAX's order: fields in
//! declaration order, tuple and array items in order), `f` is traced on
//! fresh leaves rebuilt into the arguments' structure, and the
//! transformation's results are rebuilt into the same structure: the
//! gradient of a `Params` is a `Params`.

use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::bodies::callables::{Callable, Kind};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{flatten, rebuild, Pullback, Value};
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Jaxpr};
use crate::transform::{ad, jacobian};

/// Which arguments a transformation differentiates (JAX's `argnums`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Argnums {
    /// The first argument (no `argnums` written).
    #[default]
    First,
    /// `argnums = k`: the result is that argument's tree.
    One(usize),
    /// `argnums = (j, k, ..)`: a tuple of trees.
    Many(Vec<usize>),
}

impl Argnums {
    fn list(&self) -> Vec<usize> {
        match self {
            Argnums::First => vec![0],
            Argnums::One(k) => vec![*k],
            Argnums::Many(ks) => ks.clone(),
        }
    }
}

/// The keyword options of `jax::grad(f, argnums = .., has_aux = true)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GradOptions {
    pub(crate) argnums: Argnums,
    pub(crate) has_aux: bool,
}

impl GradOptions {
    /// Reads `argnums = k`, `argnums = (j, k)`, `has_aux = true` written
    /// after the function, as JAX's keyword arguments.
    pub(crate) fn parse<'a>(
        kind: Kind,
        opts: impl Iterator<Item = &'a syn::Expr>,
        span: Span,
    ) -> Result<Self> {
        let mut o = GradOptions::default();
        for e in opts {
            let syn::Expr::Assign(a) = e else {
                return err(e.span(), "a transformation takes one function, then options as `argnums = 1`, `argnums = (0, 2)` or `has_aux = true`");
            };
            let name = match &*a.left {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            match name.as_deref() {
                Some("argnums") => o.argnums = argnums(&a.right)?,
                Some("has_aux") => match &*a.right {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Bool(b),
                        ..
                    }) => o.has_aux = b.value,
                    other => {
                        return err(other.span(), "write `has_aux = true` or `has_aux = false`")
                    }
                },
                _ => {
                    return err(
                        a.left.span(),
                        "the options of a transformation are `argnums` and `has_aux`",
                    )
                }
            }
        }
        if o.has_aux && !matches!(kind, Kind::Grad | Kind::ValueAndGrad) {
            return err(
                span,
                "`has_aux` inside a body is supported for `jax::grad` and `jax::value_and_grad` only, not yet for Jacobians",
            );
        }
        if kind == Kind::Hessian && o.argnums != Argnums::First {
            return err(
                span,
                "`argnums` on `jax::hessian` inside a body is not supported yet: differentiate a closure of the argument you want",
            );
        }
        Ok(o)
    }
}

fn argnums(e: &syn::Expr) -> Result<Argnums> {
    let int = |e: &syn::Expr| -> Result<usize> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<usize>(),
            other => err(
                other.span(),
                "`argnums` is a number or a tuple of numbers: `argnums = 1`, `argnums = (0, 2)`",
            ),
        }
    };
    match e {
        syn::Expr::Paren(p) => Ok(Argnums::One(int(&p.expr)?)),
        syn::Expr::Tuple(t) => {
            if t.elems.is_empty() {
                return err(t.span(), "`argnums` needs at least one argument number");
            }
            Ok(Argnums::Many(
                t.elems.iter().map(int).collect::<Result<_>>()?,
            ))
        }
        e => Ok(Argnums::One(int(e)?)),
    }
}

/// Whether a value is a container (a tuple, struct or Rust array).
pub(crate) fn is_tree(v: &Value) -> bool {
    matches!(v, Value::Tuple(_) | Value::Struct(..) | Value::List(_))
}

/// The leaves of each argument as atoms of the enclosing trace.
fn leaves_of(
    t: &mut Tracer,
    args: &[(Value, Span)],
) -> Result<(Vec<Atom>, Vec<std::ops::Range<usize>>)> {
    let mut atoms = Vec::new();
    let mut ranges = Vec::new();
    for (v, s) in args {
        let mut vs = Vec::new();
        flatten(v, &mut vs);
        let start = atoms.len();
        for leaf in vs {
            atoms.push(t.atom(leaf, *s)?);
        }
        ranges.push(start..atoms.len());
    }
    Ok((atoms, ranges))
}

/// A traced function of flattened arguments: its jaxpr (inputs: the
/// leaves, then the values it captured), the captured values, and the
/// structure of its output (and of its aux output).
struct Traced {
    j: Jaxpr,
    free: Vec<Atom>,
    out: Value,
    aux: Option<Value>,
}

impl Tracer {
    /// Traces `f` on fresh leaves shaped as `leaves`, rebuilt as `args`.
    fn trace_tree(
        &mut self,
        f: &Callable,
        args: &[(Value, Span)],
        leaves: &[Atom],
        has_aux: bool,
        span: Span,
    ) -> Result<Traced> {
        let avals = leaves.iter().map(|a| self.b.aval(a)).collect();
        let mut shapes: Option<(Value, Option<Value>)> = None;
        let (j, free) = self.trace_with(avals, |t, inputs| {
            let mut it = inputs.into_iter().map(Value::Traced);
            let rebuilt = args
                .iter()
                .map(|(tpl, s)| (rebuild(tpl, &mut it), *s))
                .collect();
            let out = t.apply(f, rebuilt, span)?;
            let (main, aux) = if has_aux {
                match out {
                    Value::Tuple(mut items) if items.len() == 2 => {
                        let aux = items.pop().unwrap();
                        (items.pop().unwrap(), Some(aux))
                    }
                    _ => {
                        return err(
                            span,
                            "has_aux=True: the function must return a pair `(output, aux)`",
                        )
                    }
                }
            } else {
                (out, None)
            };
            let mut outs = Vec::new();
            let mut vs = Vec::new();
            flatten(&main, &mut vs);
            if let Some(aux) = &aux {
                flatten(aux, &mut vs);
            }
            for v in vs {
                outs.push(t.atom(v, span)?);
            }
            shapes = Some((main, aux));
            Ok(outs)
        })?;
        let (out, aux) = shapes.expect("traced");
        Ok(Traced { j, free, out, aux })
    }

    /// `kind(f, argnums = .., has_aux = ..)(args)` where an argument is a
    /// pytree or options are given.
    pub(crate) fn transform_tree(
        &mut self,
        kind: Kind,
        f: &Callable,
        opts: &GradOptions,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        if kind == Kind::Checkpoint {
            return err(
                span,
                "`jax::checkpoint` takes no `argnums` or `has_aux`; write `jax::checkpoint(f)(args..)`",
            );
        }
        let selected = opts.argnums.list();
        if let Some(&k) = selected.iter().find(|&&k| k >= args.len()) {
            return err(
                span,
                format!("Differentiating with respect to argnums={k} requires at least {} positional arguments to be passed by the caller, but got only {} positional arguments.", k + 1, args.len()),
            );
        }
        let (leaves, ranges) = leaves_of(self, &args)?;
        let traced = self.trace_tree(f, &args, &leaves, opts.has_aux, span)?;
        let mut out_leaves = Vec::new();
        flatten(&traced.out, &mut out_leaves);
        if out_leaves.len() != 1 {
            return err(
                span,
                "a differentiated function must return one array or scalar (Jacobians of pytree outputs are not supported yet)",
            );
        }
        let out = traced.j.atom_aval(&traced.j.outvars[0]).clone();
        if matches!(kind, Kind::Grad | Kind::ValueAndGrad | Kind::Hessian) && out.rank() != 0 {
            return err(
                span,
                format!(
                    "Gradient only defined for scalar-output functions. Output had shape: {}.",
                    crate::prims::tuple(&out.shape)
                ),
            );
        }
        let wrt_leaves: Vec<usize> = selected.iter().flat_map(|&k| ranges[k].clone()).collect();
        for &k in &selected {
            for a in &leaves[ranges[k].clone()] {
                let d = self.b.aval(a).dtype;
                if !d.is_float() {
                    return err(
                        args[k].1,
                        format!("grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got {}.", d.name()),
                    );
                }
            }
        }
        if kind == Kind::Hessian && wrt_leaves.len() != 1 {
            return err(
                span,
                "`jax::hessian` of a pytree argument inside a body is not supported yet (JAX's result would be a tree of trees); use `jax::jacfwd(jax::grad(f))` per leaf",
            );
        }
        // The differentiated program sees the main output only; the aux
        // outputs come from the function itself (the simplifier merges the
        // two forward passes).
        let mut main = traced.j.clone();
        main.outvars.truncate(1);
        crate::transform::simplify::dce(&mut main);
        let mut inputs = leaves.clone();
        inputs.extend(traced.free.iter().cloned());
        let x64 = self.b.x64;
        // One derivative per selected leaf, in order.
        let (value, derivs) = match kind {
            Kind::Grad | Kind::ValueAndGrad => {
                let mut wrt = vec![false; main.invars.len()];
                wrt_leaves.iter().for_each(|&k| wrt[k] = true);
                let program = ad::vjp(&main, &ad::Wrt { inputs: wrt }, ad::Seed::One, x64, span)?;
                let outs = self.b.inline(&program, &inputs)?;
                (Some(outs[0].clone()), outs[1..].to_vec())
            }
            Kind::Checkpoint => unreachable!("rejected at the top"),
            Kind::Jacfwd | Kind::Jacrev | Kind::Hessian => {
                let mut derivs = Vec::new();
                for &k in &wrt_leaves {
                    let program = match kind {
                        Kind::Jacfwd => jacobian::jacfwd(&main, k, x64, span),
                        Kind::Jacrev => jacobian::jacrev(&main, k, x64, span),
                        _ => jacobian::hessian(&main, k, x64, span),
                    }?;
                    derivs.push(self.b.inline(&program, &inputs)?[0].clone());
                }
                (None, derivs)
            }
        };
        let mut it = derivs.into_iter().map(Value::Traced);
        let trees: Vec<Value> = selected
            .iter()
            .map(|&k| rebuild(&args[k].0, &mut it))
            .collect();
        let grads = match &opts.argnums {
            Argnums::Many(_) => Value::Tuple(trees),
            _ => trees.into_iter().next().unwrap(),
        };
        let aux = match &traced.aux {
            Some(tpl) => {
                let all = self.b.inline(&traced.j, &inputs)?;
                Some(rebuild(
                    tpl,
                    &mut all[1..].iter().cloned().map(Value::Traced),
                ))
            }
            None => None,
        };
        Ok(match (kind, aux) {
            (Kind::ValueAndGrad, None) => Value::Tuple(vec![Value::Traced(value.unwrap()), grads]),
            (Kind::ValueAndGrad, Some(aux)) => Value::Tuple(vec![
                Value::Tuple(vec![Value::Traced(value.unwrap()), aux]),
                grads,
            ]),
            (_, Some(aux)) => Value::Tuple(vec![grads, aux]),
            (_, None) => grads,
        })
    }

    /// `jax::vjp(f, primals..)` where a primal or the output is a pytree:
    /// `(f(primals), pullback)`, the pullback taking a cotangent shaped as
    /// the output and returning a tuple of cotangents shaped as the primals.
    pub(crate) fn vjp_tree(
        &mut self,
        f: &Callable,
        primals: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        let (leaves, _) = leaves_of(self, &primals)?;
        let traced = self.trace_tree(f, &primals, &leaves, false, span)?;
        let j = &traced.j;
        let mut wrt = vec![true; leaves.len()];
        wrt.extend(std::iter::repeat_n(false, traced.free.len()));
        let mut program = ad::vjp(
            j,
            &ad::Wrt { inputs: wrt },
            ad::Seed::Inputs,
            self.b.x64,
            span,
        )?;
        let mut inputs = leaves;
        inputs.extend(traced.free.iter().cloned());
        let out = self.b.inline(j, &inputs)?;
        program.outvars.drain(..j.outvars.len());
        let out_value = rebuild(&traced.out, &mut out.into_iter().map(Value::Traced));
        let pullback = Pullback {
            program,
            inputs,
            primals: primals.into_iter().map(|(v, _)| v).collect(),
            out: Some(traced.out),
        };
        Ok(Value::Tuple(vec![
            out_value,
            Value::Pullback(Rc::new(pullback)),
        ]))
    }

    /// `pullback(ct)` of a `vjp_tree` pullback.
    pub(crate) fn call_tree_pullback(
        &mut self,
        pb: &Pullback,
        out: &Value,
        ct: Value,
        s: Span,
    ) -> Result<Value> {
        let mut want = Vec::new();
        flatten(out, &mut want);
        let mut got = Vec::new();
        flatten(&ct, &mut got);
        if want.len() != got.len() || is_tree(out) != is_tree(&ct) {
            return err(
                s,
                format!("unexpected tree structure of argument to vjp function: got {}, but expected to match {}", structure(&ct), structure(out)),
            );
        }
        let mut inputs = pb.inputs.clone();
        for leaf in got {
            inputs.push(self.atom(leaf, s)?);
        }
        let cts = self.b.inline(&pb.program, &inputs)?;
        let mut it = cts.into_iter().map(Value::Traced);
        Ok(Value::Tuple(
            pb.primals.iter().map(|p| rebuild(p, &mut it)).collect(),
        ))
    }

    /// `jax::jvp(f, primals, tangents)` where a primal is a pytree: the
    /// tangents are trees of the same structure, and so is the output
    /// tangent.
    pub(crate) fn jvp_tree(
        &mut self,
        f: &Callable,
        primals: Vec<(Value, Span)>,
        tangents: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        for ((p, _), (t, s)) in primals.iter().zip(&tangents) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            flatten(p, &mut a);
            flatten(t, &mut b);
            if a.len() != b.len() || structure(p) != structure(t) {
                return err(
                    *s,
                    format!("primal and tangent arguments to jax.jvp must have the same tree structure; primals have tree structure {} whereas tangents have tree structure {}", structure(p), structure(t)),
                );
            }
        }
        let (leaves, _) = leaves_of(self, &primals)?;
        let traced = self.trace_tree(f, &primals, &leaves, false, span)?;
        let j = &traced.j;
        let mut wrt = vec![true; leaves.len()];
        wrt.extend(std::iter::repeat_n(false, traced.free.len()));
        let program = ad::jvp(j, &ad::Wrt { inputs: wrt }, self.b.x64, span)?;
        let mut inputs = leaves;
        inputs.extend(traced.free.iter().cloned());
        let (tleaves, _) = leaves_of(self, &tangents)?;
        inputs.extend(tleaves);
        let outs = self.b.inline(&program, &inputs)?;
        let n = j.outvars.len();
        let y = rebuild(
            &traced.out,
            &mut outs[..n].iter().cloned().map(Value::Traced),
        );
        let ty = rebuild(
            &traced.out,
            &mut outs[n..].iter().cloned().map(Value::Traced),
        );
        Ok(Value::Tuple(vec![y, ty]))
    }
}

/// A pytree's structure as JAX prints it, roughly: `PyTreeDef((*, *))`,
/// `PyTreeDef(CustomNode(Params[..], [*, *]))`.
pub(crate) fn structure(v: &Value) -> String {
    fn inner(v: &Value) -> String {
        match v {
            Value::Tuple(items) => {
                let parts: Vec<String> = items.iter().map(inner).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            Value::List(items) => {
                format!(
                    "[{}]",
                    items.iter().map(inner).collect::<Vec<_>>().join(", ")
                )
            }
            Value::Struct(name, fields) => format!(
                "CustomNode({name}[({})], [{}])",
                fields
                    .iter()
                    .map(|(f, _)| format!("'{f}'"))
                    .collect::<Vec<_>>()
                    .join(", "),
                fields
                    .iter()
                    .map(|(_, v)| inner(v))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Unit => "None".into(),
            _ => "*".into(),
        }
    }
    format!("PyTreeDef({})", inner(v))
}
