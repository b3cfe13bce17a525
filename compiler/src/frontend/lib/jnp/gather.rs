//! `jnp::take(x, idx, axis)` and `jnp::take_along_axis(x, idx, axis)`:
//! their static axis read here, each written once in
//! `jax_core::indexing` (one `gather` as `jnp` builds it).

use crate::frontend::lib::call::{reject, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::Atom;
use jax_core::indexing as core;

/// The array, the index array (integer, checked at its tokens) and the
/// static axis of a `take`-like call.
fn take_args(t: &mut Tracer, c: &Call) -> Result<(Atom, Atom, usize)> {
    c.want(3)?;
    let x = c.atom(t, 0)?;
    let idx = c.atom(t, 1)?;
    reject(c, &[], core::integer_indices(&t.b.aval(&idx), c.name))?;
    let ax = t.static_int(&c.args[2].0, c.args[2].1, "the axis")?;
    let ax = jnp::axis(&t.b, &x, ax, c.args[2].1)?;
    Ok((x, idx, ax))
}

/// `jnp::take(x, idx, axis)`: the result has `idx`'s axes where `axis` was.
pub(crate) fn take(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, idx, axis) = take_args(t, &c)?;
    Ok(Value::Traced(core::take(&mut t.at(c.span), x, idx, axis)?))
}

/// `jnp::take_along_axis(x, idx, axis)`.
pub(crate) fn take_along_axis(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, idx, axis) = take_args(t, &c)?;
    let (a, ia) = (t.b.aval(&x), t.b.aval(&idx));
    reject(&c, &[], core::along_axis_indices(&a, &ia, axis))?;
    Ok(Value::Traced(core::take_along_axis(
        &mut t.at(c.span),
        x,
        idx,
        axis,
    )?))
}
