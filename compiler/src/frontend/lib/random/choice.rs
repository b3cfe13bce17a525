//! `random::permutation`, `permutation_of` and the `choice` family inside a
//! jitted body: JAX's `_shuffle` (rounds of a stable sort by fresh bits)
//! and its draws, from the same bits as the eager functions.

use jax_dtypes::DType;
use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call};
use crate::frontend::lib::jnp::gather;
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{literal, Result};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self};

use crate::frontend::lib::random::*;
use jax_core::lax::Lax;

/// JAX's `_shuffle` along axis 0 of `x`: `ceil(3 ln n / ln(2^32 - 1))`
/// rounds (`n` rows), each a stable `sort` of the rows by fresh 32-bit
/// bits from a split of the key (the bits broadcast along the other axes,
/// so every column moves with its row).
fn shuffle(t: &mut Tracer, mut key: Atom, mut x: Atom, span: Span) -> Result<Atom> {
    let aval = t.b.aval(&x);
    let Some(Dim::Lit(n)) = aval.shape.first().cloned() else {
        return call_err(
            span,
            format!("a shuffle needs rows of a size known when the function compiles, got {aval}"),
        );
    };
    let rounds = (3.0 * (n.max(1) as f64).ln() / (u32::MAX as f64).ln()).ceil() as usize;
    for _ in 0..rounds {
        let words = split_words(t, key, 2, span)?;
        key = key_at(t, words.clone(), 0, span)?;
        let sub = key_at(t, words, 1, span)?;
        let mut sort_keys = t.at(span).random(
            &prims::RANDOM_BITS,
            sub,
            vec![Dim::Lit(n)],
            DType::U32,
            None,
        )?;
        if aval.rank() > 1 {
            sort_keys = t
                .at(span)
                .broadcast_in_dim(sort_keys, aval.shape.clone(), vec![0])?;
        }
        let mut outs = t.at(span).sort(vec![sort_keys, x], 0, true, 1)?;
        x = outs.remove(1);
    }
    Ok(x)
}

/// The annotated result must be integers that hold `0..n`.
fn index_result(c: &Call, n: usize) -> Result<Aval> {
    let aval = result_aval(c)?;
    let fits = aval.dtype.is_integer() && n.saturating_sub(1) as i128 <= int_range(aval.dtype).1;
    if !fits {
        return call_err(
            c.span,
            format!(
                "{}: the result type {} cannot hold the indices 0..{n}",
                c.name, aval
            ),
        );
    }
    Ok(aval)
}

/// `0, 1, .., n - 1` in `dtype`.
fn indices(t: &mut Tracer, n: usize, dtype: DType, span: Span) -> Result<Atom> {
    t.at(span).iota(dtype, vec![Dim::Lit(n)], 0)
}

/// The number of elements of a static shape.
fn static_size(shape: &[Dim], span: Span) -> Result<usize> {
    shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(s) => call_err(
                span,
                format!("random draws need sizes known when the function compiles, not `{s}`"),
            ),
        })
        .product()
}

/// `x` (1-D) reshaped to `shape` when that is another shape.
fn shaped(t: &mut Tracer, x: Atom, shape: &[Dim], span: Span) -> Result<Atom> {
    if t.b.aval(&x).shape == shape {
        return Ok(x);
    }
    jnp::reshape(&mut t.b, x, shape.to_vec(), span)
}

/// `random::permutation::<A>(k)`: `0..n` shuffled, `n` and the integer
/// type from the result type.
pub(crate) fn permutation(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 1)?;
    let key = key_arg(t, &c.args[0])?;
    let n = static_size(&result_aval(&c)?.shape, c.span)?;
    let aval = index_result(&c, n)?;
    let order = indices(t, n, aval.dtype, c.span)?;
    let order = shuffle(t, key, order, c.span)?;
    Ok(Value::Traced(shaped(t, order, &aval.shape, c.span)?))
}

