//! `jax.random`'s compositions of its primitives, written once over
//! [`Lax`] as JAX composes them: `randint`, `bernoulli`, `categorical`,
//! `_shuffle` with `permutation`, and the `choice` family. A key is a
//! `u32[2]` value (its two words); the samplers (`random_bits`,
//! `random_uniform`, ...) are primitives whose kernels jitted code and eager
//! calls share, so every draw is the same whichever runs it.

use jax_dtypes::{DType, Kind};

use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::jnp::{self, Res};
use crate::lax::Lax;
use crate::prims;

/// The smallest and largest value of an integer type.
pub fn int_range(d: DType) -> (i128, i128) {
    let nbits = d.bits();
    if d.kind() == Kind::Int {
        (-(1i128 << (nbits - 1)), (1i128 << (nbits - 1)) - 1)
    } else {
        (0, (1i128 << nbits) - 1)
    }
}

/// The unsigned type of a width (what `random_bits` draws for `randint`).
fn unsigned_of(d: DType) -> DType {
    match d.bits() {
        8 => DType::U8,
        16 => DType::U16,
        64 => DType::U64,
        _ => DType::U32,
    }
}

/// The number of elements of a static shape.
fn static_size<L: Lax>(l: &L, shape: &[Dim]) -> Res<L, usize> {
    shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(s) => Err(l.expression_error(format!(
                "random draws need sizes known when the function compiles, not `{s}`"
            ))),
        })
        .product()
}

/// `random_split[shape=(n,)]` of one key: `u32[n, 2]`.
pub fn split_words<L: Lax>(l: &mut L, key: L::V, n: usize) -> Res<L, L::V> {
    l.random(
        &prims::RANDOM_SPLIT,
        key,
        vec![Dim::Lit(n)],
        DType::U32,
        None,
    )
}

/// Key `i` of split keys `u32[n, 2]`: `keys[i]`, as JAX indexes an array
/// of keys (a slice, then a squeeze).
pub fn key_at<L: Lax>(l: &mut L, keys: L::V, i: usize) -> Res<L, L::V> {
    let s = l.slice(keys, vec![i, 0], vec![i + 1, 2], None)?;
    l.squeeze(s, vec![0])
}

/// The result type of an index draw from `0..n`: integers that hold them.
pub fn index_result(name: &str, aval: &Aval, n: usize) -> Result<(), String> {
    let fits = aval.dtype.is_integer() && n.saturating_sub(1) as i128 <= int_range(aval.dtype).1;
    if !fits {
        return Err(format!(
            "{name}: the result type {aval} cannot hold the indices 0..{n}"
        ));
    }
    Ok(())
}

/// `randint` draws of `aval`'s shape and integer dtype in `[min, max)`, as
/// JAX draws them: the key split in two, `bits` from each, combined modulo
/// the span with the type's wrapping arithmetic. The bounds are static, so
/// the span and the multiplier are computed here.
pub fn randint<L: Lax>(l: &mut L, key: L::V, aval: &Aval, min: i128, max: i128) -> Res<L, L::V> {
    let out_dtype = aval.dtype;
    if !out_dtype.is_integer() {
        return Err(l.expression_error(format!(
            "`random::randint` draws integers, the result type says {}",
            out_dtype.name()
        )));
    }
    let (mut min, mut max) = (min as i64 as i128, max as i64 as i128);
    let dtype = if out_dtype.bits() < 32 {
        // JAX samples 8- and 16-bit integers as int32, the bounds cast to
        // int32 and clipped to the type (`maxval` to one past it), then
        // casts the values.
        let (lo, hi) = int_range(out_dtype);
        min = (min as i32 as i128).clamp(lo, hi);
        max = (max as i32 as i128).clamp(lo, hi + 1);
        DType::I32
    } else {
        out_dtype
    };
    let nbits = dtype.bits();
    let mask: u64 = if nbits == 64 {
        u64::MAX
    } else {
        (1 << nbits) - 1
    };
    let (tmin, tmax) = int_range(dtype);
    let rem = |a: u64, b: u64| if b == 0 { a } else { a % b };
    let lo = min.clamp(tmin, tmax);
    let hi = max.clamp(tmin, tmax);
    let mut span_v = ((hi - lo) as u64) & mask;
    if hi <= lo {
        span_v = 1;
    } else if max > tmax {
        span_v = span_v.wrapping_add(1) & mask;
    }
    let multiplier = rem((1u64 << (nbits / 2)) & mask, span_v);
    let multiplier = rem(multiplier.wrapping_mul(multiplier) & mask, span_v);

    let udt = unsigned_of(dtype);
    let words = split_words(l, key, 2)?;
    let bits = |l: &mut L, i: usize| {
        let k = key_at(l, words.clone(), i)?;
        l.random(&prims::RANDOM_BITS, k, aval.shape.clone(), udt, None)
    };
    let (h, lw) = (bits(l, 0)?, bits(l, 1)?);
    let u = |l: &mut L, v: u64| l.literal(Scalar::Int(v as i128), Aval::scalar(udt, false));
    // `x % 0` keeps `x` (XLA's unsigned remainder), so it is left out.
    let modulo = |l: &mut L, x: L::V| {
        if span_v == 0 {
            Ok(x)
        } else {
            let s = u(l, span_v);
            l.binary(&prims::REM, x, s)
        }
    };
    let hm = modulo(l, h)?;
    let m = u(l, multiplier);
    let hm = l.binary(&prims::MUL, hm, m)?;
    let lm = modulo(l, lw)?;
    let offset = l.binary(&prims::ADD, hm, lm)?;
    let offset = modulo(l, offset)?;
    let offset = jnp::convert(l, offset, dtype, false)?;
    let lo = l.literal(
        cast_scalar(Scalar::Int(lo), dtype),
        Aval::scalar(dtype, false),
    );
    let out = l.binary(&prims::ADD, offset, lo)?;
    jnp::convert(l, out, out_dtype, false)
}

