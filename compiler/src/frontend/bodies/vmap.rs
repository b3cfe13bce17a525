//! `jax::vmap(f, in_axes, out_axes)(args)` inside jitted bodies.
//!
//! `f` is traced apart on one lane's values (each mapped axis removed), the
//! jaxpr is batched (`transform::batching`), and the batched program is
//! inlined where the call is, so enclosing transformations (`jax::grad`,
//! another `vmap`) apply to it in turn. Arguments and results may be
//! tuples and structs; an axis spec applies to every leaf below it, as a
//! pytree prefix does in JAX.

use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::bodies::callables::{AxisSpec, Callable, Vmapped};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{flatten, rebuild, Value};
use crate::ir::builder::{err, Result};
use crate::ir::rules::BDim;
use crate::ir::{Atom, Aval, Dim};
use crate::transform::batching;

const SPEC_HELP: &str =
    "an axis is an integer, `None`, or a tuple of those (`(None, 0)`), written where the call is";

/// Reads an axis spec written as a literal: `0`, `-1`, `None`, `Some(1)`,
/// `(None, 0, 0)`.
pub(crate) fn axis_spec(e: &syn::Expr) -> Result<AxisSpec> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => Ok(AxisSpec::Axis(i.base10_parse()?, e.span())),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => match axis_spec(expr)? {
            AxisSpec::Axis(a, _) => Ok(AxisSpec::Axis(-a, e.span())),
            _ => err(e.span(), SPEC_HELP),
        },
        syn::Expr::Path(p) if p.path.is_ident("None") => Ok(AxisSpec::Unmapped),
        syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Some")) => {
            match c.args.first() {
                Some(a) if c.args.len() == 1 => axis_spec(a),
                _ => err(e.span(), SPEC_HELP),
            }
        }
        syn::Expr::Paren(p) => axis_spec(&p.expr),
        syn::Expr::Group(g) => axis_spec(&g.expr),
        syn::Expr::Tuple(t) => Ok(AxisSpec::Tuple(
            t.elems.iter().map(axis_spec).collect::<Result<_>>()?,
            e.span(),
        )),
        _ => err(e.span(), SPEC_HELP),
    }
}

/// The spec of each leaf of `v`, from a spec that is a prefix of its tree.
pub(crate) fn leaf_specs(spec: &AxisSpec, v: &Value, out: &mut Vec<AxisSpec>) -> Result<()> {
    match (spec, v) {
        (AxisSpec::Tuple(specs, span), Value::Tuple(items)) => {
            if specs.len() != items.len() {
                return err(
                    *span,
                    format!(
                        "vmap axis specification must be a tree prefix of the corresponding value: a tuple of {} entries for a tuple of {}",
                        specs.len(),
                        items.len()
                    ),
                );
            }
            for (s, i) in specs.iter().zip(items) {
                leaf_specs(s, i, out)?;
            }
            Ok(())
        }
        (AxisSpec::Tuple(_, span), _) => err(
            *span,
            "vmap axis specification must be a tree prefix of the corresponding value: a tuple of axes for a value that is not a tuple",
        ),
        (s, v) => {
            let mut leaves = Vec::new();
            flatten(v, &mut leaves);
            out.extend(leaves.iter().map(|_| s.clone()));
            Ok(())
        }
    }
}

/// `axis` counted from the end when negative, checked against `rank`.
pub(crate) fn canonical_axis(axis: i64, rank: usize) -> Option<usize> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    (0..rank as i64).contains(&a).then_some(a as usize)
}

/// JAX's `float32[5,3]`.
fn type_name(a: &Aval) -> String {
    let dims: Vec<String> = a.shape.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", a.dtype.name(), dims.join(","))
}