/// `random::permutation_of(k, &x)`: the rows of `x` shuffled.
pub(crate) fn permutation_of(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 2)?;
    let key = key_arg(t, &c.args[0])?;
    let x = c.atom(t, 1)?;
    if t.b.aval(&x).rank() == 0 {
        return Ok(Value::Traced(x));
    }
    Ok(Value::Traced(shuffle(t, key, x, c.span)?))
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

/// JAX's errors for `draws` from `n`, found now (the sizes are static).
fn check_population(c: &Call, n: usize, draws: usize, replace: bool) -> Result<()> {
    jax_dtypes::checks::choice_population(n, draws, replace).or_else(|msg| call_err(c.span, msg))
}

/// `random::choice::<A>(k, n, replace)`: `randint(k, 0, n)` in the default
/// integer type with replacement; the first draws of a shuffle of `0..n`
/// without.
pub(crate) fn choice(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 3)?;
    let span = c.span;
    let key = key_arg(t, &c.args[0])?;
    let n = t.static_int(
        &c.args[1].0,
        c.args[1].1,
        "the population of `random::choice`",
    )?;
    let n = usize::try_from(n).unwrap_or(0);
    let replace = replace_flag(&c)?;
    let aval = index_result(&c, n)?;
    let draws = static_size(&aval.shape, span)?;
    check_population(&c, n, draws, replace)?;
    let out = if replace {
        let d = replace_indices(t, key, n, aval.shape.clone(), span)?;
        jnp::convert(&mut t.b, d, aval.dtype, false, span)?
    } else {
        let order = indices(t, n, aval.dtype, span)?;
        let order = shuffle(t, key, order, span)?;
        let first = first_rows(t, order, draws, span)?;
        shaped(t, first, &aval.shape, span)?
    };
    Ok(Value::Traced(out))
}

/// `choice`'s draws with replacement: `randint(key, shape, 0, n)` in the
/// default integer type (int64 when `n` does not fit it, as JAX with x64).
fn replace_indices(
    t: &mut Tracer,
    key: Atom,
    n: usize,
    shape: Vec<Dim>,
    span: Span,
) -> Result<Atom> {
    let int = jax_dtypes::default_dtype(jax_dtypes::Kind::Int, t.b.x64);
    let wide = if n as i128 > int_range(int).1 {
        DType::I64
    } else {
        int
    };
    let drawn = Aval {
        dtype: wide,
        shape,
        weak: false,
    };
    randint_draws(t, key, &drawn, 0, n as i128, span)
}

/// The first `k` rows of `x`.
fn first_rows(t: &mut Tracer, x: Atom, k: usize, span: Span) -> Result<Atom> {
    let aval = t.b.aval(&x);
    if aval.shape[0] == Dim::Lit(k) {
        return Ok(x);
    }
    let mut limit = Vec::with_capacity(aval.rank());
    for d in &aval.shape {
        limit.push(static_size(std::slice::from_ref(d), span)?);
    }
    limit[0] = k;
    t.at(span).slice(x, vec![0; aval.rank()], limit, None)
}