/// `random::bernoulli(k, p)` draws of `shape` (`bernoulli_each`: `p`'s
/// own shape): `uniform < p` in `p`'s float type.
pub fn bernoulli<L: Lax>(l: &mut L, key: L::V, p: L::V, shape: Vec<Dim>) -> Res<L, L::V> {
    let dtype = l.aval(&p).dtype;
    let u = l.random(&prims::RANDOM_UNIFORM, key, shape, dtype, None)?;
    let p = jnp::convert(l, p, dtype, false)?;
    jnp::binary(l, &prims::LT, u, p)
}

/// `categorical`'s operands: float logits with an axis, integer indices
/// of shape `(samples.., logits' shape without the axis)`.
pub fn categorical_shapes(logits: &Aval, axis: usize, out: &Aval) -> Result<(), String> {
    if logits.shape[axis] == Dim::Lit(0) {
        return Err("categorical: attempt to get argmax of an empty sequence".into());
    }
    let mut batch = logits.shape.clone();
    batch.remove(axis);
    if !out.dtype.is_integer() || !out.shape.ends_with(&batch) {
        return Err(format!("`random::categorical` gives integer indices of shape (samples.., {}) (the logits' shape without axis {axis}), the result type says {out}", prims::tuple(&batch)));
    }
    Ok(())
}

/// `random::categorical(k, logits, axis)`: the argmax of Gumbel noise plus
/// the logits along `axis`; leading dimensions of `out` beyond the logits'
/// other axes are independent samples (JAX's `shape`).
pub fn categorical<L: Lax>(
    l: &mut L,
    key: L::V,
    logits: L::V,
    axis: usize,
    out: &Aval,
) -> Res<L, L::V> {
    let la = l.aval(&logits);
    categorical_shapes(&la, axis, out).map_err(|m| l.expression_error(m))?;
    let batch = la.rank() - 1;
    let prefix = out.shape[..out.shape.len() - batch].to_vec();
    let mut noise_shape = prefix.clone();
    noise_shape.extend(la.shape.iter().cloned());
    let noise = l.random(&prims::RANDOM_GUMBEL, key, noise_shape, la.dtype, None)?;
    let scores = jnp::binary(l, &prims::ADD, noise, logits)?;
    l.arg_reduce(&prims::ARGMAX, scores, prefix.len() + axis, out.dtype)
}

