//! `random::NAME(key, ..)` inside a jitted body, as eagerly: keys are
//! values (`u32[2]`, their two words) that `split` and `fold_in` compute,
//! and samples take their shape and dtype from the result's written type
//! (`let z: Array<f32, 3> = random::normal(k);`). `randint`, `bernoulli`
//! and `categorical` are written with JAX's primitives as JAX composes them,
//! from the same bits as the eager functions.

pub(crate) mod choice;

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::types::TypeSpec;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{literal, Result};
use crate::ir::{key_aval, Atom, Aval, Dim, Scalar};
use crate::prims::{self, Prim};
use jax_core::lax::Lax;
use jax_core::random as core;
pub(crate) use jax_core::random::int_range;

/// The samplers that draw one primitive's values, and how many bounds
/// (`minval`, `maxval`) follow the key.
fn sampler(name: &str) -> Option<(Prim, usize)> {
    Some(match name {
        "bits" => (&prims::RANDOM_BITS, 0),
        "uniform" => (&prims::RANDOM_UNIFORM, 0),
        "uniform_range" => (&prims::RANDOM_UNIFORM, 2),
        "normal" => (&prims::RANDOM_NORMAL, 0),
        "exponential" => (&prims::RANDOM_EXPONENTIAL, 0),
        "gumbel" => (&prims::RANDOM_GUMBEL, 0),
        "truncated_normal" => (&prims::RANDOM_TRUNCATED_NORMAL, 2),
        _ => return None,
    })
}

/// `random::NAME(key, ..)` in a body.
pub(crate) fn sample(t: &mut Tracer, c: Call) -> Result<Value> {
    let name = c.name;
    match name {
        "split" => return split(t, c),
        "fold_in" => return fold_in(t, c),
        "randint" => return randint(t, c),
        "bernoulli" | "bernoulli_each" => return bernoulli(t, c),
        "categorical" => return categorical(t, c),
        // A key's words are the key (JAX's `random_unwrap`/`random_wrap`
        // change only its type).
        "key_data" | "wrap_key_data" => {
            c.want(1)?;
            let (v, s) = c.args[0].clone();
            let a = t.atom(v, s)?;
            return if t.b.aval(&a) == key_aval() {
                Ok(Value::Traced(a))
            } else {
                call_err(
                    s,
                    format!(
                        "`random::{name}` takes a key's two words (`u32[2]`), got {}",
                        t.b.aval(&a)
                    ),
                )
            };
        }
        "key" | "PRNGKey" => return seed_key(t, c),
        "permutation" => return choice::permutation(t, c),
        "permutation_of" => return choice::permutation_of(t, c),
        "choice" => return choice::choice(t, c),
        "choice_rows" => return choice::choice_rows(t, c),
        "choice_weighted" => return choice::choice_weighted(t, c),
        "normal_like" | "uniform_like" => return sample_like(t, c),
        _ => {}
    }
    let Some((prim, nbounds)) = sampler(name) else {
        return call_err(
            c.span,
            format!("`random::{name}` is not supported inside #[jax::jit]; the random functions that are: split, fold_in, key_data, wrap_key_data, bits, uniform, uniform_range, normal, normal_like, uniform_like, exponential, gumbel, truncated_normal, randint, bernoulli, bernoulli_each, categorical, permutation, permutation_of, choice, choice_rows, choice_weighted"),
        );
    };
    want_args(&c, 1 + nbounds)?;
    let key = key_arg(t, &c.args[0])?;
    let mut bounds = Vec::new();
    for (v, s) in &c.args[1..] {
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
    let aval = result_aval(&c)?;
    Ok(Value::Traced(t.at(c.span).random(
        prim,
        key,
        aval.shape,
        aval.dtype,
        (nbounds == 2).then(|| (bounds[0], bounds[1])),
    )?))
}

pub(super) fn want_args(c: &Call, n: usize) -> Result<()> {
    if c.args.len() == n {
        return Ok(());
    }
    call_err(
        c.span,
        format!(
            "`random::{}` takes {n} argument(s), got {}",
            c.name,
            c.args.len()
        ),
    )
}

/// A key argument: a `jax::random::Key` parameter, or one `split` or
/// `fold_in` made.
pub(super) fn key_arg(t: &mut Tracer, (v, s): &(Value, Span)) -> Result<Atom> {
    let key = t.atom(v.clone(), *s)?;
    let aval = t.b.aval(&key);
    if aval != key_aval() {
        return call_err(
            *s,
            format!("expected a key (`jax::random::Key`), got {aval}: make keys with `random::split`, `random::fold_in`, or pass one in"),
        );
    }
    Ok(key)
}

/// The written result type's aval (samples take their shape from it).
pub(super) fn result_aval(c: &Call) -> Result<Aval> {
    let name = c.name;
    let args = if c.args.len() > 1 { "k, .." } else { "k" };
    match c.hint.as_ref().and_then(TypeSpec::aval) {
        Some(a) => Ok(a),
        None => call_err(
            c.span,
            format!("`random::{name}` takes its shape and dtype from the result type: annotate it (`let z: Array<f32, 3> = random::{name}({args});` or `random::{name}::<Array<f32, 3>>({args})`)"),
        ),
    }
}

/// `random::normal_like(k, &x)`, `uniform_like`: JAX's `random.normal(k,
/// x.shape, x.dtype)`, the shape and float dtype taken from a value (the
/// form a `tree::map` closure needs, whose leaves have no written type).
fn sample_like(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 2)?;
    let prim = match c.name {
        "normal_like" => &prims::RANDOM_NORMAL,
        _ => &prims::RANDOM_UNIFORM,
    };
    let key = key_arg(t, &c.args[0])?;
    let (v, s) = c.args[1].clone();
    let like = t.atom(v, s)?;
    let aval = t.b.aval(&like);
    if !aval.dtype.is_float() {
        return call_err(
            s,
            format!(
                "`random::{}` draws floats like its second argument, which is {aval}: pass a float array (JAX: the dtype argument to {} must be a float or complex dtype)",
                c.name,
                c.name.trim_end_matches("_like")
            ),
        );
    }
    Ok(Value::Traced(
        t.at(c.span)
            .random(prim, key, aval.shape, aval.dtype, None)?,
    ))
}

