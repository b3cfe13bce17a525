//! `jnp::tril`, `triu`, `trace`, `diag` and `diagonal`: their static
//! offsets and axes read here, each written once in `jax_core::indexing`
//! as `jax.numpy` 0.10.2 lowers them (masks of two `iota`s, `select_n`,
//! `reduce_sum` for `trace`, a `gather` for `diagonal`).

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::Atom;
use jax_core::indexing as core;

/// The operand and the static integers after it, defaulted to `defaults`.
fn operand_and_ints(t: &mut Tracer, c: &Call, defaults: &[i128]) -> Result<(Atom, Vec<i128>)> {
    if c.args.is_empty() || c.args.len() > 1 + defaults.len() {
        return call_err(
            c.span,
            format!(
                "`{}` takes the array and up to {} static integers",
                c.name,
                defaults.len()
            ),
        );
    }
    let x = c.atom(t, 0)?;
    let mut ints = defaults.to_vec();
    for (i, (v, span)) in c.args.iter().enumerate().skip(1) {
        ints[i - 1] = t.static_int(v, *span, "the offset or axis")?;
    }
    Ok((x, ints))
}

/// `jnp::tril(x, k)` and `jnp::triu(x, k)`.
pub(crate) fn tril_triu(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, ints) = operand_and_ints(t, &c, &[0])?;
    let upper = c.name == "triu";
    Ok(Value::Traced(core::tril_triu(
        &mut t.at(c.span),
        x,
        ints[0],
        upper,
    )?))
}

/// `jnp::trace(x, offset, axis1, axis2)`.
pub(crate) fn trace(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, i) = operand_and_ints(t, &c, &[0, 0, 1])?;
    Ok(Value::Traced(core::trace(
        &mut t.at(c.span),
        x,
        i[0],
        i[1],
        i[2],
    )?))
}

/// `jnp::diag(v, k)`.
pub(crate) fn diag(t: &mut Tracer, c: Call) -> Result<Value> {
    let (v, i) = operand_and_ints(t, &c, &[0])?;
    Ok(Value::Traced(core::diag(&mut t.at(c.span), v, i[0])?))
}

/// `jnp::diagonal(x, offset, axis1, axis2)`.
pub(crate) fn diagonal(t: &mut Tracer, c: Call) -> Result<Value> {
    let (x, i) = operand_and_ints(t, &c, &[0, 0, 1])?;
    Ok(Value::Traced(core::diagonal(
        &mut t.at(c.span),
        x,
        i[0],
        i[1],
        i[2],
    )?))
}
