//! Handlers of the table in `lib/lower.rs` for windows at start indices known
//! at run time: `lax::dynamic_slice` (its sizes from the written result
//! type, as eagerly), `lax::dynamic_update_slice`, and their `_in_dim` and
//! `_index_in_dim` forms, traced as JAX traces them: negative starts
//! counted from the end (`select_n(i < 0, i, i + n)`), then the primitive,
//! which clamps so the window fits.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{literal, Result};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, Params};
use jax_core::lax::Lax;
use jax_dtypes::{DType, Kind};

/// Lowers the six `lax::` window functions, by name.
pub(crate) fn windows(t: &mut Tracer, c: Call) -> Result<Value> {
    let out = match c.name {
        "dynamic_slice" => dynamic_slice(t, &c)?,
        "dynamic_update_slice" => dynamic_update_slice(t, &c)?,
        "dynamic_slice_in_dim" | "dynamic_index_in_dim" => slice_in_dim(t, &c)?,
        _ => update_in_dim(t, &c)?,
    };
    Ok(Value::Traced(out))
}

/// `lax::dynamic_slice(x, &[i, j, ..])`: the sizes are the result type's shape.
fn dynamic_slice(t: &mut Tracer, c: &Call) -> Result<Atom> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let a = t.b.aval(&x);
    let Some(hint) = c.hint.as_ref().and_then(|h| h.aval()) else {
        // An example window: at most 2 along each axis.
        let dims = a
            .shape
            .iter()
            .map(|d| match d {
                Dim::Lit(n) => (*n).min(2).to_string(),
                Dim::Sym(s) => s.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let d = a.dtype.short_name();
        return call_err(
            c.span,
            format!(
                "`lax::dynamic_slice` takes the window's size from the type of its result, as eagerly: annotate it, e.g. `let w: Array<{d}, {dims}> = lax::dynamic_slice(&x, &[..]);` (one length per axis of {a}), or name it: `lax::dynamic_slice::<Array<{d}, {dims}>, _, _>(&x, &[..])`"
            ),
        );
    };
    let sizes = hint
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(s) => call_err(
                c.span,
                format!("the slice sizes of `lax::dynamic_slice` must be literal, got the symbolic size {s}"),
            ),
        })
        .collect::<Result<Vec<usize>>>()?;
    if sizes.len() != a.rank() {
        return call_err(
            c.span,
            format!(
                "`lax::dynamic_slice` of {a} gives an array of rank {}, but the result type {hint} has rank {}",
                a.rank(),
                sizes.len()
            ),
        );
    }
    let starts = start_list(t, c, 1)?;
    let starts = normalize_starts(t, "dynamic_slice", &x, starts, &vec![true; a.rank()], c)?;
    let mut ins = vec![x];
    ins.extend(starts);
    t.b.bind1(
        &prims::DYNAMIC_SLICE,
        Params::DynamicSlice { sizes },
        ins,
        c.span,
    )
}

/// `lax::dynamic_update_slice(x, &update, &[i, j, ..])`.
fn dynamic_update_slice(t: &mut Tracer, c: &Call) -> Result<Atom> {
    c.want(3)?;
    let x = c.atom(t, 0)?;
    let update = c.atom(t, 1)?;
    let starts = start_list(t, c, 2)?;
    let rank = t.b.aval(&x).rank();
    let starts = normalize_starts(t, "dynamic_update_slice", &x, starts, &vec![true; rank], c)?;
    let mut ins = vec![x, update];
    ins.extend(starts);
    t.at(c.span).apply(&prims::DYNAMIC_UPDATE_SLICE, ins)
}

