//! `jax::scipy::stats::norm::NAME`: the call's arguments read here, its
//! body the one text of `jax_core::stats` (which an eager call runs too).

use crate::frontend::lib::call::Call;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;

/// `norm::pdf(x)` .. `norm::ppf(q)`, and `*_with(x, loc, scale)`, as
/// `jax.scipy.stats.norm` computes them.
pub(super) fn norm(t: &mut Tracer, c: Call) -> Result<Value> {
    let name = c.name.trim_end_matches("_with");
    let with = name.len() != c.name.len();
    c.want(if with { 3 } else { 1 })?;
    let x = c.atom(t, 0)?;
    let loc_scale = if with {
        Some((c.atom(t, 1)?, c.atom(t, 2)?))
    } else {
        None
    };
    let r = jax_core::stats::norm(&mut t.at(c.span), name, x, loc_scale)?;
    Ok(Value::Traced(r))
}
