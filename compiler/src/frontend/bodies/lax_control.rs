//! Control flow on traced values, as JAX's `lax` has it: `fori_loop`,
//! `while_loop`, `scan` (and `scan_with`), `cond` and `switch`. Each body or
//! branch is a function traced apart (`callables.rs`) into a jaxpr of its
//! own, bound as one `scan`, `while` or `cond` equation; the values a body
//! reads from the enclosing one become extra inputs. Carries follow JAX's
//! weak-type promotion.

use std::rc::Rc;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::bodies::callables::{is_path, Callable};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{flatten, rebuild, Value};
use crate::ir::builder::{err, Result};
use crate::ir::{Atom, Jaxpr};
use jax_core::lax::{Lax, Trace};

impl Tracer {
    /// `lax::fori_loop(..)`, `lax::cond(..)`, `lax::switch(..)`,
    /// `lax::while_loop(..)`, `lax::scan(..)`: `None` when `c` is none of these.
    pub(crate) fn call_lax_control(&mut self, c: &syn::ExprCall) -> Result<Option<Value>> {
        self.keeping_programs(|t| t.lax_control(c))
    }

    fn lax_control(&mut self, c: &syn::ExprCall) -> Result<Option<Value>> {
        if is_path(&c.func, "lax", "fori_loop") {
            return self.fori_loop_call(c).map(Some);
        }
        if is_path(&c.func, "lax", "cond") {
            return self.cond_call(c).map(Some);
        }
        if is_path(&c.func, "lax", "switch") {
            return self.switch_call(c).map(Some);
        }
        if is_path(&c.func, "lax", "while_loop") {
            return self.while_call(c).map(Some);
        }
        if is_path(&c.func, "lax", "scan") || is_path(&c.func, "lax", "scan_with") {
            return self.scan_call(c).map(Some);
        }
        Ok(None)
    }

    /// A loop body's returned carry as atoms of the carry's types (same
    /// structure, shapes and dtypes; weak values take the carry's dtype).
    fn carry_out(
        &mut self,
        outs: Vec<Value>,
        wanted: &[crate::ir::Aval],
        what: &str,
        span: Span,
    ) -> Result<Vec<Atom>> {
        if outs.len() != wanted.len() {
            return err(
                span,
                format!("the {what} body must return the carry's structure ({} arrays or scalars), got {}", wanted.len(), outs.len()),
            );
        }
        let mut atoms = Vec::new();
        for (o, want) in outs.into_iter().zip(wanted) {
            let a = self.atom(o, span)?;
            let got = self.b.aval(&a);
            if got.shape != want.shape || got.dtype != want.dtype {
                return err(span, format!("the {what} body must return the carry's types: got {got} for a carry of {want}"));
            }
            // A weakly typed carry may come back strong (JAX keeps the
            // input weak and converts it where it is used); a strong one
            // stays strong.
            let weak = want.weak && got.weak;
            atoms.push(crate::frontend::trace::jnp::convert(
                &mut self.b,
                a,
                want.dtype,
                weak,
                span,
            )?);
        }
        Ok(atoms)
    }

    /// JAX's weak-typed carry promotion: a weakly typed initial value (a
    /// literal such as `0.0`) takes the dtype the body gives it back. `probe`
    /// traces the body once on the carry as given and returns the avals of
    /// the carry it returns; weak leaves whose dtype changes are converted
    /// (and become strong); the others stay as given, weak included.
    /// Returns the carry's final avals.
    fn settle_carry(
        &mut self,
        carry: &mut [Atom],
        span: Span,
        probe: impl FnOnce(&mut Tracer, Vec<crate::ir::Aval>) -> Result<Vec<crate::ir::Aval>>,
    ) -> Result<Vec<crate::ir::Aval>> {
        let given: Vec<crate::ir::Aval> = carry.iter().map(|a| self.b.aval(a)).collect();
        let mut settled = given.clone();
        if given.iter().any(|a| a.weak) {
            let outs = probe(self, given.clone())?;
            for (k, (g, o)) in given.iter().zip(&outs).enumerate() {
                if g.weak && o.dtype != g.dtype && o.shape == g.shape {
                    carry[k] = crate::frontend::trace::jnp::convert(
                        &mut self.b,
                        carry[k].clone(),
                        o.dtype,
                        false,
                        span,
                    )?;
                    settled[k] = crate::ir::Aval {
                        dtype: o.dtype,
                        weak: false,
                        ..o.clone()
                    };
                }
            }
        }
        Ok(settled)
    }