impl Tracer {
    /// `jax::vmap(f)`, `jax::vmap(f, in_axes)`, `jax::vmap(f, in_axes, out_axes)`.
    pub(crate) fn vmapped(&mut self, c: &syn::ExprCall) -> Result<Callable> {
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let (f, in_axes, out_axes, name) = match args.as_slice() {
            [f] => (f, AxisSpec::Axis(0, c.span()), AxisSpec::Axis(0, c.span()), None),
            [f, i] => (f, axis_spec(i)?, AxisSpec::Axis(0, c.span()), None),
            [f, i, o] => (f, axis_spec(i)?, axis_spec(o)?, None),
            [f, i, o, n] => (f, axis_spec(i)?, axis_spec(o)?, Some(*n)),
            _ => {
                return err(
                    c.span(),
                    "`jax::vmap` takes a function, then optionally `in_axes`, `out_axes` and `axis_name`: `jax::vmap(f, (None, 0), 0, \"i\")`",
                )
            }
        };
        let axis_name = match name {
            None => None,
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) => Some(s.value()),
            Some(syn::Expr::Path(p)) if p.path.is_ident("None") => None,
            Some(n) => {
                return err(
                    n.span(),
                    "vmap's `axis_name` is a string literal (`\"i\"`) or `None`, written where the call is",
                )
            }
        };
        Ok(Callable::Vmapped(Rc::new(Vmapped {
            f: self.callable(f)?,
            in_axes,
            out_axes,
            axis_name,
        })))
    }

    /// `jax::vmap(f, in_axes, out_axes)(args)`: `f` traced on one lane,
    /// batched, inlined.
    pub(crate) fn vmap_apply(
        &mut self,
        v: &Vmapped,
        args: Vec<(Value, Span)>,
        names: &[String],
        span: Span,
    ) -> Result<Value> {
        let (in_axes, args) = self.key_arrays(&v.in_axes, args, "vmap")?;
        let mapped = self.mapped_leaves(&in_axes, &args, names, span, "vmap")?;
        let size = mapped.size.clone();
        let (j, free, out_template) =
            self.trace_lane(&v.f, &mapped, &args, v.axis_name.as_deref(), span)?;
        let leaves = mapped.leaves;
        // Where each output's lanes go.
        let mut out_specs = Vec::new();
        leaf_specs(&v.out_axes, &out_template, &mut out_specs)?;
        let mut out_dims = Vec::new();
        for (spec, o) in out_specs.iter().zip(&j.outvars) {
            let rank = j.atom_aval(o).rank() + 1;
            out_dims.push(match spec {
                AxisSpec::Axis(a, at) => match jax_dtypes::checks::normalize_axis(*a as i128, rank)
                {
                    Ok(d) => Some(d),
                    Err(msg) => return err(*at, msg),
                },
                _ => None,
            });
        }
        let mut in_dims: Vec<BDim> = leaves.iter().map(|(_, d, _, _)| *d).collect();
        in_dims.extend(free.iter().map(|_| None));
        let program = batching::vmap(
            &j,
            &in_dims,
            &out_dims,
            &size,
            v.axis_name.as_deref(),
            self.b.x64,
            span,
        )?;
        let mut inputs: Vec<Atom> = leaves.into_iter().map(|(a, ..)| a).collect();
        inputs.extend(free);
        let outs = self.b.inline(&program, &inputs)?;
        Ok(rebuild(
            &out_template,
            &mut outs.into_iter().map(Value::Traced),
        ))
    }
}

/// The leaves of a mapped call's arguments, each with its mapped axis
/// (`None`: shared) and the argument it belongs to, and the lane count.
pub(crate) struct MappedLeaves {
    pub(crate) leaves: Vec<(Atom, BDim, usize, Span)>,
    pub(crate) size: Dim,
}

impl Tracer {
    /// The arguments' leaves with their axes from `in_axes` (a pytree
    /// prefix per argument), checked as JAX checks them: the axis within
    /// the rank, one size along every mapped axis.
    pub(crate) fn mapped_leaves(
        &mut self,
        in_axes: &AxisSpec,
        args: &[(Value, Span)],
        names: &[String],
        span: Span,
        what: &str,
    ) -> Result<MappedLeaves> {
        // One spec per argument.
        let per_arg: Vec<AxisSpec> = match in_axes {
            AxisSpec::Tuple(specs, s) => {
                if specs.len() != args.len() {
                    return err(
                        *s,
                        format!(
                            "{what} in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)={}, len(args)={}",
                            specs.len(),
                            args.len()
                        ),
                    );
                }
                specs.clone()
            }
            s => vec![s.clone(); args.len()],
        };
        // The leaves, each with its axis and the argument it belongs to.
        let mut leaves: Vec<(Atom, BDim, usize, Span)> = Vec::new();
        for (k, ((value, s), spec)) in args.iter().zip(&per_arg).enumerate() {
            let mut specs = Vec::new();
            leaf_specs(spec, value, &mut specs)?;
            let mut values = Vec::new();
            flatten(value, &mut values);
            for (leaf, spec) in values.into_iter().zip(specs) {
                let atom = self.atom(leaf, *s)?;
                let aval = self.b.aval(&atom);
                let d = match spec {
                    AxisSpec::Axis(a, at) => match canonical_axis(a, aval.rank()) {
                        Some(d) => Some(d),
                        None => {
                            let dims: Vec<String> =
                                aval.shape.iter().map(|d| d.to_string()).collect();
                            return err(
                                at,
                                format!(
                                    "{what} was requested to map its argument along axis {a}, which implies that its rank should be at least {}, but is only {} (its shape is {})",
                                    if a < 0 { -a } else { a + 1 },
                                    aval.rank(),
                                    crate::prims::tuple(&dims)
                                ),
                            );
                        }
                    },
                    _ => None,
                };
                leaves.push((atom, d, k, *s));
            }
        }
        // The number of lanes, the same along every mapped axis.
        let mapped: Vec<(Dim, String)> = leaves
            .iter()
            .filter_map(|(a, d, k, _)| {
                let aval = self.b.aval(a);
                let d = (*d)?;
                let arg = names
                    .get(*k)
                    .map_or(format!("args[{k}]"), |n| format!("argument {n}"));
                Some((
                    aval.shape[d].clone(),
                    format!("axis {d} of {arg} of type {}", type_name(&aval)),
                ))
            })
            .collect();
        let Some((size, _)) = mapped.first().cloned() else {
            return err(
                span,
                format!("{what} must have at least one non-None value in in_axes"),
            );
        };
        if mapped.iter().any(|(s, _)| *s != size) {
            let lines: Vec<String> = mapped
                .iter()
                .map(|(s, desc)| format!("  * one axis had size {s}: {desc}"))
                .collect();
            return err(
                span,
                format!(
                    "{what} got inconsistent sizes for array axes to be mapped:\n{}",
                    lines.join(";\n")
                ),
            );
        }
        Ok(MappedLeaves { leaves, size })
    }

