//! What the tracer computes with: [`Value`], the abstract value of a Rust
//! expression (a traced atom, a number known now, a const generic, a tuple,
//! a struct, a closure, ...), and the pytree helpers that flatten values to
//! their leaves and rebuild them. Every file of the tracer uses these; this
//! one uses none of them.

use std::collections::HashMap;
use std::rc::Rc;

use crate::ir::{Atom, Jaxpr, Scalar};

/// A value during tracing.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    /// An array or scalar whose value is only known at run time.
    Traced(Atom),
    /// A number known now (a literal, a static loop index, a const).
    Static(Scalar),
    Tuple(Vec<Value>),
    /// A struct of the `#[jax::jit] mod` (a pytree), fields in declared order.
    Struct(String, Vec<(String, Value)>),
    /// A Rust array literal `[a, b, c]`: not an array until
    /// `jnp::array([..])` makes it one, as JAX requires.
    List(Vec<Value>),
    /// `x.at(index)`, waiting for `.get()`.
    At(Atom, Vec<Item>),
    /// A closure, with the scopes it sees; inlined where it is called.
    Closure(Rc<(syn::ExprClosure, Vec<HashMap<String, Value>>)>),
    /// The pullback `jax::vjp(f, x)` returns: called with an output
    /// cotangent, it inlines `f`'s reverse-mode program.
    Pullback(Rc<Pullback>),
    /// A number rustc knows when it compiles the function but the tracer
    /// does not: a const generic of the function (`N`), or a cast of or
    /// arithmetic on one. Where a traced value needs it, its Rust
    /// expression becomes a `static_value` equation.
    Symbolic(Symbolic),
    Unit,
    /// A string literal: an option known when the function compiles
    /// (`jnp::searchsorted(a, v, "right")`), never an array.
    Str(String),
    /// An optimizer or schedule of `jax::optim`: a compile-time value.
    Optim(Rc<crate::frontend::trace::optim::Static>),
    /// A name whose definition failed: it was reported once, so its uses
    /// are skipped instead of reported again.
    Poison,
}

/// See [`Value::Symbolic`].
#[derive(Clone, Debug)]
pub(crate) struct Symbolic {
    /// The Rust expression, in terms of the function's const generics.
    pub(crate) expr: String,
    /// Its dtype once cast (`N as f32`); `None` for Rust's `usize`, which
    /// becomes a weakly typed default int, as a Python int does.
    pub(crate) dtype: Option<jax_dtypes::DType>,
}

impl Symbolic {
    /// The Rust expression of a static number in this symbolic's type.
    pub(crate) fn static_expr(&self, s: Scalar) -> Option<String> {
        let float = self.dtype.is_some_and(|d| d.is_float());
        match s {
            Scalar::Int(i) if float => Some(format!("({}f64 as {})", i, self.rust_type())),
            Scalar::Int(i) if i >= 0 => Some(format!("({i} as {})", self.rust_type())),
            Scalar::Float(f) if float => Some(format!("({f:?}f64 as {})", self.rust_type())),
            _ => None,
        }
    }

    fn rust_type(&self) -> String {
        match self.dtype {
            Some(d) => crate::ir::rust_type(d).to_string(),
            None => "usize".into(),
        }
    }
}

/// One axis of an index.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item {
    /// A single position (the axis goes away).
    Int(i128),
    /// `start..end;step` with Python's bounds (clamped), `None` for open ends.
    Range {
        start: Option<i128>,
        end: Option<i128>,
        step: i128,
    },
    /// A position known only at run time (a traced integer): read with
    /// `dynamic_slice`, clamped into bounds as XLA does.
    Dynamic(Atom),
    /// An integer index array (NumPy's advanced indexing): read with `gather`.
    Array(Atom),
}

/// What `jax::vjp(f, x..)` returns besides the output: `f`'s reverse-mode
/// program (inputs: the primals, the values `f` captured, the output
/// cotangent; outputs: the primals' cotangents) and its inputs so far.
#[derive(Debug)]
pub(crate) struct Pullback {
    pub(crate) program: Jaxpr,
    pub(crate) inputs: Vec<Atom>,
    /// The primals' structures (pytrees), to rebuild their cotangents.
    pub(crate) primals: Vec<Value>,
    /// The output's structure, when a primal or the output is a pytree:
    /// the cotangent must match it.
    pub(crate) out: Option<Value>,
}

/// The leaves of a value (tuples, structs and Rust arrays are flattened, in
/// order), as
/// JAX flattens a pytree.
pub(crate) fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Tuple(items) => items.iter().for_each(|i| flatten(i, out)),
        Value::Struct(_, fields) => fields.iter().for_each(|(_, v)| flatten(v, out)),
        Value::List(items) => items.iter().for_each(|i| flatten(i, out)),
        v => out.push(v.clone()),
    }
}

/// `template` with its leaves replaced, in order, by `leaves`.
pub(crate) fn rebuild(template: &Value, leaves: &mut impl Iterator<Item = Value>) -> Value {
    match template {
        Value::Tuple(items) => Value::Tuple(items.iter().map(|i| rebuild(i, leaves)).collect()),
        Value::Struct(name, fields) => Value::Struct(
            name.clone(),
            fields
                .iter()
                .map(|(f, v)| (f.clone(), rebuild(v, leaves)))
                .collect(),
        ),
        Value::List(items) => Value::List(items.iter().map(|i| rebuild(i, leaves)).collect()),
        _ => leaves.next().expect("as many leaves as the template"),
    }
}