/// `random::choice_rows(k, &x, replace)`: without replacement the first
/// rows of `x` shuffled; with replacement the rows gathered (`jnp.take`)
/// at `randint` indices.
pub(crate) fn choice_rows(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 3)?;
    let span = c.span;
    let key = key_arg(t, &c.args[0])?;
    let x = c.atom(t, 1)?;
    let replace = replace_flag(&c)?;
    let xaval = t.b.aval(&x);
    let aval = result_aval(&c)?;
    if xaval.rank() == 0 {
        return call_err(
            c.args[1].1,
            "choice_rows: x must have at least one axis; use choice for 0..n",
        );
    }
    let row_shape = &xaval.shape[1..];
    if !aval.shape.ends_with(row_shape) || aval.dtype != xaval.dtype {
        return call_err(
            span,
            format!("choice_rows: the result type {aval} must be rows of {xaval} (its shape ending with {})", crate::prims::tuple(row_shape)),
        );
    }
    let n = static_size(&xaval.shape[..1], span)?;
    let draws = static_size(&aval.shape[..aval.shape.len() - row_shape.len()], span)?;
    check_population(&c, n, draws, replace)?;
    if replace {
        // As JAX: `randint(key, draws_shape, 0, n)` indices, then `take`.
        let draws_shape = aval.shape[..aval.shape.len() - row_shape.len()].to_vec();
        let idx = replace_indices(t, key, n, draws_shape, span)?;
        return Ok(Value::Traced(gather::take_atoms(t, x, idx, 0, span)?));
    }
    let rows = shuffle(t, key, x, span)?;
    let first = first_rows(t, rows, draws, span)?;
    Ok(Value::Traced(shaped(t, first, &aval.shape, span)?))
}

/// `random::choice_weighted(k, &p, replace)`: with replacement, the
/// inverse CDF (`searchsorted(cumsum(p), total * (1 - u))`, counted as the
/// CDF values below each draw); without, the largest Gumbel-perturbed log
/// weights (a stable sort by their negation).
pub(crate) fn choice_weighted(t: &mut Tracer, c: Call) -> Result<Value> {
    want_args(&c, 3)?;
    let span = c.span;
    let key = key_arg(t, &c.args[0])?;
    let p = c.atom(t, 1)?;
    let replace = replace_flag(&c)?;
    let paval = t.b.aval(&p);
    if paval.rank() != 1 || !paval.dtype.is_float() {
        return call_err(
            c.args[1].1,
            format!("choice_weighted: p must be a 1-D float array, got {paval}"),
        );
    }
    let n = static_size(&paval.shape, span)?;
    let aval = index_result(&c, n)?;
    let draws = static_size(&aval.shape, span)?;
    check_population(&c, n, draws, replace)?;
    let fdt = paval.dtype;
    let out = if replace {
        let cdf = t.at(span).cumulative(&prims::CUMSUM, p, 0, false)?;
        let total = t.at(span).slice(cdf.clone(), vec![n - 1], vec![n], None)?;
        let u = t.at(span).random(
            &prims::RANDOM_UNIFORM,
            key,
            vec![Dim::Lit(draws)],
            fdt,
            Some((0.0, 1.0)),
        )?;
        let one = literal(Scalar::Float(1.0), Aval::scalar(fdt, false));
        let rest = jnp::binary(&mut t.b, &prims::SUB, one, u, span)?;
        let r = jnp::binary(&mut t.b, &prims::MUL, total, rest, span)?;
        // below[i, j] = cdf[j] < r[i]; the index is their count.
        let r = jnp::expand_dims(&mut t.b, r, 1, span)?;
        let below = jnp::binary(&mut t.b, &prims::LT, cdf, r, span)?;
        let below = jnp::convert(&mut t.b, below, aval.dtype, false, span)?;
        let count = t.at(span).reduce(&prims::REDUCE_SUM, below, vec![1])?;
        shaped(t, count, &aval.shape, span)?
    } else {
        let g = t
            .at(span)
            .random(&prims::RANDOM_GUMBEL, key, vec![Dim::Lit(n)], fdt, None)?;
        let logp = jnp::unary(&mut t.b, &prims::LOG, p, span)?;
        let scores = jnp::binary(&mut t.b, &prims::ADD, g, logp, span)?;
        let neg = jnp::unary(&mut t.b, &prims::NEG, scores, span)?;
        let order = indices(t, n, aval.dtype, span)?;
        let mut outs = t.at(span).sort(vec![neg, order], 0, true, 1)?;
        let first = first_rows(t, outs.remove(1), draws, span)?;
        shaped(t, first, &aval.shape, span)?
    };
    Ok(Value::Traced(out))
}