    /// `lax::fori_loop(lower, upper, |i, carry| .., init)`: one `fori_loop`
    /// equation whose body is the closure traced apart (the values it reads
    /// from the enclosing body become loop invariants).
    fn fori_loop_call(&mut self, c: &syn::ExprCall) -> Result<Value> {
        if c.args.len() != 4 {
            return err(
                c.span(),
                "`lax::fori_loop` takes lower, upper, a body `|i, carry| ..` and the initial carry",
            );
        }
        let int = jax_dtypes::default_dtype(jax_dtypes::Kind::Int, self.b.x64);
        let bound = |t: &mut Tracer, e: &syn::Expr| -> Result<Atom> {
            let v = t.expr(e)?;
            let a = t.atom(v, e.span())?;
            let weak = t.b.aval(&a).weak;
            crate::frontend::trace::jnp::convert(&mut t.b, a, int, weak, e.span())
        };
        let lo = bound(self, &c.args[0])?;
        let hi = bound(self, &c.args[1])?;
        let body = self.callable(&c.args[2])?;
        let init = self.expr(&c.args[3])?;
        let mut leaves = Vec::new();
        flatten(&init, &mut leaves);
        let mut carry = Vec::new();
        for l in leaves {
            carry.push(self.atom(l, c.args[3].span())?);
        }
        let span = c.span();
        // The body on inputs `[i, carry leaves..]`, returning the new carry's leaves.
        let run_body = |t: &mut Tracer, inputs: &[Atom]| -> Result<Vec<Value>> {
            let mut it = inputs[1..].iter().cloned().map(Value::Traced);
            let carry_value = rebuild(&init, &mut it);
            let index = Value::Traced(inputs[0].clone());
            let out = t.apply(&body, vec![(index, span), (carry_value, span)], span)?;
            let mut outs = Vec::new();
            flatten(&out, &mut outs);
            Ok(outs)
        };
        let with_index = |carry: &[crate::ir::Aval]| {
            let mut avals = vec![crate::ir::Aval::scalar(int, false)];
            avals.extend(carry.iter().cloned());
            avals
        };
        let carry_avals = self.settle_carry(&mut carry, span, |t, given| {
            let (j, _) = t.trace_with(with_index(&given), |t, inputs| {
                let outs = run_body(t, &inputs)?;
                outs.into_iter().map(|o| t.atom(o, span)).collect()
            })?;
            Ok(j.outvars.iter().map(|a| j.atom_aval(a).clone()).collect())
        })?;
        let n = carry.len();
        let index_aval = crate::ir::Aval::scalar(int, false);
        let one = crate::ir::builder::literal(crate::ir::Scalar::Int(1), index_aval.clone());
        // Static bounds make a `scan` that carries the index, as JAX does:
        // reverse mode can then store each step's residuals. Traced bounds
        // make a `while` over `(i, upper, carry..)`.
        let static_bounds = match (&lo, &hi) {
            (Atom::Lit(l), Atom::Lit(h)) => match (l.value, h.value) {
                (crate::ir::Scalar::Int(l), crate::ir::Scalar::Int(h)) => Some((l, h)),
                _ => None,
            },
            _ => None,
        };
        let mut avals = vec![index_aval.clone()];
        if static_bounds.is_none() {
            avals.push(index_aval.clone());
        }
        avals.extend(carry_avals.iter().cloned());
        let lead = avals.len() - n;
        let (j, free) = self.trace_with(avals, |t, inputs| {
            let next = t
                .at(span)
                .binary(&crate::prims::ADD, inputs[0].clone(), one.clone())?;
            let mut with_index = vec![inputs[0].clone()];
            with_index.extend_from_slice(&inputs[lead..]);
            let outs = run_body(t, &with_index)?;
            let mut new = inputs[..lead].to_vec();
            new[0] = next;
            new.extend(t.carry_out(outs, &carry_avals, "fori_loop", span)?);
            Ok(new)
        })?;
        let mut ins = vec![lo];
        let outs = if let Some((l, h)) = static_bounds {
            let params =
                crate::prims::Params::Scan(crate::prims::Shared(Rc::new(crate::prims::Scan {
                    body: j,
                    n_carry: n + 1,
                    n_xs: 0,
                    length: (h - l).max(0) as usize,
                    reverse: false,
                })));
            ins.extend(carry);
            ins.extend(free);
            self.b.bind(&crate::prims::SCAN, params, ins, span)?
        } else {
            // The condition `i < upper`, on the whole carry.
            let mut cb = crate::ir::builder::Builder::new(self.b.x64);
            let i = cb.input(index_aval.clone());
            let upper = cb.input(index_aval);
            for a in &carry_avals {
                cb.input(a.clone());
            }
            let go = Trace::new(&mut cb, span).binary(&crate::prims::LT, i, upper)?;
            cb.jaxpr.outvars = vec![go];
            let params =
                crate::prims::Params::While(crate::prims::Shared(Rc::new(crate::prims::While {
                    cond: cb.jaxpr,
                    body: j,
                    n_carry: n + 2,
                    n_free_cond: 0,
                })));
            ins.push(hi);
            ins.extend(carry);
            ins.extend(free);
            self.b.bind(&crate::prims::WHILE, params, ins, span)?
        };
        let mut it = outs.into_iter().skip(lead).map(Value::Traced);
        Ok(rebuild(&init, &mut it))
    }