/// `let [a, b] = random::split(k);`, `random::split::<3>(k)` or
/// `let ks: [Key; 3] = random::split(k);`: the count comes from the
/// pattern or the type, as eagerly; the result is a Rust array of keys.
fn split(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 1)?;
    let n = match &c.hint {
        Some(TypeSpec::Tuple(ts)) if ts.iter().all(|s| matches!(s, TypeSpec::Key)) => ts.len(),
        // `N` keys, a const generic: one key array, `u32[N, 2]`.
        Some(TypeSpec::Array { aval, .. }) if aval.dtype == DType::U32 && aval.shape.len() == 2 && aval.shape[1] == Dim::Lit(2) => {
            let key = key_arg(t, &c.args[0])?;
            return Ok(Value::Traced(t.at(c.span).random(&prims::RANDOM_SPLIT, key, vec![aval.shape[0].clone()], DType::U32, None)?));
        }
        _ => {
            return call_err(
                c.span,
                "`random::split` takes the number of keys from the pattern or the type: write `let [a, b] = random::split(k);`, `random::split::<N>(k)` or `let ks: [Key; N] = random::split(k);`, N a number, a const of the mod or a const generic",
            )
        }
    };
    let key = key_arg(t, &c.args[0])?;
    let words = core::split_words(&mut t.at(c.span), key, n)?;
    let keys = (0..n)
        .map(|i| {
            Ok(Value::Traced(core::key_at(
                &mut t.at(c.span),
                words.clone(),
                i,
            )?))
        })
        .collect::<Result<_>>()?;
    Ok(Value::List(keys))
}

/// `random::fold_in(k, data)`: data a static or traced integer, folded in
/// as its low 32 bits (`uint32`, as JAX converts it).
/// `random::key(seed)` (and `PRNGKey`) of an integer scalar, known or
/// traced (JAX's examples write `random.PRNGKey(t)` with the step `t`):
/// threefry's seeding, the key's high word the seed's upper 32 bits (0 for
/// a 32-bit seed, and without x64) and its low word the lower 32 bits, as
/// the eager `random::key` makes them.
fn seed_key(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 1)?;
    let (v, s) = c.args[0].clone();
    let seed = t.atom(v, s)?;
    let aval = t.b.aval(&seed);
    if !aval.dtype.is_integer() || aval.rank() != 0 {
        return call_err(
            s,
            format!("`random::{}` takes an integer seed, got {aval}", c.name),
        );
    }
    let mut l = t.at(c.span);
    // Without x64 JAX has no 64-bit seed: the high word is 0, as eagerly.
    let hi = if aval.dtype.bits() == 64 && l.x64() {
        let k = l.literal(Scalar::Int(32), Aval::scalar(aval.dtype, false));
        let h = l.binary(&prims::SHIFT_RIGHT_LOGICAL, seed.clone(), k)?;
        l.convert_element_type(h, DType::U32, false)?
    } else {
        let z = l.literal(Scalar::Int(0), Aval::scalar(DType::U32, false));
        l.convert_element_type(z, DType::U32, false)?
    };
    let lo = l.convert_element_type(seed, DType::U32, false)?;
    let one = vec![Dim::Lit(1)];
    let hi = l.reshape(hi, one.clone())?;
    let lo = l.reshape(lo, one)?;
    let key = l.concatenate(vec![hi, lo], 0)?;
    debug_assert_eq!(t.b.aval(&key), key_aval());
    Ok(Value::Traced(key))
}

