//! `jax::checkpoint(f)(args)` and its alias `jax::remat(f)(args)` inside
//! bodies: `f` traced into a program of its own (its arguments and result
//! may be tuples or structs of arrays), bound as one `checkpoint` call
//! (`prims/checkpoint.rs`), whose reverse mode recomputes `f`'s
//! intermediates instead of saving them.

use proc_macro2::Span;

use crate::frontend::bodies::callables::Callable;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{flatten, rebuild, Value};
use crate::ir::builder::{err, Result};
use crate::ir::Atom;

impl Tracer {
    /// `jax::checkpoint(f)(args)`.
    pub(crate) fn checkpoint_call(
        &mut self,
        f: &Callable,
        args: Vec<(Value, Span)>,
        span: Span,
    ) -> Result<Value> {
        let mut leaves: Vec<Atom> = Vec::new();
        for (v, s) in &args {
            let mut vs = Vec::new();
            flatten(v, &mut vs);
            for leaf in vs {
                leaves.push(self.atom(leaf, *s)?);
            }
        }
        let avals = leaves.iter().map(|a| self.b.aval(a)).collect();
        let templates: Vec<(Value, Span)> = args.clone();
        let mut result: Option<Value> = None;
        let (j, free) = self.trace_with(avals, |t, inputs| {
            let mut it = inputs.into_iter().map(Value::Traced);
            let rebuilt = templates
                .iter()
                .map(|(tpl, s)| (rebuild(tpl, &mut it), *s))
                .collect();
            let out = t.apply(f, rebuilt, span)?;
            let mut outs = Vec::new();
            flatten(&out, &mut outs);
            let mut atoms = Vec::new();
            for o in outs {
                match o {
                    Value::Traced(_) | Value::Static(_) => atoms.push(t.atom(o, span)?),
                    _ => return err(
                        span,
                        "a checkpointed function must return arrays (or a tuple or struct of them)",
                    ),
                }
            }
            result = Some(out);
            Ok(atoms)
        })?;
        let Some(template) = result else {
            return err(span, "the checkpointed function returned nothing");
        };
        let mut inputs = leaves;
        inputs.extend(free);
        let params = crate::prims::checkpoint_params(j, None);
        let outs = self
            .b
            .bind(&crate::prims::CHECKPOINT, params, inputs, span)?;
        Ok(rebuild(&template, &mut outs.into_iter().map(Value::Traced)))
    }
}
