//! `jnp::einsum("ij,jk->ik", (&a, &b))`: the subscripts are a string
//! literal read when the function compiles; the plan (which operands to
//! contract, in opt_einsum's greedy order, and JAX's `_einsum` steps for
//! each) comes from `jax_dtypes::einsum`, which the eager `jnp::einsum`
//! uses too, so both compute the same thing in the same order.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::frontend::lib::call::call_err;
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{literal, Result};
use crate::ir::{cast_scalar, Atom, Aval, Dim, Scalar};
use crate::prims::{self, Params};
use jax_core::lax::Lax;
use jax_dtypes::einsum::{plan, Step};
use jax_dtypes::DType;

impl Tracer {
    /// `jnp::einsum(subscripts, (operands..))`.
    pub(crate) fn einsum(&mut self, c: &syn::ExprCall) -> Result<Value> {
        let span = c.span();
        if c.args.len() != 2 {
            return call_err(
                span,
                "`einsum` takes the subscripts and a tuple of arrays: `jnp::einsum(\"ij,jk->ik\", (&a, &b))`",
            );
        }
        // A literal passed through a `macro_rules!` fragment is in a group.
        let mut first = &c.args[0];
        while let syn::Expr::Group(syn::ExprGroup { expr, .. })
        | syn::Expr::Paren(syn::ExprParen { expr, .. }) = first
        {
            first = expr;
        }
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(subscripts),
            ..
        }) = first
        else {
            return Err(syn::Error::new(
                c.args[0].span(),
                "einsum's subscripts must be a string literal (`\"ij,jk->ik\"`): they are read when the function compiles",
            ));
        };
        let at = subscripts.span();
        let ops_span = c.args[1].span();
        let operands = match self.expr(&c.args[1])? {
            Value::Tuple(items) => items,
            v @ Value::Traced(_) => vec![v],
            _ => {
                return Err(syn::Error::new(
                    ops_span,
                    "einsum's operands are a tuple of arrays: `(&a, &b)`",
                ))
            }
        };
        let mut atoms: Vec<Atom> = operands
            .into_iter()
            .map(|v| self.atom(v, ops_span))
            .collect::<Result<_>>()?;
        let avals: Vec<Aval> = atoms.iter().map(|a| self.b.aval(a)).collect();
        let mut shapes = Vec::new();
        for a in &avals {
            let shape: Option<Vec<usize>> = a
                .shape
                .iter()
                .map(|d| match d {
                    Dim::Lit(n) => Some(*n),
                    Dim::Sym(_) => None,
                })
                .collect();
            let Some(shape) = shape else {
                return Err(syn::Error::new(
                    ops_span,
                    format!("einsum of {a}: symbolic dimensions are not supported yet; use arrays of known sizes"),
                ));
            };
            shapes.push(shape);
        }
        let plan = plan(&subscripts.value(), &shapes).map_err(|m| syn::Error::new(at, m))?;
        // jnp.einsum's preferred element type: the operands' result type.
        let kinds: Vec<(DType, bool)> = avals.iter().map(|a| (a.dtype, a.weak)).collect();
        let (dtype, weak) = jax_dtypes::result_type(&kinds, self.b.x64);
        if dtype == DType::Bool {
            return Err(syn::Error::new(
                ops_span,
                "einsum of bool arrays is not supported yet; convert them with `.astype::<i32>()`",
            ));
        }
        // Mixed dtypes are converted up front (JAX's dot_general takes them
        // mixed; this compiler's needs one dtype).
        for (a, av) in atoms.iter_mut().zip(&avals) {
            if av.dtype != dtype {
                *a = jnp::convert(&mut self.b, a.clone(), dtype, false, span)?;
            }
        }
        for step in &plan.contractions {
            let mut taken: Vec<Atom> = step.operands.iter().map(|&p| atoms.remove(p)).collect();
            for (x, steps) in taken.iter_mut().zip(&step.prepare) {
                for s in steps {
                    *x = self.einsum_step(x.clone(), s, dtype, span)?;
                }
            }
            let mut out = match (&step.dot, taken.as_slice()) {
                (None, [x]) => x.clone(),
                (Some(d), [l, r]) => {
                    let (lhs, rhs) = if d.swap {
                        (r.clone(), l.clone())
                    } else {
                        (l.clone(), r.clone())
                    };
                    self.b.bind1(
                        &prims::DOT_GENERAL,
                        Params::DotGeneral {
                            lhs_contract: d.lhs_contract.clone(),
                            rhs_contract: d.rhs_contract.clone(),
                            lhs_batch: d.lhs_batch.clone(),
                            rhs_batch: d.rhs_batch.clone(),
                            preferred: dtype,
                        },
                        vec![lhs, rhs],
                        span,
                    )?
                }
                _ => return call_err(span, "internal error: an einsum step of the wrong arity"),
            };
            if let Some(perm) = &step.transpose {
                out = jnp::transpose(&mut self.b, out, perm.clone(), span)?;
            }
            atoms.push(out);
        }
        let out = atoms.pop().expect("einsum leaves one operand");
        let out = jnp::convert(&mut self.b, out, dtype, weak, span)?;
        Ok(Value::Traced(out))
    }

    fn einsum_step(&mut self, x: Atom, step: &Step, dtype: DType, span: Span) -> Result<Atom> {
        let sum = |t: &mut Tracer, x: Atom, axes: &[usize]| {
            t.at(span).reduce(&prims::REDUCE_SUM, x, axes.to_vec())
        };
        match step {
            Step::Squeeze(dims) => self.at(span).squeeze(x, dims.clone()),
            Step::Sum(axes) => sum(self, x, axes),
            Step::Diagonal { axes, sum: summed } => {
                let a = self.b.aval(&x);
                let mask = delta(self, &a.shape, axes, span)?;
                let zero = literal(
                    cast_scalar(Scalar::Int(0), dtype),
                    Aval::scalar(dtype, false),
                );
                let zeros = jnp::broadcast_to(&mut self.b, zero, a.shape.clone(), span)?;
                let kept = self
                    .at(span)
                    .apply(&prims::SELECT_N, vec![mask, zeros, x])?;
                sum(self, kept, summed)
            }
        }
    }
}

/// JAX's `lax._delta(bool, shape, axes)`: true where the indices along
/// `axes` are all equal (an `iota` per axis, compared pairwise).
fn delta(t: &mut Tracer, shape: &[Dim], axes: &[usize], span: Span) -> Result<Atom> {
    let base: Vec<Dim> = axes.iter().map(|&a| shape[a].clone()).collect();
    let iotas = (0..base.len())
        .map(|dimension| t.at(span).iota(DType::U32, base.clone(), dimension))
        .collect::<Result<Vec<_>>>()?;
    let eyes = iotas
        .windows(2)
        .map(|w| t.at(span).apply(&prims::EQ, w.to_vec()))
        .collect::<Result<Vec<_>>>()?;
    let mut mask = eyes[0].clone();
    for e in &eyes[1..] {
        mask = t.at(span).binary(&prims::AND, mask, e.clone())?;
    }
    if base == shape && axes.iter().copied().eq(0..shape.len()) {
        return Ok(mask);
    }
    t.at(span)
        .broadcast_in_dim(mask, shape.to_vec(), axes.to_vec())
}
