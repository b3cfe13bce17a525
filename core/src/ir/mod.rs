//! The IR: a jaxpr. Typed variables, and equations `outs = prim[params] ins`,
//! each carrying the span of the user's expression that produced it.

use std::fmt;

use jax_dtypes::{DType, Kind};
use proc_macro2::Span;

use primitive::{Params, Prim};

pub mod builder;
pub mod parse;
pub mod pretty;
pub mod primitive;
pub mod print;
pub mod rules;
pub mod rust_expr;
pub mod shapes;

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
    /// A complex64/complex128 value: real and imaginary parts.
    Complex(f64, f64),
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

/// How many equations `eqns` hold, those of the programs they hold
/// (loop bodies, branches) included.
pub fn eqn_count(eqns: &[Eqn]) -> usize {
    eqns.iter()
        .map(|e| {
            1 + e.prim.nested.map_or(0, |nested| {
                nested(&e.params, &e.ins)
                    .0
                    .iter()
                    .flat_map(|p| &p.programs)
                    .map(|(j, _)| eqn_count(&j.eqns))
                    .sum()
            })
        })
        .sum()
}

/// Whether two programs compute the same values the same way: the same
/// input and constant types, constants, equations and outputs, up to the
/// numbering of their variables. A program a parameter holds is compared
/// by identity (`Shared`), except a `jit` call's body, compared this way.
pub fn same_program(a: &Jaxpr, b: &Jaxpr) -> bool {
    if a.invars.len() != b.invars.len()
        || a.constvars.len() != b.constvars.len()
        || a.eqns.len() != b.eqns.len()
        || a.outvars.len() != b.outvars.len()
    {
        return false;
    }
    let mut map: std::collections::HashMap<Var, Var> = std::collections::HashMap::new();
    let bind = |x: Var, y: Var, map: &mut std::collections::HashMap<Var, Var>| {
        let same = a.aval(x) == b.aval(y);
        map.insert(x, y);
        same
    };
    for (x, y) in a.invars.iter().zip(&b.invars) {
        if !bind(*x, *y, &mut map) {
            return false;
        }
    }
    for ((x, xs), (y, ys)) in a.constvars.iter().zip(&b.constvars) {
        if xs != ys || !bind(*x, *y, &mut map) {
            return false;
        }
    }
    let same_atom = |p: &Atom, q: &Atom, map: &std::collections::HashMap<Var, Var>| match (p, q) {
        (Atom::Var(x), Atom::Var(y)) => map.get(x) == Some(y),
        (Atom::Lit(l), Atom::Lit(m)) => l == m,
        _ => false,
    };
    for (e, f) in a.eqns.iter().zip(&b.eqns) {
        let params = match (&e.params, &f.params) {
            (Params::Jit(x), Params::Jit(y)) => {
                x.0.name == y.0.name
                    && x.0.inlined == y.0.inlined
                    && same_program(&x.0.body, &y.0.body)
            }
            (p, q) => p == q,
        };
        if *e.prim != *f.prim
            || !params
            || e.ins.len() != f.ins.len()
            || e.outs.len() != f.outs.len()
            || !e.ins.iter().zip(&f.ins).all(|(p, q)| same_atom(p, q, &map))
        {
            return false;
        }
        for (x, y) in e.outs.iter().zip(&f.outs) {
            if !bind(*x, *y, &mut map) {
                return false;
            }
        }
    }
    a.outvars
        .iter()
        .zip(&b.outvars)
        .all(|(p, q)| same_atom(p, q, &map))
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

/// Whether `a` is a literal of value `v`.
pub fn is_literal(a: &Atom, v: f64) -> bool {
    match a {
        Atom::Lit(Literal {
            value: Scalar::Float(f),
            ..
        }) => *f == v,
        Atom::Lit(Literal {
            value: Scalar::Int(i),
            ..
        }) => *i as f64 == v,
        _ => false,
    }
}

/// A scalar converted to `dtype` as XLA converts (ints wrap, floats round).
pub fn cast_scalar(v: Scalar, dtype: DType) -> Scalar {
    let as_float = |v: Scalar| match v {
        Scalar::Bool(b) => b as u8 as f64,
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
        // XLA's complex-to-real conversion keeps the real part.
        Scalar::Complex(re, _) => re,
    };
    let round = |f: f64| {
        if dtype == DType::C64 {
            f as f32 as f64
        } else {
            f
        }
    };
    match dtype.kind() {
        Kind::Complex => match v {
            Scalar::Complex(re, im) => Scalar::Complex(round(re), round(im)),
            v => Scalar::Complex(round(as_float(v)), 0.0),
        },
        Kind::Bool => Scalar::Bool(as_float(v) != 0.0),
        Kind::Int | Kind::UInt => {
            let i = match v {
                Scalar::Bool(b) => b as i128,
                Scalar::Int(i) => i,
                Scalar::Float(f) | Scalar::Complex(f, _) => f as i128,
            };
            let bits = dtype.bits();
            let wrapped = i & ((1i128 << bits) - 1);
            let signed = dtype.kind() == Kind::Int && wrapped >= 1i128 << (bits - 1);
            Scalar::Int(if signed {
                wrapped - (1i128 << bits)
            } else {
                wrapped
            })
        }
        _ => {
            let f = as_float(v);
            Scalar::Float(match dtype {
                DType::F32 => f as f32 as f64,
                _ => f,
            })
        }
    }
}

/// A PRNG key's value in the jaxpr: its two `u32` words.
pub fn key_aval() -> Aval {
    Aval {
        dtype: DType::U32,
        shape: vec![Dim::Lit(2)],
        weak: false,
    }
}

/// The Rust type of a dtype in emitted code.
pub fn rust_type(d: DType) -> proc_macro2::TokenStream {
    use quote::quote;
    match d {
        DType::Bool => quote!(bool),
        DType::U8 => quote!(u8),
        DType::U16 => quote!(u16),
        DType::U32 => quote!(u32),
        DType::U64 => quote!(u64),
        DType::I8 => quote!(i8),
        DType::I16 => quote!(i16),
        DType::I32 => quote!(i32),
        DType::I64 => quote!(i64),
        DType::BF16 => quote!(::jax::bf16),
        DType::F16 => quote!(::jax::f16),
        DType::F32 => quote!(f32),
        DType::F64 => quote!(f64),
        DType::C64 => quote!(::jax::Complex<f32>),
        DType::C128 => quote!(::jax::Complex<f64>),
    }
}
