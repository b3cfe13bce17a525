//! Handlers of the table in `lib/lower.rs` that make new arrays: filled like
//! another (`zeros_like`, `ones_like`, `full_like`), from Rust array
//! literals (`jnp::array([..])`), and the JAX constructors whose shape
//! would come from a value (`jnp::zeros(n)`, `jnp::arange(n)`), which here
//! take their shape from the type instead.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, unsupported, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Dim, Scalar};
use crate::prims::{self};
use jax_core::lax::Lax;

/// An array of `x`'s shape and dtype, filled with zeros, ones or a value.
pub(crate) fn filled_like(t: &mut Tracer, c: Call) -> Result<Value> {
    let (name, span) = (c.name, c.span);
    c.want(if name == "full_like" { 2 } else { 1 })?;
    let x = c.atom(t, 0)?;
    let a = t.b.aval(&x);
    let fill = match (name, c.args.get(1)) {
        ("zeros_like", _) => Value::Static(Scalar::Int(0)),
        ("ones_like", _) => Value::Static(Scalar::Int(1)),
        (_, Some((v, _))) => v.clone(),
        _ => unreachable!("checked by want"),
    };
    let v = match fill {
        Value::Static(v) => crate::ir::builder::literal(
            crate::ir::cast_scalar(v, a.dtype),
            crate::ir::Aval::scalar(a.dtype, false),
        ),
        other => {
            let v = t.atom(other, c.args[1].1)?;
            jnp::convert(&mut t.b, v, a.dtype, false, span)?
        }
    };
    Ok(Value::Traced(jnp::broadcast_to(
        &mut t.b, v, a.shape, span,
    )?))
}

/// `jnp::array(v)`, `jnp::asarray(v)`: of one traced value, the value
/// itself (`asarray`) or a `copy` of it (`array`, weak type kept), as in
/// JAX; of a Rust array literal, the array it writes.
pub(crate) fn array_value(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let (v, s) = c.args[0].clone();
    if let Value::Traced(x) = v {
        if c.name == "asarray" {
            return Ok(Value::Traced(x));
        }
        return Ok(Value::Traced(t.at(s).unary(&prims::COPY, x)?));
    }
    Ok(Value::Traced(array_literal(t, v, s)?))
}

/// `jnp::arange(n)`, `jnp::zeros(n)`, ...: with a traced argument, JAX's
/// ConcretizationTypeError (shapes are static, part of the type); the
/// others are not supported (`Array::<f32, 3>::zeros()` is the way).
pub(crate) fn shape_from_value(t: &mut Tracer, c: Call) -> Result<Value> {
    let traced = c.args.iter().find_map(|(v, at)| match v {
        Value::Traced(a) => Some((t.b.aval(a), *at)),
        _ => None,
    });
    let Some((aval, at)) = traced else {
        return unsupported(c);
    };
    call_err(
        at,
        crate::ir::builder::concretization_error(
            &aval,
            &format!(
                "`{}` would make an array whose shape depends on a run-time value, but shapes are static (they are part of `Array<T, ...>`). \
                 Make the size a const or const generic `N`, which the function is compiled for",
                c.name
            ),
        ),
    )
}

/// `jnp::array([..])`: a constant array when every element is known now
/// (JAX's closed-over constants), else JAX's convert, broadcast and
/// concatenate of the elements (one dimension).
fn array_literal(t: &mut Tracer, v: Value, span: Span) -> Result<Atom> {
    fn leaves(
        v: &Value,
        depth: usize,
        shape: &mut Vec<usize>,
        out: &mut Vec<Value>,
        span: Span,
    ) -> Result<()> {
        match v {
            Value::List(items) => {
                if shape.len() == depth {
                    shape.push(items.len());
                } else if shape.get(depth) != Some(&items.len()) {
                    return call_err(span, "jnp::array needs a rectangular nesting of lists");
                }
                items
                    .iter()
                    .try_for_each(|i| leaves(i, depth + 1, shape, out, span))
            }
            other => {
                if shape.len() != depth {
                    return call_err(span, "jnp::array needs a rectangular nesting of lists");
                }
                out.push(other.clone());
                Ok(())
            }
        }
    }
    let mut shape = Vec::new();
    let mut items = Vec::new();
    leaves(&v, 0, &mut shape, &mut items, span)?;
    let operands: Vec<Atom> = items
        .iter()
        .map(|i| t.atom(i.clone(), span))
        .collect::<Result<_>>()?;
    let kinds: Vec<(jax_dtypes::DType, bool)> = operands
        .iter()
        .map(|a| {
            let av = t.b.aval(a);
            (av.dtype, av.weak)
        })
        .collect();
    let (dtype, _) = jax_dtypes::result_type(&kinds, t.b.x64);
    let dims: Vec<Dim> = shape.iter().map(|&n| Dim::Lit(n)).collect();
    if operands.iter().all(|a| matches!(a, Atom::Lit(_))) {
        let values = operands
            .iter()
            .map(|a| match a {
                Atom::Lit(l) => crate::ir::cast_scalar(l.value, dtype),
                Atom::Var(_) => unreachable!(),
            })
            .collect();
        let aval = crate::ir::Aval {
            dtype,
            shape: dims,
            weak: false,
        };
        return Ok(t.b.constant(aval, values));
    }
    if shape.len() != 1 {
        return call_err(
            span,
            "jnp::array of traced values takes a flat list in #[jax::jit] for now",
        );
    }
    // Arrays (`[x, y]`, keys `[a, b]`) stack along a new first axis.
    let first = t.b.aval(&operands[0]).shape;
    if let Some(other) = operands.iter().find(|a| t.b.aval(a).shape != first) {
        return call_err(
            span,
            format!(
                "setting an array element with a sequence. The requested array has an inhomogeneous shape: items of shapes {} and {}",
                crate::prims::tuple(&first.iter().map(|d| d.to_string()).collect::<Vec<_>>()),
                crate::prims::tuple(&t.b.aval(other).shape.iter().map(|d| d.to_string()).collect::<Vec<_>>()),
            ),
        );
    }
    // Each item converted, then given its leading axis, in JAX's order.
    let parts = operands
        .into_iter()
        .map(|a| {
            let a = t.at(span).convert_element_type(a, dtype, false)?;
            jnp::leading_axis(&mut t.b, a, span)
        })
        .collect::<Result<Vec<_>>>()?;
    t.at(span).concatenate(parts, 0)
}