fn fold_in(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 2)?;
    let key = key_arg(t, &c.args[0])?;
    let (v, s) = c.args[1].clone();
    let data = match v {
        Value::Static(Scalar::Int(i)) => literal(
            Scalar::Int(i as u32 as i128),
            Aval::scalar(DType::U32, false),
        ),
        v => {
            let a = t.atom(v, s)?;
            let aval = t.b.aval(&a);
            if !aval.dtype.is_integer() || aval.rank() != 0 {
                return call_err(
                    s,
                    format!("`random::fold_in` folds in an integer scalar, got {aval}"),
                );
            }
            jnp::convert(&mut t.b, a, DType::U32, false, s)?
        }
    };
    Ok(Value::Traced(t.at(c.span).binary(
        &prims::RANDOM_FOLD_IN,
        key,
        data,
    )?))
}

/// `random::randint(k, minval, maxval)`, as JAX draws it: the key split in
/// two, `bits` from each, combined modulo the span with the type's
/// wrapping arithmetic. The bounds are static, so the span and the
/// multiplier are computed now, as the eager function computes them.
fn randint(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 3)?;
    let span = c.span;
    let key = key_arg(t, &c.args[0])?;
    let lo_hi: Vec<i128> = c.args[1..]
        .iter()
        .map(|(v, s)| t.static_int(v, *s, "a bound of `random::randint` in #[jax::jit]"))
        .collect::<Result<_>>()?;
    let aval = result_aval(&c)?;
    if !aval.dtype.is_integer() {
        return call_err(
            span,
            format!(
                "`random::randint` draws integers, the result type says {}",
                aval.dtype.name()
            ),
        );
    }
    let out = core::randint(&mut t.at(span), key, &aval, lo_hi[0], lo_hi[1])?;
    Ok(Value::Traced(out))
}

/// `random::bernoulli(k, p)` (the shape from the result type) and
/// `random::bernoulli_each(k, &p)` (one probability per element):
/// `uniform < p` in `p`'s float type. A number written without a suffix is
/// an `f64`, as Rust infers it for the eager function.
fn bernoulli(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 2)?;
    let span = c.span;
    let key = key_arg(t, &c.args[0])?;
    let (v, s) = c.args[1].clone();
    let each = c.name == "bernoulli_each";
    let p = match v {
        Value::Static(Scalar::Float(f)) if !each => {
            literal(Scalar::Float(f), Aval::scalar(DType::F64, false))
        }
        v => t.atom(v, s)?,
    };
    let paval = t.b.aval(&p);
    if !paval.dtype.is_float() || (!each && paval.rank() != 0) {
        let want = if each {
            "an array of float probabilities"
        } else {
            "a float probability (for one per element, `random::bernoulli_each(k, &p)`)"
        };
        return call_err(s, format!("`random::{}` takes {want}, got {paval}", c.name));
    }
    let shape = if each {
        paval.shape.clone()
    } else {
        let aval = result_aval(&c)?;
        if aval.dtype != DType::Bool {
            return call_err(
                span,
                format!(
                    "`random::bernoulli` draws booleans, the result type says {}",
                    aval.dtype.name()
                ),
            );
        }
        aval.shape
    };
    Ok(Value::Traced(core::bernoulli(
        &mut t.at(span),
        key,
        p,
        shape,
    )?))
}

/// `random::categorical(k, &logits, axis)`: the argmax of Gumbel noise
/// plus the logits along `axis`; leading dimensions of the result type
/// beyond the logits' other axes are independent samples (JAX's `shape`).
fn categorical(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 3)?;
    let span = c.span;
    let key = key_arg(t, &c.args[0])?;
    let logits = c.atom(t, 1)?;
    let laval = t.b.aval(&logits);
    if !laval.dtype.is_float() || laval.rank() == 0 {
        return call_err(
            c.args[1].1,
            format!("`random::categorical` takes float logits with at least one axis, got {laval}"),
        );
    }
    let axis = t.static_int(&c.args[2].0, c.args[2].1, "the axis")?;
    let axis = jnp::axis(&t.b, &logits, axis, c.args[2].1)?;
    let aval = result_aval(&c)?;
    Ok(Value::Traced(core::categorical(
        &mut t.at(span),
        key,
        logits,
        axis,
        &aval,
    )?))
}

/// Arguments whose float literals keep their suffix's type (`0.5f32` is an
/// `f32` probability, as the eager `bernoulli`'s `F` infers it; an
/// unsuffixed one stays a number, an `f64` there).
pub(crate) fn suffixed_args(
    t: &mut Tracer,
    args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
) -> Result<Vec<(Value, Span)>> {
    use syn::spanned::Spanned;
    args.iter()
        .map(|a| {
            let typed = match a {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Float(f),
                    ..
                }) => DType::from_name(match f.suffix() {
                    "f32" => "float32",
                    "f64" => "float64",
                    _ => "",
                })
                .map(|d| (d, f.base10_parse::<f64>())),
                _ => None,
            };
            let v = match typed {
                Some((d, Ok(v))) => Value::Traced(literal(
                    crate::ir::cast_scalar(Scalar::Float(v), d),
                    Aval::scalar(d, false),
                )),
                _ => t.expr(a)?,
            };
            Ok((v, a.span()))
        })
        .collect()
}
