//! `random::NAME(key, bounds..)` inside a jitted body: a sample of the
//! result's written type (`let z: Array<f32, 3> = random::normal(k);`),
//! drawn from a key parameter. Keys themselves are made outside.

use crate::frontend::lower_call::{call_err, Call};
use crate::frontend::tracer::Tracer;
use crate::frontend::types::TypeSpec;
use crate::frontend::value::Value;
use crate::ir::builder::Result;
use crate::ir::key_aval;
use crate::ir::{Atom, Scalar};
use crate::prims::{self, Params, Prim};

/// `random::NAME(key, bounds..)`: a sample of the annotated type, from a
/// key parameter.
pub(crate) fn sample(t: &mut Tracer, c: Call) -> Result<Value> {
    let Call {
        name,
        args,
        hint,
        span,
        ..
    } = c;
    let (prim, nbounds): (Prim, usize) = match name {
        "bits" => (&prims::RANDOM_BITS, 0),
        "uniform" => (&prims::RANDOM_UNIFORM, 0),
        "uniform_range" => (&prims::RANDOM_UNIFORM, 2),
        "normal" => (&prims::RANDOM_NORMAL, 0),
        "exponential" => (&prims::RANDOM_EXPONENTIAL, 0),
        "gumbel" => (&prims::RANDOM_GUMBEL, 0),
        "truncated_normal" => (&prims::RANDOM_TRUNCATED_NORMAL, 2),
        "key" | "PRNGKey" | "split" | "fold_in" | "key_data" | "wrap_key_data" => {
            return call_err(
                span,
                format!("`random::{name}` is not supported inside #[jax::jit]: make keys outside the function (`random::split`, `random::fold_in`) and pass them in as `jax::random::Key` parameters"),
            )
        }
        _ => {
            return call_err(
                span,
                format!("`random::{name}` is not supported inside #[jax::jit]; the samplers that are: bits, uniform, uniform_range, normal, exponential, gumbel, truncated_normal (draw others outside and pass the array in)"),
            )
        }
    };
    if args.len() != 1 + nbounds {
        return call_err(
            span,
            format!(
                "`random::{name}` takes {} argument(s), got {}",
                1 + nbounds,
                args.len()
            ),
        );
    }
    let (key, key_span) = args[0].clone();
    let key = t.atom(key, key_span)?;
    let is_input = matches!(&key, Atom::Var(v) if t.b.jaxpr.invars.contains(v));
    if !is_input || t.b.aval(&key) != key_aval() {
        return call_err(
            key_span,
            "the key must be a parameter of type `jax::random::Key` (keys cannot be computed inside #[jax::jit]; split them outside)",
        );
    }
    let mut bounds = Vec::new();
    for (v, s) in &args[1..] {
        match v {
            Value::Static(Scalar::Float(f)) => bounds.push(*f),
            Value::Static(Scalar::Int(i)) => bounds.push(*i as f64),
            _ => {
                return call_err(
                    *s,
                    format!("the bounds of `random::{name}` must be numbers known when the function compiles (literals or consts)"),
                )
            }
        }
    }
    let Some(aval) = hint.as_ref().and_then(TypeSpec::aval) else {
        return call_err(
            span,
            format!("`random::{name}` takes its shape and dtype from the result type: annotate it (`let z: Array<f32, 3> = random::{name}(k);` or `random::{name}::<Array<f32, 3>>(k)`)"),
        );
    };
    let params = Params::Random {
        shape: aval.shape,
        dtype: aval.dtype,
        bounds: (nbounds == 2).then(|| (bounds[0], bounds[1])),
    };
    Ok(Value::Traced(t.b.bind1(prim, params, vec![key], span)?))
}
