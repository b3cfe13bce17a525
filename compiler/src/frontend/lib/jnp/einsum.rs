//! `jnp::einsum("ij,jk->ik", (&a, &b))`: the subscripts are a string
//! literal read when the function compiles; the composite is written once
//! in `jax_core::einsum` (the plan of `jax_dtypes::einsum`, run as JAX's
//! `_einsum` runs it), which the eager `jnp::einsum` runs too.

use syn::spanned::Spanned;

use crate::frontend::lib::call::call_err;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Aval};
use jax_core::einsum as core;
use jax_core::jnp::Fault;

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
        let atoms: Vec<Atom> = operands
            .into_iter()
            .map(|v| self.atom(v, ops_span))
            .collect::<Result<_>>()?;
        let avals: Vec<Aval> = atoms.iter().map(|a| self.b.aval(a)).collect();
        // The checks first, at the tokens at fault.
        core::einsum_plan(&subscripts.value(), &avals, self.b.x64).map_err(|r| {
            let at = match r.what {
                Fault::Arg(0) => at,
                _ => ops_span,
            };
            syn::Error::new(at, r.msg)
        })?;
        let out = core::einsum(&mut self.at(span), &subscripts.value(), atoms)?;
        Ok(Value::Traced(out))
    }
}