    /// `lax::cond(pred, |ops| .., |ops| .., operand)`: both branches traced
    /// apart on the operand (their outputs must have one type), one `cond`
    /// equation on the predicate as an `int32` index (`[false, true]`), as
    /// JAX traces it; a predicate known now is a literal index.
    fn cond_call(&mut self, c: &syn::ExprCall) -> Result<Value> {
        if c.args.len() != 4 {
            return err(
                c.span(),
                "`lax::cond` takes a predicate, a true branch, a false branch and the operand",
            );
        }
        let span = c.span();
        let pred = self.expr(&c.args[0])?;
        let on_true = self.callable(&c.args[1])?;
        let on_false = self.callable(&c.args[2])?;
        let operand = self.expr(&c.args[3])?;
        let i32_scalar = crate::ir::Aval::scalar(jax_dtypes::DType::I32, false);
        let index = if let Value::Static(s) = &pred {
            let truth = match s {
                crate::ir::Scalar::Bool(b) => *b,
                crate::ir::Scalar::Int(i) => *i != 0,
                crate::ir::Scalar::Float(f) => *f != 0.0,
                crate::ir::Scalar::Complex(re, im) => *re != 0.0 || *im != 0.0,
            };
            crate::ir::builder::literal(crate::ir::Scalar::Int(truth as i128), i32_scalar)
        } else {
            let p = self.atom(pred, c.args[0].span())?;
            let pa = self.b.aval(&p);
            if pa.rank() != 0 || pa.dtype != jax_dtypes::DType::Bool {
                return err(c.args[0].span(), format!("Pred type must be either boolean or number, got {pa}: cond takes a scalar predicate"));
            }
            crate::frontend::trace::jnp::convert(
                &mut self.b,
                p,
                jax_dtypes::DType::I32,
                false,
                span,
            )?
        };
        self.cond_traced(index, &[on_false, on_true], operand, c.args[3].span(), span)
    }

    /// `lax::switch(index, [branch, ..], operand)`: one `cond` on the index
    /// clamped into range, as JAX does (a known index is clamped now).
    fn switch_call(&mut self, c: &syn::ExprCall) -> Result<Value> {
        if c.args.len() != 3 {
            return err(
                c.span(),
                "`lax::switch` takes an index, an array of branches `[|x| .., ..]` and the operand",
            );
        }
        let span = c.span();
        let syn::Expr::Array(list) = &c.args[1] else {
            return err(
                c.args[1].span(),
                "write the branches as an array: `[|x| .., |x| ..]`",
            );
        };
        if list.elems.is_empty() {
            return err(c.args[1].span(), "switch needs at least one branch");
        }
        let branches = list
            .elems
            .iter()
            .map(|e| self.callable(e))
            .collect::<Result<Vec<_>>>()?;
        let index = self.expr(&c.args[0])?;
        let operand = self.expr(&c.args[2])?;
        if branches.len() == 1 {
            return self.apply(&branches[0], vec![(operand, c.args[2].span())], span);
        }
        let n = branches.len() as i128;
        let i32_scalar = crate::ir::Aval::scalar(jax_dtypes::DType::I32, false);
        let lit =
            |v: i128| crate::ir::builder::literal(crate::ir::Scalar::Int(v), i32_scalar.clone());
        let index = if let Value::Static(crate::ir::Scalar::Int(i)) = index {
            lit(i.clamp(0, n - 1))
        } else {
            let i = self.atom(index, c.args[0].span())?;
            let ia = self.b.aval(&i);
            if ia.rank() != 0 || !ia.dtype.is_integer() {
                return err(
                    c.args[0].span(),
                    format!("Branch index must be scalar integer, got {ia}"),
                );
            }
            let i = crate::frontend::trace::jnp::convert(
                &mut self.b,
                i,
                jax_dtypes::DType::I32,
                false,
                span,
            )?;
            self.at(span)
                .apply(&crate::prims::CLAMP, vec![lit(0), i, lit(n - 1)])?
        };
        self.cond_traced(index, &branches, operand, c.args[2].span(), span)
    }