/// JAX's `_shuffle` along axis 0 of `x`: `ceil(3 ln n / ln(2^32 - 1))`
/// rounds (`n` rows), each a stable `sort` of the rows by fresh 32-bit
/// bits from a split of the key (the bits broadcast along the other axes,
/// so every column moves with its row).
pub fn shuffle<L: Lax>(l: &mut L, key: L::V, x: L::V) -> Res<L, L::V> {
    let aval = l.aval(&x);
    let Some(Dim::Lit(n)) = aval.shape.first().cloned() else {
        return Err(l.expression_error(format!(
            "a shuffle needs rows of a size known when the function compiles, got {aval}"
        )));
    };
    let rounds = (3.0 * (n.max(1) as f64).ln() / (u32::MAX as f64).ln()).ceil() as usize;
    let (mut key, mut x) = (key, x);
    for _ in 0..rounds {
        let words = split_words(l, key, 2)?;
        key = key_at(l, words.clone(), 0)?;
        let sub = key_at(l, words, 1)?;
        let mut sort_keys = l.random(
            &prims::RANDOM_BITS,
            sub,
            vec![Dim::Lit(n)],
            DType::U32,
            None,
        )?;
        if aval.rank() > 1 {
            sort_keys = l.broadcast_in_dim(sort_keys, aval.shape.clone(), vec![0])?;
        }
        let mut outs = l.sort(vec![sort_keys, x], 0, true, 1)?;
        x = outs.remove(1);
    }
    Ok(x)
}

/// `x` (1-D) reshaped to `shape` when that is another shape.
fn shaped<L: Lax>(l: &mut L, x: L::V, shape: &[Dim]) -> Res<L, L::V> {
    if l.aval(&x).shape == shape {
        return Ok(x);
    }
    jnp::reshape(l, x, shape.to_vec())
}

/// The first `k` rows of `x`.
fn first_rows<L: Lax>(l: &mut L, x: L::V, k: usize) -> Res<L, L::V> {
    let aval = l.aval(&x);
    if aval.shape[0] == Dim::Lit(k) {
        return Ok(x);
    }
    let mut limit = Vec::with_capacity(aval.rank());
    for d in &aval.shape {
        limit.push(static_size(l, std::slice::from_ref(d))?);
    }
    limit[0] = k;
    l.slice(x, vec![0; aval.rank()], limit, None)
}

/// `random::permutation`: `0..n` shuffled (`n` the size of `out`, in its
/// integer type and shape).
pub fn permutation<L: Lax>(l: &mut L, key: L::V, out: &Aval) -> Res<L, L::V> {
    let n = static_size(l, &out.shape)?;
    index_result("permutation", out, n).map_err(|m| l.expression_error(m))?;
    let order = l.iota(out.dtype, vec![Dim::Lit(n)], 0)?;
    let order = shuffle(l, key, order)?;
    shaped(l, order, &out.shape)
}

/// `random::permutation_of(k, x)`: the rows of `x` shuffled.
pub fn permutation_of<L: Lax>(l: &mut L, key: L::V, x: L::V) -> Res<L, L::V> {
    if l.aval(&x).rank() == 0 {
        return Ok(x);
    }
    shuffle(l, key, x)
}

/// JAX's errors for `draws` from `n`.
fn population<L: Lax>(l: &L, n: usize, draws: usize, replace: bool) -> Res<L, ()> {
    jax_dtypes::checks::choice_population(n, draws, replace).map_err(|m| l.expression_error(m))
}

/// `choice`'s draws with replacement: `randint(key, shape, 0, n)` in the
/// default integer type (int64 when `n` does not fit it, as JAX with x64).
fn replace_indices<L: Lax>(l: &mut L, key: L::V, n: usize, shape: Vec<Dim>) -> Res<L, L::V> {
    let int = jax_dtypes::default_dtype(Kind::Int, l.x64());
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
    randint(l, key, &drawn, 0, n as i128)
}

/// `random::choice(k, n, replace)` of `out`'s shape and integer type:
/// `randint(k, 0, n)` with replacement, the first draws of a shuffle of
/// `0..n` without.
pub fn choice<L: Lax>(l: &mut L, key: L::V, n: usize, replace: bool, out: &Aval) -> Res<L, L::V> {
    index_result("choice", out, n).map_err(|m| l.expression_error(m))?;
    let draws = static_size(l, &out.shape)?;
    population(l, n, draws, replace)?;
    if replace {
        let d = replace_indices(l, key, n, out.shape.clone())?;
        jnp::convert(l, d, out.dtype, false)
    } else {
        let order = l.iota(out.dtype, vec![Dim::Lit(n)], 0)?;
        let order = shuffle(l, key, order)?;
        let first = first_rows(l, order, draws)?;
        shaped(l, first, &out.shape)
    }
}

