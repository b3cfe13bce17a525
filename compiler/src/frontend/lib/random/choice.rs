//! `random::permutation`, `permutation_of` and the `choice` family inside a
//! jitted body: their static arguments read here, each written once in
//! `jax_core::random` (JAX's `_shuffle` and its draws).

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::Result;
use crate::ir::Scalar;

use crate::frontend::lib::random::*;
use jax_core::random as core;

/// `random::permutation::<A>(k)`: `0..n` shuffled, `n` and the integer
/// type from the result type.
pub(crate) fn permutation(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 1)?;
    let key = key_arg(t, &c.args[0])?;
    let aval = result_aval(&c)?;
    Ok(Value::Traced(core::permutation(
        &mut t.at(c.span),
        key,
        &aval,
    )?))
}

/// `random::permutation_of(k, &x)`: the rows of `x` shuffled.
pub(crate) fn permutation_of(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 2)?;
    let key = key_arg(t, &c.args[0])?;
    let x = c.atom(t, 1)?;
    Ok(Value::Traced(core::permutation_of(
        &mut t.at(c.span),
        key,
        x,
    )?))
}

/// `choice`'s `replace` flag: static, as the eager function's.
fn replace_flag(c: &Call) -> Result<bool> {
    match &c.args[2].0 {
        Value::Static(Scalar::Bool(b)) => Ok(*b),
        _ => call_err(
            c.args[2].1,
            "`replace` must be `true` or `false` when the function compiles",
        ),
    }
}

/// `random::choice::<A>(k, n, replace)`.
pub(crate) fn choice(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 3)?;
    let key = key_arg(t, &c.args[0])?;
    let n = t.static_int(
        &c.args[1].0,
        c.args[1].1,
        "the population of `random::choice`",
    )?;
    let n = usize::try_from(n).unwrap_or(0);
    let replace = replace_flag(&c)?;
    let aval = result_aval(&c)?;
    Ok(Value::Traced(core::choice(
        &mut t.at(c.span),
        key,
        n,
        replace,
        &aval,
    )?))
}

/// `random::choice_rows(k, &x, replace)`.
pub(crate) fn choice_rows(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 3)?;
    let key = key_arg(t, &c.args[0])?;
    let x = c.atom(t, 1)?;
    let replace = replace_flag(&c)?;
    let aval = result_aval(&c)?;
    Ok(Value::Traced(core::choice_rows(
        &mut t.at(c.span),
        key,
        x,
        replace,
        &aval,
    )?))
}

/// `random::choice_weighted(k, &p, replace)`.
pub(crate) fn choice_weighted(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 3)?;
    let key = key_arg(t, &c.args[0])?;
    let p = c.atom(t, 1)?;
    let replace = replace_flag(&c)?;
    let aval = result_aval(&c)?;
    Ok(Value::Traced(core::choice_weighted(
        &mut t.at(c.span),
        key,
        p,
        replace,
        &aval,
    )?))
}
