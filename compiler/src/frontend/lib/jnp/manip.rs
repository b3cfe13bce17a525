//! Handlers of the table in `lib/lower.rs` for NumPy's shape manipulation and
//! small products, written as JAX composes them from primitives: `outer`,
//! `vdot`, `inner`, `batch_matmul`, `swapaxes`, `moveaxis`,
//! `transpose_axes`, `squeeze_axis`, `repeat`, `tile`, `roll`, `vstack`,
//! `hstack`, `column_stack`, `atleast_1d`/`2d`/`3d`, `meshgrid`, `lax::slice`,
//! `lax::broadcast_in_dim`.
//! Each takes the arguments of the eager function of the same name.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::Atom;
use jax_core::lax::Lax;
use jax_core::manip as core;

fn traced(a: Atom) -> Result<Value> {
    Ok(Value::Traced(a))
}

fn want_rank(t: &Tracer, c: &Call, x: &Atom, rank: usize, i: usize) -> Result<()> {
    let a = t.b.aval(x);
    if a.rank() == rank {
        Ok(())
    } else {
        call_err(
            c.args[i].1,
            format!("`{}` takes {rank}-D arrays, got {a}", c.name),
        )
    }
}

/// `jnp::outer(a, b)`: `a[:, None] * b[None, :]` of two vectors.
pub(crate) fn outer(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    want_rank(t, &c, &x, 1, 0)?;
    want_rank(t, &c, &y, 1, 1)?;
    traced(core::outer(&mut t.at(c.span), x, y)?)
}

/// `jnp::vdot(a, b)`, `jnp::inner(a, b)` of vectors, and `batch_matmul`:
/// one `dot_general`, as `jnp.matmul` lowers them.
pub(crate) fn vector_products(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let rank = if c.name == "batch_matmul" { 3 } else { 1 };
    want_rank(t, &c, &x, rank, 0)?;
    want_rank(t, &c, &y, rank, 1)?;
    traced(jnp::matmul(&mut t.b, x, y, c.span)?)
}

/// `swapaxes(x, a, b)`, `moveaxis(x, from, to)`, `transpose_axes(x, &[..])`:
/// one `transpose`.
pub(crate) fn permute_axes(t: &mut Tracer, c: Call) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let rank = t.b.aval(&x).rank();
    let axis = |t: &Tracer, i: usize| -> Result<usize> {
        let (v, s) = &c.args[i];
        jnp::axis(&t.b, &x, t.static_int(v, *s, "the axis")?, *s)
    };
    let perm: Vec<usize> = match c.name {
        "swapaxes" => {
            c.want(3)?;
            let (a, b) = (axis(t, 1)?, axis(t, 2)?);
            let mut perm: Vec<usize> = (0..rank).collect();
            perm.swap(a, b);
            perm
        }
        "moveaxis" => {
            c.want(3)?;
            let (from, to) = (axis(t, 1)?, axis(t, 2)?);
            let mut perm: Vec<usize> = (0..rank).filter(|&k| k != from).collect();
            perm.insert(to, from);
            perm
        }
        _ => {
            c.want(2)?;
            let (v, s) = &c.args[1];
            let perm = t
                .static_ints(v, *s, "the permutation")?
                .into_iter()
                .map(|a| jnp::axis(&t.b, &x, a, *s))
                .collect::<Result<Vec<_>>>()?;
            let mut sorted = perm.clone();
            sorted.sort();
            if sorted != (0..rank).collect::<Vec<_>>() {
                return call_err(
                    *s,
                    format!("the permutation {perm:?} is not a permutation of the {rank} axes"),
                );
            }
            perm
        }
    };
    traced(jnp::transpose(&mut t.b, x, perm, c.span)?)
}

/// `squeeze_axis(x, axis)`: one size-1 axis removed.
pub(crate) fn squeeze_axis(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let (v, s) = &c.args[1];
    let axis = jnp::axis(&t.b, &x, t.static_int(v, *s, "the axis")?, *s)?;
    traced(t.at(c.span).squeeze(x, vec![axis])?)
}

