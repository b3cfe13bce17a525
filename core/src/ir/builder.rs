//! Building a jaxpr: binding primitives to operands, with abstract
//! evaluation at each bind (as JAX's tracing does), so every error is found
//! at the user's expression.

use proc_macro2::Span;

use crate::ir::shapes::Constraints;
use std::collections::HashMap;

use crate::ir::primitive::{Params, Prim};
use crate::ir::{Atom, Aval, Eqn, Jaxpr, Literal, Scalar, Var};

/// The jaxpr under construction.
pub struct Builder {
    pub jaxpr: Jaxpr,
    pub constraints: Constraints,
    /// JAX_ENABLE_X64: the width of default ints and floats.
    pub x64: bool,
}

pub type Result<T> = std::result::Result<T, crate::Error>;

/// A compile error at `span`.
pub fn err<T>(span: Span, msg: impl std::fmt::Display) -> Result<T> {
    Err(crate::Error::new(span, msg))
}

thread_local! {
    /// Set when an error about a whole expression (a shape or dtype error
    /// of an operation) was raised with only its first token's span: the
    /// innermost expression being traced then re-spans it over all of its
    /// tokens (stable proc-macro spans cannot be joined).
    static WHOLE_EXPRESSION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Forgets a mark left by an error no expression claimed (each traced
/// function starts clean).
pub fn clear_expression_mark() {
    WHOLE_EXPRESSION.with(|w| w.set(false));
}

/// An error about the whole expression whose first token is at `span`.
pub fn expression_error(span: Span, msg: impl std::fmt::Display) -> crate::Error {
    WHOLE_EXPRESSION.with(|w| w.set(true));
    crate::Error::new(span, msg)
}

/// Whether an error from [`expression_error`] waits to be re-spanned over
/// a whole expression's tokens; taking it clears it (once: the innermost
/// expression claims it).
pub fn take_expression_mark() -> bool {
    WHOLE_EXPRESSION.with(|w| w.replace(false))
}

/// JAX's ConcretizationTypeError: a traced value where a value known at
/// compile time is needed; `why` says what needed it and what to write.
pub fn concretization_error(aval: &crate::ir::Aval, why: &str) -> String {
    format!("ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape {aval}; {why}")
}

impl Builder {
    pub fn new(x64: bool) -> Builder {
        Builder {
            jaxpr: Jaxpr::default(),
            constraints: Constraints::default(),
            x64,
        }
    }

    /// Inputs of the same avals as `j`'s, in order: the start of a program
    /// that inlines or transforms `j`.
    pub fn inputs_like(&mut self, j: &Jaxpr) -> Vec<Atom> {
        j.invars
            .iter()
            .map(|v| self.input(j.aval(*v).clone()))
            .collect()
    }

    pub fn aval(&self, a: &Atom) -> Aval {
        self.jaxpr.atom_aval(a).clone()
    }

    /// A new input variable.
    /// A constant array (a constvar of the jaxpr).
    pub fn constant(&mut self, aval: Aval, values: Vec<Scalar>) -> Atom {
        let v = self.jaxpr.new_var(aval);
        self.jaxpr.constvars.push((v, values));
        Atom::Var(v)
    }

    pub fn input(&mut self, aval: Aval) -> Atom {
        let v = self.jaxpr.new_var(aval);
        self.jaxpr.invars.push(v);
        Atom::Var(v)
    }

    /// Appends `outs = prim[params] ins` and returns the outputs; an abstract
    /// evaluation error becomes a compile error at `span`.
    pub fn bind(
        &mut self,
        prim: Prim,
        params: Params,
        ins: Vec<Atom>,
        span: Span,
    ) -> Result<Vec<Atom>> {
        let avals: Vec<Aval> = ins.iter().map(|a| self.aval(a)).collect();
        let outs = (prim.abstract_eval)(&avals, &params, &mut self.constraints)
            .map_err(|msg| expression_error(span, msg))?;
        let outs: Vec<_> = outs.into_iter().map(|a| self.jaxpr.new_var(a)).collect();
        self.jaxpr.eqns.push(Eqn {
            prim,
            params,
            ins,
            outs: outs.clone(),
            span,
        });
        Ok(outs.into_iter().map(Atom::Var).collect())
    }

    /// [`Builder::bind`] for single-result primitives.
    pub fn bind1(
        &mut self,
        prim: Prim,
        params: Params,
        ins: Vec<Atom>,
        span: Span,
    ) -> Result<Atom> {
        Ok(self.bind(prim, params, ins, span)?.remove(0))
    }

    /// Binds the equations of `j`, with `args` for its inputs: the outputs,
    /// as atoms of this builder. (Transformations build new jaxprs; this
    /// puts one inside another.)
    pub fn inline(&mut self, j: &Jaxpr, args: &[Atom]) -> crate::Result<Vec<Atom>> {
        let mut env: HashMap<Var, Atom> = HashMap::new();
        self.copy_constants(j, &mut env);
        for (v, a) in j.invars.iter().zip(args) {
            env.insert(*v, a.clone());
        }
        for e in &j.eqns {
            let ins: Vec<Atom> = e.ins.iter().map(|a| read(&env, a)).collect();
            let outs = self.bind(e.prim, e.params.clone(), ins, e.span)?;
            for (v, a) in e.outs.iter().zip(outs) {
                env.insert(*v, a);
            }
        }
        Ok(j.outvars.iter().map(|a| read(&env, a)).collect())
    }

    /// Copies the constants of `j` into this builder.
    pub fn copy_constants(&mut self, j: &Jaxpr, env: &mut HashMap<Var, Atom>) {
        for (v, values) in &j.constvars {
            let a = self.constant(j.aval(*v).clone(), values.clone());
            env.insert(*v, a);
        }
    }
}

/// A scalar literal operand.
pub fn literal(value: Scalar, aval: Aval) -> Atom {
    Atom::Lit(Literal { value, aval })
}

/// `a` in the program being built: a variable through `env`, a literal as is.
pub fn read(env: &HashMap<Var, Atom>, a: &Atom) -> Atom {
    match a {
        Atom::Var(v) => env[v].clone(),
        lit => lit.clone(),
    }
}