    /// One `cond` equation: every branch traced apart on the operand; their
    /// outputs must have one type.
    fn cond_traced(
        &mut self,
        index: Atom,
        branches: &[Callable],
        operand: Value,
        operand_span: Span,
        span: Span,
    ) -> Result<Value> {
        let mut leaves = Vec::new();
        flatten(&operand, &mut leaves);
        let mut ops = Vec::new();
        for l in leaves {
            ops.push(self.atom(l, operand_span)?);
        }
        let avals: Vec<crate::ir::Aval> = ops.iter().map(|a| self.b.aval(a)).collect();
        let mut traced = Vec::new();
        let mut out_template = None;
        for f in branches {
            let (j, free) = self.trace_with(avals.clone(), |t, inputs| {
                let mut it = inputs.into_iter().map(Value::Traced);
                let arg = rebuild(&operand, &mut it);
                let out = t.apply(f, vec![(arg, span)], span)?;
                let mut outs = Vec::new();
                flatten(&out, &mut outs);
                let atoms = outs
                    .into_iter()
                    .map(|o| t.atom(o, span))
                    .collect::<Result<Vec<_>>>()?;
                out_template.get_or_insert(out);
                Ok(atoms)
            })?;
            traced.push((j, free));
        }
        let types = |j: &Jaxpr| -> Vec<crate::ir::Aval> {
            j.outvars
                .iter()
                .map(|a| crate::ir::Aval {
                    weak: false,
                    ..j.atom_aval(a).clone()
                })
                .collect()
        };
        let show = |t: &[crate::ir::Aval]| {
            t.iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let first = types(&traced[0].0);
        for (k, (j, _)) in traced.iter().enumerate().skip(1) {
            let other = types(j);
            if other != first {
                let msg = if branches.len() == 2 {
                    format!("true_fun and false_fun output must have identical types, got\n  true_fun: ({})\n  false_fun: ({})", show(&other), show(&first))
                } else {
                    format!("branch 0 and {k} outputs must have identical types, got\n  branch 0: ({})\n  branch {k}: ({})", show(&first), show(&other))
                };
                return err(span, msg);
            }
        }
        let mut ins = vec![index];
        ins.extend(ops);
        let mut programs = Vec::new();
        let mut n_frees = Vec::new();
        let mut frees = Vec::new();
        for (j, free) in traced {
            programs.push(j);
            n_frees.push(free.len());
            frees.extend(free);
        }
        let n_operands = ins.len() - 1;
        ins.extend(frees);
        let params =
            crate::prims::Params::Cond(crate::prims::Shared(Rc::new(crate::prims::Cond {
                branches: programs,
                n_operands,
                n_frees,
            })));
        let outs = self.b.bind(&crate::prims::COND, params, ins, span)?;
        let mut it = outs.into_iter().map(Value::Traced);
        Ok(rebuild(&out_template.expect("traced"), &mut it))
    }

    /// `lax::while_loop(|c| .., |c| .., init)`: the condition and the body
    /// traced apart on the carry, one `while` equation.
    fn while_call(&mut self, c: &syn::ExprCall) -> Result<Value> {
        if c.args.len() != 3 {
            return err(c.span(), "`lax::while_loop` takes a condition `|carry| ..`, a body `|carry| ..` and the initial carry");
        }
        let span = c.span();
        let cond_fn = self.callable(&c.args[0])?;
        let body_fn = self.callable(&c.args[1])?;
        let init = self.expr(&c.args[2])?;
        let mut leaves = Vec::new();
        flatten(&init, &mut leaves);
        let mut carry = Vec::new();
        for l in leaves {
            carry.push(self.atom(l, c.args[2].span())?);
        }
        // The body on the carry's leaves, returning the new carry's leaves.
        let run_body = |t: &mut Tracer, inputs: Vec<Atom>| -> Result<Vec<Value>> {
            let mut it = inputs.into_iter().map(Value::Traced);
            let arg = rebuild(&init, &mut it);
            let out = t.apply(&body_fn, vec![(arg, span)], span)?;
            let mut outs = Vec::new();
            flatten(&out, &mut outs);
            Ok(outs)
        };
        let avals = self.settle_carry(&mut carry, span, |t, given| {
            let (j, _) = t.trace_with(given, |t, inputs| {
                let outs = run_body(t, inputs)?;
                outs.into_iter().map(|o| t.atom(o, span)).collect()
            })?;
            Ok(j.outvars.iter().map(|a| j.atom_aval(a).clone()).collect())
        })?;
        let n = carry.len();
        let (cond, free_cond) = self.trace_with(avals.clone(), |t, inputs| {
            let mut it = inputs.into_iter().map(Value::Traced);
            let arg = rebuild(&init, &mut it);
            let out = t.apply(&cond_fn, vec![(arg, span)], span)?;
            let a = t.atom(out, span)?;
            let aval = t.b.aval(&a);
            if aval.rank() != 0 || aval.dtype != jax_dtypes::DType::Bool {
                return err(
                    span,
                    format!(
                        "cond_fun must return a boolean scalar, but got output type(s) [{aval}]"
                    ),
                );
            }
            Ok(vec![a])
        })?;
        let wanted = avals.clone();
        let (body, free_body) = self.trace_with(avals, |t, inputs| {
            let outs = run_body(t, inputs)?;
            t.carry_out(outs, &wanted, "while_loop", span)
        })?;
        let params =
            crate::prims::Params::While(crate::prims::Shared(Rc::new(crate::prims::While {
                cond,
                body,
                n_carry: n,
                n_free_cond: free_cond.len(),
            })));
        let mut ins = carry;
        ins.extend(free_cond);
        ins.extend(free_body);
        let outs = self.b.bind(&crate::prims::WHILE, params, ins, span)?;
        let mut it = outs.into_iter().map(Value::Traced);
        Ok(rebuild(&init, &mut it))
    }

    /// `lax::scan(|carry, x| (carry, y), init, xs)`: the body traced apart on
    /// the carry and one row of every x; the ys come back stacked.
    fn scan_call(&mut self, c: &syn::ExprCall) -> Result<Value> {
        let with = is_path(&c.func, "lax", "scan_with");
        if c.args.len() != 3 + with as usize {
            return err(
                c.span(),
                if with {
                    "`lax::scan_with` takes a body `|carry, x| (carry, y)`, the initial carry, the xs and `lax::ScanOptions { .. }`"
                } else {
                    "`lax::scan` takes a body `|carry, x| (carry, y)`, the initial carry and the xs (`lax::scan_with` also takes `length` and `reverse`)"
                },
            );
        }
        let (length_option, reverse) = if with {
            self.scan_options(&c.args[3])?
        } else {
            (None, false)
        };
        let span = c.span();
        let body_fn = self.callable(&c.args[0])?;
        let init = self.expr(&c.args[1])?;
        let xs = self.expr(&c.args[2])?;
        let atoms_of = |t: &mut Tracer, v: &Value, s: Span| -> Result<Vec<Atom>> {
            let mut leaves = Vec::new();
            flatten(v, &mut leaves);
            leaves.into_iter().map(|l| t.atom(l, s)).collect()
        };
        let carry = atoms_of(self, &init, c.args[1].span())?;
        let xs_atoms = atoms_of(self, &xs, c.args[2].span())?;
        let mut length = None;
        let mut row_avals = Vec::new();
        for a in &xs_atoms {
            let aval = self.b.aval(a);
            let Some(crate::ir::Dim::Lit(n)) = aval.shape.first().cloned() else {
                return err(
                    c.args[2].span(),
                    format!("scan's xs need a leading axis of known length, got {aval}"),
                );
            };
            if length.is_some_and(|l| l != n) {
                return err(c.args[2].span(), "scan got xs of different leading lengths");
            }
            length = Some(n);
            row_avals.push(crate::ir::Aval {
                shape: aval.shape[1..].to_vec(),
                ..aval
            });
        }
        let length = match (length, length_option) {
            (Some(n), Some(l)) if n != l => {
                return err(
                    c.args[3].span(),
                    format!("scan got `length` argument of {l} which disagrees with leading axis sizes {n}"),
                )
            }
            (Some(n), _) | (None, Some(n)) => n,
            (None, None) => {
                return err(
                    c.args[2].span(),
                    "scan got no values to scan over and `length` not provided: pass xs with a leading axis, or `lax::scan_with(.., lax::ScanOptions { length: Some(n), ..Default::default() })`",
                )
            }
        };
        let nc = carry.len();
        let mut carry = carry;
        let rows = row_avals.clone();
        // The body on `[carry leaves.., x leaves..]`, returning the new
        // carry's leaves and the y.
        let run_body = |t: &mut Tracer, inputs: &[Atom]| -> Result<(Vec<Value>, Value)> {
            let mut it = inputs[..nc].iter().cloned().map(Value::Traced);
            let carry_v = rebuild(&init, &mut it);
            let mut it = inputs[nc..].iter().cloned().map(Value::Traced);
            let x_v = rebuild(&xs, &mut it);
            let out = t.apply(&body_fn, vec![(carry_v, span), (x_v, span)], span)?;
            let Value::Tuple(mut pair) = out else {
                return err(span, "the scan body must return `(carry, y)`");
            };
            if pair.len() != 2 {
                return err(span, "the scan body must return `(carry, y)`");
            }
            let y = pair.pop().unwrap();
            let mut carry_leaves = Vec::new();
            flatten(&pair[0], &mut carry_leaves);
            Ok((carry_leaves, y))
        };
        let carry_avals = self.settle_carry(&mut carry, span, |t, given| {
            let mut avals = given;
            avals.extend(rows);
            let (j, _) = t.trace_with(avals, |t, inputs| {
                let (outs, _) = run_body(t, &inputs)?;
                outs.into_iter().map(|o| t.atom(o, span)).collect()
            })?;
            Ok(j.outvars.iter().map(|a| j.atom_aval(a).clone()).collect())
        })?;
        let mut avals = carry_avals.clone();
        avals.extend(row_avals);
        let mut ys_template = None;
        let (body, free) = self.trace_with(avals, |t, inputs| {
            let (cl, y) = run_body(t, &inputs)?;
            let mut atoms = t.carry_out(cl, &carry_avals, "scan", span)?;
            let mut yl = Vec::new();
            flatten(&y, &mut yl);
            for l in yl {
                atoms.push(t.atom(l, span)?);
            }
            ys_template = Some(y);
            Ok(atoms)
        })?;
        let params =
            crate::prims::Params::Scan(crate::prims::Shared(Rc::new(crate::prims::Scan {
                body,
                n_carry: nc,
                n_xs: xs_atoms.len(),
                length,
                reverse,
            })));
        let mut ins = carry;
        ins.extend(xs_atoms);
        ins.extend(free);
        let outs = self.b.bind(&crate::prims::SCAN, params, ins, span)?;
        let mut it = outs.into_iter().map(Value::Traced);
        let carry_out = rebuild(&init, &mut it);
        let ys = rebuild(&ys_template.expect("traced"), &mut it);
        Ok(Value::Tuple(vec![carry_out, ys]))
    }

    /// `lax::ScanOptions { length: Some(n), reverse: b, ..Default::default() }`,
    /// its values known when the function compiles.
    fn scan_options(&mut self, e: &syn::Expr) -> Result<(Option<usize>, bool)> {
        let usage = "write the options as a literal, `lax::ScanOptions { length: Some(n), reverse: true, ..Default::default() }`, with values known when the function compiles";
        let syn::Expr::Struct(s) = e else {
            return err(e.span(), usage);
        };
        let (mut length, mut reverse) = (None, false);
        for f in &s.fields {
            let name = match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(_) => String::new(),
            };
            match name.as_str() {
                "length" => {
                    length = match &f.expr {
                        syn::Expr::Path(p) if p.path.is_ident("None") => None,
                        syn::Expr::Call(call) if matches!(&*call.func, syn::Expr::Path(p) if p.path.is_ident("Some")) && call.args.len() == 1 => {
                            match self.expr(&call.args[0])? {
                                Value::Static(crate::ir::Scalar::Int(n)) if n >= 0 => Some(n as usize),
                                _ => return err(call.args[0].span(), "scan's `length` must be a non-negative integer known when the function compiles"),
                            }
                        }
                        other => return err(other.span(), "`length` is `Some(n)` or `None`"),
                    }
                }
                "reverse" => {
                    reverse = match self.expr(&f.expr)? {
                        Value::Static(crate::ir::Scalar::Bool(b)) => b,
                        _ => return err(f.expr.span(), "scan's `reverse` must be a bool known when the function compiles"),
                    }
                }
                _ => return err(f.member.span(), format!("`ScanOptions` has no field `{name}`: it has `length` and `reverse`")),
            }
        }
        Ok((length, reverse))
    }
}
