//! `jax::pmap(f, axis_name, in_axes, out_axes)(args)` inside jitted bodies.
//!
//! As JAX 0.10 does, it binds a `jit` of a `shard_map` over a mesh of one
//! axis with a device per entry of the mapped axis: each device gets its
//! entry of each mapped argument (a block of one, squeezed), the whole of
//! the others, and runs `f` traced on one entry; its results are stacked
//! along a new axis (`out_axes`, 0 by default), or, for `None`, taken
//! from the first device (a result every device computes alike, as after
//! a `psum`; JAX's `out_specs=P()`). Collectives in `f` name `axis_name` and run
//! across the devices (`__rt::spmd`).

use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::bodies::callables::{AxisSpec, Callable, Pmapped};
use crate::frontend::bodies::vmap::{axis_spec, leaf_specs};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{rebuild, Value};
use crate::ir::builder::{err, Builder, Result};
use crate::ir::rules::Ctx;
use crate::ir::{Atom, Dim};
use crate::prims::{self};
use jax_core::lax::Lax;

/// The axis name JAX gives a `pmap` without one.
const UNNAMED: &str = "_internal_pmap_axis_name";

impl Tracer {
    /// `jax::pmap(f)`, `jax::pmap(f, "i")`, `jax::pmap(f, "i", in_axes)`,
    /// `jax::pmap(f, "i", in_axes, out_axes)`.
    pub(crate) fn pmapped(&mut self, c: &syn::ExprCall) -> Result<Callable> {
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let zero = || AxisSpec::Axis(0, c.span());
        let (f, name, in_axes, out_axes) = match args.as_slice() {
            [f] => (f, None, zero(), zero()),
            [f, n] => (f, Some(*n), zero(), zero()),
            [f, n, i] => (f, Some(*n), axis_spec(i)?, zero()),
            [f, n, i, o] => (f, Some(*n), axis_spec(i)?, axis_spec(o)?),
            _ => {
                return err(
                    c.span(),
                    "`jax::pmap` takes a function, then optionally `axis_name`, `in_axes` and `out_axes`: `jax::pmap(f, \"i\", (None, 0), 0)`",
                )
            }
        };
        let axis_name = match name {
            None => UNNAMED.to_string(),
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) => s.value(),
            Some(syn::Expr::Path(p)) if p.path.is_ident("None") => UNNAMED.to_string(),
            Some(n) => {
                return err(
                    n.span(),
                    "pmap's `axis_name` is a string literal (`\"i\"`) or `None`, written where the call is",
                )
            }
        };
        Ok(Callable::Pmapped(Rc::new(Pmapped {
            f: self.callable(f)?,
            axis_name,
            in_axes,
            out_axes,
        })))
    }

    /// `jax::pmap(f, axis_name, in_axes)(args)`: `f` traced on one entry,
    /// run per device by a `shard_map` inside a `jit`.
    pub(crate) fn pmap_apply(
        &mut self,
        p: &Pmapped,
        args: Vec<(Value, Span)>,
        names: &[String],
        span: Span,
    ) -> Result<Value> {
        if self.in_pmap {
            return err(
                span,
                "a `jax::pmap` inside another `jax::pmap` is not supported: map one axis over the devices, and `jax::vmap` the other",
            );
        }
        let mapped = self.mapped_leaves(&p.in_axes, &args, names, span, "pmap")?;
        let n = match &mapped.size {
            Dim::Lit(n) => *n,
            Dim::Sym(s) => {
                return err(
                    span,
                    format!("pmap over an axis of symbolic size `{s}`: the device count is a number, so map an axis whose size is one"),
                )
            }
        };
        self.in_pmap = true;
        let traced = self.trace_lane(&p.f, &mapped, &args, Some(&p.axis_name), span);
        self.in_pmap = false;
        let (j, free, out_template) = traced?;
        let x64 = self.b.x64;
        let mut operands: Vec<Atom> = Vec::new();
        let mut in_specs: Vec<Option<usize>> = Vec::new();
        for (a, d, _, _) in &mapped.leaves {
            operands.push(a.clone());
            in_specs.push(*d);
        }
        operands.extend(free.iter().cloned());
        in_specs.extend(free.iter().map(|_| None));
        // One device's program: its entries squeezed out of their blocks,
        // `f`, each result a block of one.
        let mut body = Builder::new(x64);
        let mut lane = Vec::new();
        for (a, spec) in operands.iter().zip(&in_specs) {
            let aval = self.b.aval(a);
            let block = prims::blocked(&aval, *spec, n)
                .map_err(|m| crate::ir::builder::expression_error(span, m))?;
            let x = body.input(block);
            let mut cx = Ctx::new(&mut body, span);
            lane.push(match spec {
                Some(d) => cx
                    .squeeze(x, vec![*d])
                    .map_err(|m| crate::ir::builder::expression_error(span, m))?,
                None => x,
            });
        }
        let outs = body.inline(&j, &lane)?;
        // Where each result's entries go: a new axis, or `None` for a
        // result every device computes alike (the first device's is kept).
        let mut specs = Vec::new();
        leaf_specs(&p.out_axes, &out_template, &mut specs)?;
        let mut blocks = Vec::new();
        let mut out_specs = Vec::new();
        for (o, spec) in outs.into_iter().zip(specs) {
            let rank = body.aval(&o).rank() + 1;
            let axis = match spec {
                AxisSpec::Axis(a, at) => {
                    match jax_dtypes::checks::normalize_axis(a as i128, rank) {
                        Ok(d) => Some(d),
                        Err(msg) => return err(at, msg),
                    }
                }
                _ => None,
            };
            let mut cx = Ctx::new(&mut body, span);
            blocks.push(match axis {
                Some(d) => cx
                    .expand_dims(o, &[d])
                    .map_err(|m| crate::ir::builder::expression_error(span, m))?,
                None => o,
            });
            out_specs.push(axis);
        }
        body.jaxpr.outvars = blocks;
        let params =
            prims::shard_map_params(body.jaxpr, &p.axis_name, n, in_specs, out_specs, None);
        // The `jit` around it, as JAX's pmap binds one.
        let mut call = Builder::new(x64);
        let inputs: Vec<Atom> = operands
            .iter()
            .map(|a| call.input(self.b.aval(a)))
            .collect();
        call.jaxpr.outvars = call.bind(&prims::SHARD_MAP, params, inputs, span)?;
        let outs = self.b.bind(
            &prims::JIT,
            prims::jit_params("_fun", call.jaxpr),
            operands,
            span,
        )?;
        Ok(rebuild(
            &out_template,
            &mut outs.into_iter().map(Value::Traced),
        ))
    }
}
