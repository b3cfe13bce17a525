//! Sorting and cumulative operations by name (rows of `lower.rs`): `sort`,
//! `argsort`, `lax::sort_key_val`, `cumsum`/`cumprod`/`cummax`/`cummin`,
//! written as JAX's `jnp`/`lax` functions write them in primitives.

use jax_dtypes::{default_dtype, DType, Kind};

use crate::frontend::jnp;
use crate::frontend::lower_call::{call_err, Call, Module};
use crate::frontend::tracer::Tracer;
use crate::frontend::value::Value;
use crate::ir::builder::Result;
use crate::ir::{Atom, Dim};
use crate::prims::{self, Params};

/// The axis argument `i` of a call, normalized for `x`.
fn axis_arg(t: &Tracer, c: &Call, x: &Atom, i: usize) -> Result<usize> {
    let (v, s) = &c.args[i];
    let ax = t.static_int(v, *s, "the axis")?;
    jnp::axis(&t.b, x, ax, *s)
}

/// `sort[dimension is_stable=True num_keys]` of `operands`.
fn bind_sort(
    t: &mut Tracer,
    operands: Vec<Atom>,
    dimension: usize,
    num_keys: usize,
    span: proc_macro2::Span,
) -> Result<Vec<Atom>> {
    t.b.bind(
        &prims::SORT,
        Params::Sort {
            dimension,
            is_stable: true,
            num_keys,
        },
        operands,
        span,
    )
}

fn array_of_rank_1_or_more(t: &Tracer, c: &Call, x: &Atom) -> Result<()> {
    if t.b.aval(x).rank() == 0 {
        return call_err(
            c.span,
            format!(
                "`{}` needs an array of rank 1 or more, not a scalar",
                c.name
            ),
        );
    }
    Ok(())
}

/// `jnp::sort(x, axis)`, `lax::sort(x, dimension)`: one operand, stable.
pub(crate) fn sort(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    let mut out = bind_sort(t, vec![x], axis, 1, c.span)?;
    Ok(Value::Traced(out.remove(0)))
}

/// `jnp::argsort(x, axis)`: an int iota sorted along with `x`
/// (`num_keys=1`, stable), as `jnp.argsort` does.
pub(crate) fn argsort(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    let like = t.b.aval(&x);
    let index = t.b.bind1(
        &prims::IOTA,
        Params::Iota {
            dtype: default_dtype(Kind::Int, t.b.x64),
            shape: like.shape.clone(),
            dimension: axis,
        },
        Vec::new(),
        c.span,
    )?;
    let mut out = bind_sort(t, vec![x, index], axis, 1, c.span)?;
    Ok(Value::Traced(out.remove(1)))
}

/// `lax::sort_key_val(keys, values, dimension)`: `values` sorted by `keys`.
pub(crate) fn sort_key_val(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let k = c.atom(t, 0)?;
    let v = c.atom(t, 1)?;
    array_of_rank_1_or_more(t, &c, &k)?;
    let axis = axis_arg(t, &c, &k, 2)?;
    let out = bind_sort(t, vec![k, v], axis, 1, c.span)?;
    Ok(Value::Tuple(out.into_iter().map(Value::Traced).collect()))
}

/// `jnp::cumsum(x, axis)` and its kin: bool counts in the default int
/// (`jnp.cumsum`/`cumprod` convert it first); the primitive keeps the
/// dtype.
pub(crate) fn cumulative(t: &mut Tracer, c: Call) -> Result<Value> {
    let (name, span) = (c.name, c.span);
    if c.args.len() != 2 {
        let how = if c.module == Module::Method {
            format!("x.{name}(axis)")
        } else {
            format!("{}{name}(x, axis)", c.module.prefix())
        };
        return call_err(
            span,
            format!("`{name}` takes the array and an axis: `{how}`"),
        );
    }
    let x = c.atom(t, 0)?;
    array_of_rank_1_or_more(t, &c, &x)?;
    let axis = axis_arg(t, &c, &x, 1)?;
    let aval = t.b.aval(&x);
    let x = if aval.dtype == DType::Bool && matches!(name, "cumsum" | "cumprod") {
        let int = default_dtype(Kind::Int, t.b.x64);
        jnp::convert(&mut t.b, x, int, false, span)?
    } else {
        x
    };
    let prim = match name {
        "cumsum" => &prims::CUMSUM,
        "cumprod" => &prims::CUMPROD,
        "cummax" => &prims::CUMMAX,
        _ => &prims::CUMMIN,
    };
    if aval.shape.get(axis) == Some(&Dim::Lit(0)) {
        return Ok(Value::Traced(x));
    }
    Ok(Value::Traced(t.b.bind1(
        prim,
        Params::Cumulative {
            axis,
            reverse: false,
        },
        vec![x],
        span,
    )?))
}