/// `lax::dynamic_slice_in_dim(x, start, size, axis)` and
/// `lax::dynamic_index_in_dim(x, index, axis, keepdims)`: a `dynamic_slice`
/// starting at 0 on every other axis (and a `squeeze` without keepdims).
fn slice_in_dim(t: &mut Tracer, c: &Call) -> Result<Atom> {
    c.want(4)?;
    let index = c.name == "dynamic_index_in_dim";
    let x = c.atom(t, 0)?;
    let a = t.b.aval(&x);
    let (size, axis_arg) = if index {
        (1, &c.args[2])
    } else {
        let (v, s) = &c.args[2];
        let n = t.static_int(v, *s, "the slice size")?;
        if n < 0 {
            return call_err(*s, format!("the slice size must be non-negative, got {n}"));
        }
        (n as usize, &c.args[3])
    };
    let axis = t.static_int(&axis_arg.0, axis_arg.1, "the axis")?;
    let axis = jnp::axis(&t.b, &x, axis, axis_arg.1)?;
    let keepdims = if index {
        match &c.args[3].0 {
            Value::Static(Scalar::Bool(b)) => *b,
            _ => return call_err(c.args[3].1, "keepdims must be `true` or `false`"),
        }
    } else {
        true
    };
    let starts = starts_on_axis(t, c, a.rank(), axis, 1)?;
    let allow = allow_on_axis(a.rank(), axis);
    let starts = normalize_starts(t, c.name, &x, starts, &allow, c)?;
    let mut sizes = Vec::with_capacity(a.rank());
    for (k, d) in a.shape.iter().enumerate() {
        match d {
            _ if k == axis => sizes.push(size),
            Dim::Lit(n) => sizes.push(*n),
            Dim::Sym(s) => {
                return call_err(
                    c.span,
                    format!(
                        "`lax::{}` of an array with the symbolic axis {s} is not supported",
                        c.name
                    ),
                )
            }
        }
    }
    let mut ins = vec![x];
    ins.extend(starts);
    let sliced = t.b.bind1(
        &prims::DYNAMIC_SLICE,
        Params::DynamicSlice { sizes },
        ins,
        c.span,
    )?;
    if keepdims {
        return Ok(sliced);
    }
    t.at(c.span).squeeze(sliced, vec![axis])
}

/// `lax::dynamic_update_slice_in_dim(x, update, start, axis)` and
/// `lax::dynamic_update_index_in_dim(x, update, index, axis)` (whose update
/// may leave the axis out): a `dynamic_update_slice` at 0 on every other axis.
fn update_in_dim(t: &mut Tracer, c: &Call) -> Result<Atom> {
    c.want(4)?;
    let x = c.atom(t, 0)?;
    let mut update = c.atom(t, 1)?;
    let rank = t.b.aval(&x).rank();
    let axis = t.static_int(&c.args[3].0, c.args[3].1, "the axis")?;
    let axis = jnp::axis(&t.b, &x, axis, c.args[3].1)?;
    if c.name == "dynamic_update_index_in_dim" && t.b.aval(&update).rank() + 1 == rank {
        update = jnp::expand_dims(&mut t.b, update, axis as i128, c.args[1].1)?;
    }
    let starts = starts_on_axis(t, c, rank, axis, 2)?;
    let allow = allow_on_axis(rank, axis);
    let starts = normalize_starts(t, c.name, &x, starts, &allow, c)?;
    let mut ins = vec![x, update];
    ins.extend(starts);
    t.at(c.span).apply(&prims::DYNAMIC_UPDATE_SLICE, ins)
}

/// Negative starts count from the end on `axis` only (JAX's `_in_dim`
/// forms start the other axes at a 0 that is never negative anyway).
fn allow_on_axis(rank: usize, axis: usize) -> Vec<bool> {
    (0..rank).map(|k| k == axis).collect()
}

/// A start given as `&[i, j, ..]` (argument `k`).
fn start_list(t: &mut Tracer, c: &Call, k: usize) -> Result<Vec<(Value, Span)>> {
    let (v, s) = &c.args[k];
    match v {
        Value::List(items) | Value::Tuple(items) => {
            Ok(items.iter().map(|i| (i.clone(), *s)).collect())
        }
        _ => {
            let _ = t;
            call_err(
                *s,
                format!(
                    "the start indices of `lax::{}` are a list with one integer per axis: `&[i, j]`",
                    c.name
                ),
            )
        }
    }
}

/// The start of argument `k` on `axis`, and a 0 of its dtype elsewhere
/// (JAX's `_const(start, 0)`).
fn starts_on_axis(
    t: &mut Tracer,
    c: &Call,
    rank: usize,
    axis: usize,
    k: usize,
) -> Result<Vec<(Value, Span)>> {
    let (v, s) = c.args[k].clone();
    let zero = match &v {
        Value::Static(_) => Value::Static(Scalar::Int(0)),
        other => {
            let a = t.atom(other.clone(), s)?;
            let dtype = t.b.aval(&a).dtype;
            Value::Traced(literal(Scalar::Int(0), Aval::scalar(dtype, false)))
        }
    };
    Ok((0..rank)
        .map(|j| {
            if j == axis {
                (v.clone(), s)
            } else {
                (zero.clone(), s)
            }
        })
        .collect())
}

