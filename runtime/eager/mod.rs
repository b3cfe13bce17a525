//! Eager execution of the composites written once in `jax_core::jnp`:
//! [`Eager`] is the runtime's [`Lax`], binding each primitive to its kernel
//! at once (as JAX's eager mode runs each primitive as it is bound).
//!
//! A composite such as `jnp.polyval` is one generic function over `Lax`.
//! Inside a `#[jax::jit]` body the compiler traces it (`jax_core::lax::Trace`)
//! into equations that are fused and emitted; an eager call of the same
//! function runs it here over [`DynArray`]s. Each bind is checked by the
//! primitive's own abstract evaluation (the one rule that also checks a
//! traced bind, so shapes, dtypes and messages are the same), then its
//! kernel (`kernels.rs`) computes the result.
//!
//! The typed eager functions (`jnp::polyval<A: AsArray>`) convert their
//! arguments with [`arg`], call the composite through [`call`], and give
//! back the type their caller names with [`typed`].

mod kernels;
mod rows;
pub(crate) mod unit;

use jax_core::ir::primitive::{Params, Prim};
use jax_core::ir::shapes::Constraints;
use std::collections::HashMap;

use jax_core::ir::{Atom, Aval, Dim, Eqn, Jaxpr, Literal, Scalar, Var};
use jax_core::lax::Lax;

use crate::array::{ArrayType, AsArray};
use crate::element::{Complex, DType, Element};
use std::rc::Rc;

use crate::tree::{DynArray, DynData};

/// An eager value: a shared, immutable array. Cloning it (a composite
/// reading a value twice) copies nothing, and the last owner gives its
/// buffer back to the pool the kernels take theirs from, as jitted code's
/// buffers are recycled.
#[derive(Clone)]
pub(crate) struct Value(Rc<Held>);

struct Held(DynArray);

impl Drop for Held {
    fn drop(&mut self) {
        take(&mut self.0).into_parts().1.recycle();
    }
}

/// `x`'s array, an empty one left in its place.
fn take(x: &mut DynArray) -> DynArray {
    let empty = DynArray::new(vec![0], DynData::Bool(vec![])).expect("empty");
    std::mem::replace(x, empty)
}

impl Value {
    fn new(x: DynArray) -> Value {
        Value(Rc::new(Held(x)))
    }