/// `jnp::repeat(x, repeats, axis)`: each element (axis `None`: of the
/// flattened array) repeated.
pub(crate) fn repeat(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let x = c.atom(t, 0)?;
    let r = t.static_int(&c.args[1].0, c.args[1].1, "repeats")?;
    if r < 0 {
        return call_err(c.args[1].1, "repeats must not be negative");
    }
    let axis = match &c.args[2].0 {
        Value::Unit => None,
        v => Some(jnp::axis(
            &t.b,
            &x,
            t.static_int(v, c.args[2].1, "the axis")?,
            c.args[2].1,
        )?),
    };
    traced(core::repeat(&mut t.at(c.span), x, r as usize, axis)?)
}

/// `jnp::tile(x, reps)`.
pub(crate) fn tile(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let mut reps: Vec<usize> = Vec::new();
    for r in t.static_ints(&c.args[1].0, c.args[1].1, "reps")? {
        match usize::try_from(r) {
            Ok(r) => reps.push(r),
            Err(_) => return call_err(c.args[1].1, "reps must not be negative"),
        }
    }
    traced(core::tile(&mut t.at(c.span), x, &reps)?)
}

/// `jnp::roll(x, shift, axis)`.
pub(crate) fn roll(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let x = c.atom(t, 0)?;
    let shift = t.static_int(&c.args[1].0, c.args[1].1, "the shift")?;
    let (v, s) = &c.args[2];
    let axis = jnp::axis(&t.b, &x, t.static_int(v, *s, "the axis")?, *s)?;
    traced(core::roll(&mut t.at(c.span), x, shift, axis)?)
}

/// `jnp::atleast_1d(x)`: a scalar as a one-element vector.
pub(crate) fn atleast_1d(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    traced(core::atleast_1d(&mut t.at(c.span), x)?)
}

/// `jnp::atleast_2d(x)` and `jnp::atleast_3d(x)`.
pub(crate) fn atleast_nd(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let n = if c.name == "atleast_2d" { 2 } else { 3 };
    traced(core::atleast_nd(&mut t.at(c.span), x, n)?)
}

/// `jnp::vstack((a, b, ..))`, `jnp::hstack((a, b, ..))` and
/// `jnp::column_stack((a, b, ..))`.
pub(crate) fn stack_hv(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let Value::Tuple(items) = &c.args[0].0 else {
        return call_err(
            c.args[0].1,
            format!(
                "`{}` takes a tuple of arrays: `jnp::{}((&a, &b))`",
                c.name, c.name
            ),
        );
    };
    let parts = items
        .iter()
        .map(|v| t.atom(v.clone(), c.args[0].1))
        .collect::<Result<Vec<_>>>()?;
    let l = &mut t.at(c.span);
    traced(match c.name {
        "column_stack" => core::column_stack(l, parts)?,
        name => core::stack_hv(l, parts, name == "vstack")?,
    })
}

/// `jnp::meshgrid(&x, &y)` (`indexing='xy'`): `(X, Y)`, both `len(y) x len(x)`.
pub(crate) fn meshgrid(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    want_rank(t, &c, &x, 1, 0)?;
    want_rank(t, &c, &y, 1, 1)?;
    let (xx, yy) = core::meshgrid(&mut t.at(c.span), x, y)?;
    Ok(Value::Tuple(vec![Value::Traced(xx), Value::Traced(yy)]))
}

/// `lax::slice(x, &start, &limit, strides)`, strides `None` or `Some(&[..])`.
pub(crate) fn lax_slice(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(4)?;
    let x = c.atom(t, 0)?;
    let ints = |t: &Tracer, i: usize, what: &str| -> Result<Vec<usize>> {
        let (v, s) = &c.args[i];
        t.static_ints(v, *s, what)?
            .into_iter()
            .map(|n| {
                usize::try_from(n).or_else(|_| call_err(*s, format!("{what} must not be negative")))
            })
            .collect()
    };
    let start = ints(t, 1, "start_indices")?;
    let limit = ints(t, 2, "limit_indices")?;
    let strides = match &c.args[3].0 {
        Value::Unit => None,
        _ => Some(ints(t, 3, "strides")?),
    };
    traced(t.at(c.span).slice(x, start, limit, strides)?)
}