    /// The arguments with each Rust array of keys (`[Key; N]`, as
    /// `random::split` makes) mapped along an axis made the key array of
    /// shape `(N,)` it is in JAX (`split(k, n)`): its words `u32[N, 2]`,
    /// mapped along axis 0, so each lane's value is one key.
    pub(crate) fn key_arrays(
        &mut self,
        in_axes: &AxisSpec,
        args: Vec<(Value, Span)>,
        what: &str,
    ) -> Result<(AxisSpec, Vec<(Value, Span)>)> {
        let per_arg: Vec<AxisSpec> = match in_axes {
            AxisSpec::Tuple(specs, _) if specs.len() == args.len() => specs.clone(),
            AxisSpec::Tuple(..) => return Ok((in_axes.clone(), args)),
            s => vec![s.clone(); args.len()],
        };
        let mut specs = Vec::new();
        let mut out = Vec::new();
        let mut changed = false;
        for ((v, s), spec) in args.into_iter().zip(per_arg) {
            let words = match (&v, &spec) {
                (Value::List(items), AxisSpec::Axis(..)) => self.key_list(items, s),
                _ => None,
            };
            match (words, spec) {
                (Some(words), AxisSpec::Axis(a, at)) => {
                    if a != 0 && a != -1 {
                        return err(
                            at,
                            format!("{what} was requested to map a Rust array of keys along axis {a}, but it has one axis (its keys, as JAX's key array of shape (N,)): map it along 0"),
                        );
                    }
                    changed = true;
                    specs.push(AxisSpec::Axis(0, at));
                    out.push((Value::Traced(words?), s));
                }
                (_, spec) => {
                    specs.push(spec);
                    out.push((v, s));
                }
            }
        }
        if !changed {
            return Ok((in_axes.clone(), out));
        }
        let at = match in_axes {
            AxisSpec::Axis(_, at) | AxisSpec::Tuple(_, at) => *at,
            AxisSpec::Unmapped => Span::call_site(),
        };
        Ok((AxisSpec::Tuple(specs, at), out))
    }

    /// The words `u32[N, 2]` of a Rust array of keys (every item a key's
    /// words, `u32[2]`); `None` for any other Rust array.
    fn key_list(&mut self, items: &[Value], span: Span) -> Option<Result<Atom>> {
        let keys: Vec<Atom> = items
            .iter()
            .map(|v| match v {
                Value::Traced(a) if self.b.aval(a) == crate::ir::key_aval() => Some(a.clone()),
                _ => None,
            })
            .collect::<Option<_>>()?;
        if keys.is_empty() {
            return None;
        }
        Some(crate::frontend::trace::jnp::stack(&mut self.b, keys, span))
    }

    /// `f` traced on one lane's values (each mapped axis removed), with
    /// `axis_name` bound to the lane count: its jaxpr, the enclosing
    /// values it read, and its output's structure.
    pub(crate) fn trace_lane(
        &mut self,
        f: &Callable,
        mapped: &MappedLeaves,
        args: &[(Value, Span)],
        axis_name: Option<&str>,
        span: Span,
    ) -> Result<(crate::ir::Jaxpr, Vec<Atom>, Value)> {
        let leaves = &mapped.leaves;
        let size = mapped.size.clone();
        // One lane's values.
        let lane_avals: Vec<Aval> = leaves
            .iter()
            .map(|(a, d, _, _)| {
                let mut aval = self.b.aval(a);
                if let Some(d) = d {
                    aval.shape.remove(*d);
                }
                aval
            })
            .collect();
        let templates: Vec<Value> = args.iter().map(|(v, _)| v.clone()).collect();
        let spans: Vec<Span> = args.iter().map(|(_, s)| *s).collect();
        let mut out_template = Value::Unit;
        let f = f.clone();
        if let Some(name) = axis_name {
            self.axis_env.push((name.to_string(), size.clone()));
        }
        let traced = self.trace_with(lane_avals, |t, inputs| {
            let mut it = inputs.into_iter().map(Value::Traced);
            let lane_args: Vec<(Value, Span)> = templates
                .iter()
                .zip(&spans)
                .map(|(tpl, s)| (rebuild(tpl, &mut it), *s))
                .collect();
            let out = t.apply(&f, lane_args, span)?;
            let mut outs = Vec::new();
            flatten(&out, &mut outs);
            out_template = out;
            outs.into_iter().map(|o| t.atom(o, span)).collect()
        });
        if axis_name.is_some() {
            self.axis_env.pop();
        }
        let (j, free) = traced?;
        Ok((j, free, out_template))
    }
}