/// `random::choice_rows(k, x, replace)` of `out` (rows of `x`): without
/// replacement the first rows of `x` shuffled; with replacement the rows
/// gathered (`jnp.take`) at `randint` indices.
pub fn choice_rows<L: Lax>(
    l: &mut L,
    key: L::V,
    x: L::V,
    replace: bool,
    out: &Aval,
) -> Res<L, L::V> {
    let xa = l.aval(&x);
    if xa.rank() == 0 {
        return Err(l.expression_error(
            "choice_rows: x must have at least one axis; use choice for 0..n".into(),
        ));
    }
    let row_shape = &xa.shape[1..];
    if !out.shape.ends_with(row_shape) || out.dtype != xa.dtype {
        return Err(l.expression_error(format!(
            "choice_rows: the result type {out} must be rows of {xa} (its shape ending with {})",
            prims::tuple(row_shape)
        )));
    }
    let n = static_size(l, &xa.shape[..1])?;
    let draws_shape = out.shape[..out.shape.len() - row_shape.len()].to_vec();
    let draws = static_size(l, &draws_shape)?;
    population(l, n, draws, replace)?;
    if replace {
        // As JAX: `randint(key, draws_shape, 0, n)` indices, then `take`.
        let idx = replace_indices(l, key, n, draws_shape)?;
        return crate::indexing::take(l, x, idx, 0);
    }
    let rows = shuffle(l, key, x)?;
    let first = first_rows(l, rows, draws)?;
    shaped(l, first, &out.shape)
}

/// `random::choice_weighted(k, p, replace)` of `out`'s shape and integer
/// type: with replacement, the inverse CDF (`searchsorted(cumsum(p),
/// total * (1 - u))`, counted as the CDF values below each draw); without,
/// the largest Gumbel-perturbed log weights (a stable sort by their
/// negation).
pub fn choice_weighted<L: Lax>(
    l: &mut L,
    key: L::V,
    p: L::V,
    replace: bool,
    out: &Aval,
) -> Res<L, L::V> {
    let pa = l.aval(&p);
    if pa.rank() != 1 || !pa.dtype.is_float() {
        return Err(l.expression_error(format!(
            "choice_weighted: p must be a 1-D float array, got {pa}"
        )));
    }
    let n = static_size(l, &pa.shape)?;
    index_result("choice_weighted", out, n).map_err(|m| l.expression_error(m))?;
    let draws = static_size(l, &out.shape)?;
    population(l, n, draws, replace)?;
    let fdt = pa.dtype;
    if replace {
        let cdf = l.cumulative(&prims::CUMSUM, p, 0, false)?;
        let total = l.slice(cdf.clone(), vec![n - 1], vec![n], None)?;
        let u = l.random(
            &prims::RANDOM_UNIFORM,
            key,
            vec![Dim::Lit(draws)],
            fdt,
            Some((0.0, 1.0)),
        )?;
        let one = l.literal(Scalar::Float(1.0), Aval::scalar(fdt, false));
        let rest = jnp::binary(l, &prims::SUB, one, u)?;
        let r = jnp::binary(l, &prims::MUL, total, rest)?;
        // below[i, j] = cdf[j] < r[i]; the index is their count.
        let r = jnp::expand_dims(l, r, 1)?;
        let below = jnp::binary(l, &prims::LT, cdf, r)?;
        let below = jnp::convert(l, below, out.dtype, false)?;
        let count = l.reduce(&prims::REDUCE_SUM, below, vec![1])?;
        shaped(l, count, &out.shape)
    } else {
        let g = l.random(&prims::RANDOM_GUMBEL, key, vec![Dim::Lit(n)], fdt, None)?;
        let logp = l.unary(&prims::LOG, p)?;
        let scores = jnp::binary(l, &prims::ADD, g, logp)?;
        let neg = l.unary(&prims::NEG, scores)?;
        let order = l.iota(out.dtype, vec![Dim::Lit(n)], 0)?;
        let mut outs = l.sort(vec![neg, order], 0, true, 1)?;
        let first = first_rows(l, outs.remove(1), draws)?;
        shaped(l, first, &out.shape)
    }
}