/// JAX's `_dynamic_slice_indices`: one integer scalar per axis, of one
/// dtype (a literal takes the traced starts' dtype, as Rust types
/// `&[i, 1]`), a negative one counted from the end where `allow_negative`
/// (`select_n(i < 0, i, i + n)` when traced; unsigned starts are never
/// negative and go as they are).
fn normalize_starts(
    t: &mut Tracer,
    op: &str,
    x: &Atom,
    starts: Vec<(Value, Span)>,
    allow_negative: &[bool],
    c: &Call,
) -> Result<Vec<Atom>> {
    let a = t.b.aval(x);
    if starts.len() != a.rank() {
        return call_err(
            c.span,
            format!(
                "Length of slice indices must match number of operand dimensions ({} vs {a}): `lax::{}` takes one start per axis",
                starts.len(),
                c.name
            ),
        );
    }
    let mut traced = Vec::with_capacity(starts.len());
    for (v, s) in &starts {
        traced.push(match v {
            Value::Static(Scalar::Int(i)) => Err(*i),
            Value::Static(_) => {
                return call_err(
                    *s,
                    format!("the start indices of `lax::{}` are integers", c.name),
                )
            }
            v => {
                let atom = t.atom(v.clone(), *s)?;
                let av = t.b.aval(&atom);
                if av.rank() != 0 || !av.dtype.is_integer() {
                    return call_err(
                        *s,
                        format!(
                            "start_indices arguments to {op} must be integer scalars, got {av}"
                        ),
                    );
                }
                Ok(atom)
            }
        });
    }
    let index_dtype = traced
        .iter()
        .find_map(|r| r.as_ref().ok().map(|a| t.b.aval(a).dtype))
        .unwrap_or(DType::I32);
    let mut out = Vec::with_capacity(starts.len());
    for (k, start) in traced.into_iter().enumerate() {
        let n = match a.shape[k] {
            Dim::Lit(n) => n as i128,
            Dim::Sym(ref s) => {
                return call_err(
                    c.span,
                    format!(
                        "`lax::{}` along the symbolic axis {s} is not supported",
                        c.name
                    ),
                )
            }
        };
        out.push(match start {
            Err(i) => {
                let i = if i < 0 && allow_negative[k] { i + n } else { i };
                literal(Scalar::Int(i), Aval::scalar(index_dtype, false))
            }
            Ok(i) => {
                let d = t.b.aval(&i).dtype;
                if !allow_negative[k] || d.kind() == Kind::UInt {
                    i
                } else {
                    from_end(t, i, n, c.span)?
                }
            }
        });
    }
    let dtypes: Vec<DType> = out.iter().map(|a| t.b.aval(a).dtype).collect();
    if dtypes.iter().any(|d| *d != dtypes[0]) {
        return call_err(
            c.span,
            format!(
                "index arguments to {op} must be integers of the same type, got: {}: convert the start indices to one integer type",
                dtypes.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
            ),
        );
    }
    Ok(out)
}

/// `select_n(i < 0, i, i + n)`: a negative start counted from the end, the
/// sum in `i`'s dtype made strong (JAX adds `convert_element_type(n, dtype)`).
fn from_end(t: &mut Tracer, i: Atom, n: i128, span: Span) -> Result<Atom> {
    let a = t.b.aval(&i);
    let weak_lit = |v: i128| literal(Scalar::Int(v), Aval::scalar(a.dtype, true));
    let neg = jnp::binary(&mut t.b, &prims::LT, i.clone(), weak_lit(0), span)?;
    let strong = if a.weak {
        t.at(span).convert_element_type(i.clone(), a.dtype, false)?
    } else {
        i.clone()
    };
    let wrapped = jnp::binary(&mut t.b, &prims::ADD, strong, weak_lit(n), span)?;
    t.at(span).apply(&prims::SELECT_N, vec![neg, i, wrapped])
}