    /// The array, without a copy when this is its only owner.
    pub(crate) fn into_array(self) -> DynArray {
        match Rc::try_unwrap(self.0) {
            Ok(mut held) => take(&mut held.0),
            Err(shared) => shared.0.clone(),
        }
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl std::ops::Deref for Value {
    type Target = DynArray;
    fn deref(&self) -> &DynArray {
        &self.0 .0
    }
}

/// [`Lax`] by running each bind: values are [`Value`]s, errors are JAX's
/// messages.
pub(crate) struct Eager {
    constraints: Constraints,
}

impl Eager {
    fn new() -> Eager {
        Eager {
            constraints: Constraints::default(),
        }
    }
}

/// The abstract value of an eager value.
fn aval_of(x: &DynArray) -> Aval {
    Aval {
        dtype: x.dtype(),
        shape: x.shape().iter().map(|&n| Dim::Lit(n)).collect(),
        weak: x.weak_type(),
    }
}

/// A rank-0 array of `dtype` holding `v` (converted as XLA converts).
fn scalar_of(v: &Scalar, dtype: DType) -> DynArray {
    let d = match *v {
        Scalar::Bool(b) => DynData::from_f64(dtype, &[b as u8 as f64]),
        Scalar::Float(f) => DynData::from_f64(dtype, &[f]),
        Scalar::Int(i) => match dtype {
            DType::U64 => DynData::U64(vec![i as u64]),
            DType::I64 => DynData::I64(vec![i as i64]),
            _ => DynData::from_f64(dtype, &[i as f64]),
        },
        Scalar::Complex(re, im) => match dtype {
            DType::C64 => DynData::C64(vec![Complex::new(re as f32, im as f32)]),
            DType::C128 => DynData::C128(vec![Complex::new(re, im)]),
            _ => DynData::from_f64(dtype, &[re]),
        },
    };
    DynArray::new(vec![], d).expect("one element")
}

/// The value of a rank-0 array, as a jaxpr literal holds it.
fn value_of(x: &DynArray) -> Scalar {
    match x.data() {
        DynData::Bool(v) => Scalar::Bool(v[0]),
        DynData::C64(v) => Scalar::Complex(v[0].re as f64, v[0].im as f64),
        DynData::C128(v) => Scalar::Complex(v[0].re, v[0].im),
        DynData::U64(v) => Scalar::Int(v[0] as i128),
        DynData::I64(v) => Scalar::Int(v[0] as i128),
        d if matches!(
            d.dtype(),
            DType::BF16 | DType::F16 | DType::F32 | DType::F64
        ) =>
        {
            Scalar::Float(x.to_vec_f64()[0])
        }
        _ => Scalar::Int(x.to_vec_f64()[0] as i128),
    }
}

impl Lax for Eager {
    type V = Value;
    type E = String;

    fn aval(&self, x: &Value) -> Aval {
        aval_of(x)
    }

    fn x64(&self) -> bool {
        cfg!(feature = "x64")
    }

    fn literal(&mut self, value: Scalar, aval: Aval) -> Value {
        Value::new(scalar_of(&value, aval.dtype).with_weak(aval.weak))
    }

    /// A weakly typed scalar is what a Rust literal becomes eagerly, so it
    /// is the literal a jitted body would see (`x ** 2` is `integer_pow`).
    fn as_literal(&self, x: &Value) -> Option<Literal> {
        (x.shape().is_empty() && x.weak_type()).then(|| Literal {
            value: value_of(x),
            aval: aval_of(x),
        })
    }

    fn constraints(&mut self) -> &mut Constraints {
        &mut self.constraints
    }

    fn bind_all(&mut self, p: Prim, params: Params, ins: Vec<Value>) -> Result<Vec<Value>, String> {
        let avals: Vec<Aval> = ins.iter().map(|x| aval_of(x)).collect();
        let outs = (p.abstract_eval)(&avals, &params, &mut self.constraints)?;
        if p.name == "stop_gradient" {
            // The identity on values: the same buffer.
            return Ok(ins);
        }
        if let Some(eqns) = rewritten(p, &params, &avals, &outs) {
            return self.run_eqns(eqns, ins);
        }
        let refs: Vec<&DynArray> = ins.iter().map(|x| &**x).collect();
        let rs = kernels::run(p, &params, &refs, &outs)?;
        Ok(rs.into_iter().map(Value::new).collect())
    }

    fn error(&self, msg: String) -> String {
        msg
    }

    fn expression_error(&self, msg: String) -> String {
        msg
    }
}

/// A primitive's rewrite (`PrimDef::rewrite`, what XLA's simplifier does
/// inside any program it compiles), applied to one bind: JAX runs each
/// eager operation as a compiled program, so its rewrites change eager
/// values as they change jitted ones (a division by a broadcast divisor is
/// a multiplication by its reciprocal). The equations replacing the bind,
/// over a one-equation jaxpr whose inputs are the operands.
fn rewritten(p: Prim, params: &Params, ins: &[Aval], outs: &[Aval]) -> Option<(Jaxpr, Vec<Eqn>)> {
    let rule = p.rewrite?;
    let mut j = Jaxpr::default();
    j.invars = ins.iter().map(|a| j.new_var(a.clone())).collect();
    let e = Eqn {
        prim: p,
        params: params.clone(),
        ins: j.invars.iter().map(|&v| Atom::Var(v)).collect(),
        outs: outs.iter().map(|a| j.new_var(a.clone())).collect(),
        span: jax_core::Span::call_site(),
    };
    let eqns = rule(&mut j, &e, &|_| None)?;
    j.outvars = e.outs.iter().map(|&v| Atom::Var(v)).collect();
    Some((j, eqns))
}

impl Eager {
    /// Runs `eqns` (of `j`, whose inputs are `ins`) bind by bind: the
    /// results of `j`'s outputs.
    fn run_eqns(
        &mut self,
        (j, eqns): (Jaxpr, Vec<Eqn>),
        ins: Vec<Value>,
    ) -> Result<Vec<Value>, String> {
        let mut env: HashMap<Var, Value> = j.invars.iter().copied().zip(ins).collect();
        let read = |env: &HashMap<Var, Value>, a: &Atom, l: &mut Eager| match a {
            Atom::Var(v) => env[v].clone(),
            Atom::Lit(lit) => l.literal(lit.value, lit.aval.clone()),
        };
        for e in eqns {
            let args: Vec<Value> = e.ins.iter().map(|a| read(&env, a, self)).collect();
            let rs = self.bind_all(e.prim, e.params, args)?;
            env.extend(e.outs.iter().copied().zip(rs));
        }
        Ok(j.outvars.iter().map(|a| read(&env, a, self)).collect())
    }
}

/// Runs a composite eagerly; its error (JAX's message) is a panic at the
/// caller's call.
#[track_caller]
pub(crate) fn call<R>(f: impl FnOnce(&mut Eager) -> Result<R, String>) -> R {
    match f(&mut Eager::new()) {
        Ok(r) => r,
        Err(msg) => panic!("{msg}"),
    }
}

/// An array argument as an eager value.
pub(crate) fn arg<A: AsArray>(x: A) -> Value {
    let a = x.as_array();
    // A pooled buffer: it goes back to the pool when the value dies.
    let mut data = crate::__rt::buffer(a.data().len());
    data.copy_from_slice(a.data());
    Value::new(
        DynArray::from_vec(<A::Array as ArrayType>::SHAPE.to_vec(), data)
            .expect("an array's data fills its shape")
            .with_weak(a.is_weak()),
    )
}

/// An array given as its shape, elements and weak flag, as an eager value.
pub(crate) fn slice_arg<T: Element>(shape: &[usize], data: &[T], weak: bool) -> Value {
    let mut buf = crate::__rt::buffer(data.len());
    buf.copy_from_slice(data);
    Value::new(
        DynArray::from_vec(shape.to_vec(), buf)
            .expect("an array's data fills its shape")
            .with_weak(weak),
    )
}

/// An array of a generic array type, as an eager value.
pub(crate) fn array_arg<A: ArrayType>(x: &A) -> Value {
    slice_arg(A::SHAPE, x.data(), false)
}

/// An eager result as the array type the caller names: `op` and the
/// result's dtype and shape in the message when they differ.
#[track_caller]
pub(crate) fn typed<Out: ArrayType>(op: &str, r: Value) -> Out {
    crate::shape::check_result::<Out>(op, r.dtype(), r.shape());
    let r = r.into_array();
    let weak = r.weak_type();
    let data = r
        .into_vec::<Out::Elem>()
        .expect("check_result compared the dtypes");
    Out::from_data(data).set_weak(weak)
}

#[cfg(test)]
mod tests;
