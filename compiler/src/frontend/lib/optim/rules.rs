//! The optimizers inside a jitted body: `init`, `update` and
//! `apply_updates` read the params, gradients and state values as flat
//! leaves, run the one text of `jax_core::optim` (which the eager
//! `jax::optim` runs too) at the call's span, and rebuild the values.

use proc_macro2::Span;

use jax_core::optim::{self as core, State};

use crate::frontend::lib::optim::*;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{flatten, rebuild, Value};
use crate::ir::builder::{err, Result};
use crate::ir::Atom;

/// The leaves of a params (or grads, or state) tree.
pub(super) fn array_leaves(tree: &Value, span: Span, what: &str) -> Result<Vec<Atom>> {
    let mut leaves = Vec::new();
    flatten(tree, &mut leaves);
    leaves
        .into_iter()
        .map(|l| match l {
            Value::Traced(a) => Ok(a),
            _ => err(
                span,
                format!("the {what} must be arrays, or a struct or tuple of arrays"),
            ),
        })
        .collect()
}

/// A tree of `template`'s structure from its new leaves.
pub(super) fn tree_of(template: &Value, leaves: Vec<Atom>) -> Value {
    rebuild(template, &mut leaves.into_iter().map(Value::Traced))
}

/// The state value `state` as the state of `o`: its count and trees'
/// leaves (what does not fit is left for `core::update` to report).
fn state_of(o: &Opt, state: &Value, span: Span) -> Result<State<Atom>> {
    Ok(match (o, state) {
        (Opt::Chain(stages), Value::Tuple(parts)) => State::Chain(
            parts
                .iter()
                .enumerate()
                .map(|(k, s)| match stages.get(k) {
                    Some(stage) => state_of(stage, s, span),
                    None => Ok(State::Empty),
                })
                .collect::<Result<_>>()?,
        ),
        (Opt::Clip(_), Value::Tuple(parts)) if parts.is_empty() => State::Empty,
        // Not `()`: a state `core::update` rejects.
        (Opt::Clip(_), _) => State::Chain(vec![]),
        (_, Value::Struct(name, fields)) => {
            let Some((_, Value::Traced(count))) = fields.first() else {
                return err(span, "the state's count must be an array");
            };
            let trees = fields[1..]
                .iter()
                .map(|(_, v)| array_leaves(v, span, "state"))
                .collect::<Result<_>>()?;
            State::Counted {
                name: name.strip_prefix(PREFIX).unwrap_or(name).to_string(),
                count: count.clone(),
                trees,
            }
        }
        _ => State::Empty,
    })
}

/// The state as a value: `optim::NAME { count, trees.. }` with each tree
/// of `template`'s structure, a chain's tuple, or `()`.
fn state_value(state: State<Atom>, template: &Value) -> Value {
    match state {
        State::Counted { name, count, trees } => {
            let fields = core::state_fields(&name).expect("a state struct");
            let mut out = vec![("count".to_string(), Value::Traced(count))];
            out.extend(
                fields
                    .iter()
                    .zip(trees)
                    .map(|(f, t)| (f.to_string(), tree_of(template, t))),
            );
            Value::Struct(format!("{PREFIX}{name}"), out)
        }
        State::Empty => Value::Tuple(vec![]),
        State::Chain(stages) => Value::Tuple(
            stages
                .into_iter()
                .map(|s| state_value(s, template))
                .collect(),
        ),
    }
}

pub(super) fn init(t: &mut Tracer, o: &Opt, params: &Value, span: Span) -> Result<Value> {
    let leaves = array_leaves(params, span, "params")?;
    let state = core::init(&mut t.at(span), o, &leaves)?;
    Ok(state_value(state, params))
}

pub(super) fn update(
    t: &mut Tracer,
    o: &Opt,
    grads: &Value,
    state: &Value,
    params: &Value,
    span: Span,
) -> Result<(Value, Value)> {
    let g = array_leaves(grads, span, "gradients")?;
    let p = array_leaves(params, span, "params")?;
    let state = state_of(o, state, span)?;
    let (u, state) = core::update(&mut t.at(span), o, &g, state, &p)?;
    Ok((tree_of(grads, u), state_value(state, grads)))
}

/// optax's `apply_updates`: `params + updates`, in the params' dtypes.
pub(super) fn apply_updates(
    t: &mut Tracer,
    params: &Value,
    updates: &Value,
    span: Span,
) -> Result<Value> {
    let p = array_leaves(params, span, "params")?;
    let u = array_leaves(updates, span, "updates")?;
    let out = core::apply_updates(&mut t.at(span), &p, &u)?;
    Ok(tree_of(params, out))
}
