//! The IR: a jaxpr. Typed variables, and equations `outs = prim[params] ins`,
//! each carrying the span of the user's expression that produced it.

use std::fmt;

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::prims::{Params, Prim};

pub(crate) mod builder;
pub(crate) mod pretty;
pub(crate) mod print;
pub(crate) mod shapes;

/// One dimension of a shape: a number, or a const generic / const item of the
/// user's function whose value rustc knows only after monomorphization.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Lit(usize),
    Sym(String),
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Lit(n) => write!(f, "{n}"),
            Dim::Sym(s) => f.write_str(s),
        }
    }
}

pub type Shape = Vec<Dim>;

/// The abstract value of a variable: dtype, shape, and JAX's weak-type flag.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Aval {
    pub dtype: DType,
    pub shape: Shape,
    pub weak: bool,
}

impl Aval {
    pub fn scalar(dtype: DType, weak: bool) -> Aval {
        Aval {
            dtype,
            shape: Vec::new(),
            weak,
        }
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The same shape with another dtype.
    pub fn with_dtype(&self, dtype: DType, weak: bool) -> Aval {
        Aval {
            dtype,
            shape: self.shape.clone(),
            weak,
        }
    }
}

/// `f32[3,4]`, as jaxprs print types.
impl fmt::Display for Aval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.dtype.short_name())?;
        for (i, d) in self.shape.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// A variable: an index into [`Jaxpr::avals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// A compile-time constant scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i128),
    Float(f64),
}

/// A literal operand: a scalar with its abstract value.
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub value: Scalar,
    pub aval: Aval,
}

/// An equation operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Atom {
    Var(Var),
    Lit(Literal),
}

/// `outs = prim[params] ins`.
#[derive(Clone, Debug)]
pub struct Eqn {
    pub prim: Prim,
    pub params: Params,
    pub ins: Vec<Atom>,
    pub outs: Vec<Var>,
    /// The user's expression that produced this equation.
    pub span: Span,
}

/// A typed program: inputs, equations in order, outputs.
#[derive(Clone, Debug, Default)]
pub struct Jaxpr {
    /// The abstract value of every variable, indexed by [`Var`].
    pub avals: Vec<Aval>,
    /// Constant arrays the body built from literals (`jnp::array([1.0, 2.0])`),
    /// with their row-major values: JAX's closed-over constants.
    pub constvars: Vec<(Var, Vec<Scalar>)>,
    pub invars: Vec<Var>,
    pub eqns: Vec<Eqn>,
    pub outvars: Vec<Atom>,
}

impl Jaxpr {
    pub fn aval(&self, v: Var) -> &Aval {
        &self.avals[v.0 as usize]
    }

    pub fn atom_aval<'a>(&'a self, a: &'a Atom) -> &'a Aval {
        match a {
            Atom::Var(v) => self.aval(*v),
            Atom::Lit(l) => &l.aval,
        }
    }

    /// A fresh variable of this abstract value.
    pub fn new_var(&mut self, aval: Aval) -> Var {
        self.avals.push(aval);
        Var(self.avals.len() as u32 - 1)
    }
}