/// `lax::broadcast_in_dim(x, &dims)`: the shape is the written result type's.
pub(crate) fn lax_broadcast_in_dim(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let shape = c.hinted_shape()?;
    let dims = t
        .static_ints(&c.args[1].0, c.args[1].1, "broadcast_dimensions")?
        .into_iter()
        .map(|d| d.max(0) as usize)
        .collect();
    traced(t.at(c.span).broadcast_in_dim(x, shape, dims)?)
}

/// `jnp::flip(x, axis)`, `jnp::flip_all(x)`, `lax::rev(x, &dims)`: one `rev`.
pub(crate) fn flip(t: &mut Tracer, c: Call) -> Result<Value> {
    let x = c.atom(t, 0)?;
    let rank = t.b.aval(&x).rank();
    let dims: Vec<usize> = match c.name {
        "flip_all" => {
            c.want(1)?;
            (0..rank).collect()
        }
        _ => {
            c.want(2)?;
            let (v, s) = &c.args[1];
            let what = if c.name == "rev" {
                "dimensions"
            } else {
                "the axis"
            };
            t.static_ints(v, *s, what)?
                .into_iter()
                .map(|a| jnp::axis(&t.b, &x, a, *s))
                .collect::<Result<_>>()?
        }
    };
    traced(t.at(c.span).rev(x, dims)?)
}

/// Static `(lo, hi)` or `(lo, hi, interior)` tuples, written as a slice of
/// tuples (`&[(1, 2), (0, 1)]`).
fn pad_config(t: &Tracer, v: &Value, span: Span, width: usize) -> Result<Vec<Vec<i64>>> {
    let items = match v {
        Value::List(items) | Value::Tuple(items) => items.clone(),
        _ => {
            return call_err(
                span,
                "the padding is a slice of tuples: `&[(1, 2), (0, 1)]`",
            )
        }
    };
    items
        .iter()
        .map(|item| match item {
            Value::Tuple(parts) if parts.len() == width => parts
                .iter()
                .map(|p| Ok(t.static_int(p, span, "padding")? as i64))
                .collect(),
            _ => call_err(
                span,
                format!("each axis's padding is a tuple of {width} static integers"),
            ),
        })
        .collect()
}

/// `lax::pad(x, value, &[(lo, hi, interior), ..])` and `jnp::pad(x,
/// &[(lo, hi), ..])` (zeros, NumPy's default constant).
pub(crate) fn pad(t: &mut Tracer, c: Call) -> Result<Value> {
    let lax = c.module == crate::frontend::lib::call::Module::Lax;
    c.want(if lax { 3 } else { 2 })?;
    let x = c.atom(t, 0)?;
    let a = t.b.aval(&x);
    if !lax {
        let widths: Vec<(i64, i64)> = pad_config(t, &c.args[1].0, c.args[1].1, 2)?
            .into_iter()
            .map(|p| (p[0], p[1]))
            .collect();
        return traced(core::pad(&mut t.at(c.span), x, &widths)?);
    }
    let v = c.atom(t, 1)?;
    let av = t.b.aval(&v);
    // A literal takes the operand's type; a typed value must match it.
    let value = if av.weak {
        jnp::convert(&mut t.b, v, a.dtype, false, c.args[1].1)?
    } else {
        v
    };
    let config = pad_config(t, &c.args[2].0, c.args[2].1, 3)?
        .into_iter()
        .map(|p| (p[0], p[1], p[2]))
        .collect::<Vec<_>>();
    traced(t.at(c.span).pad(x, value, config, 0)?)
}
