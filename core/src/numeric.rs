//! `jnp`'s numeric functions that are compositions of primitives
//! (`remainder`, `floor_divide`, `isinf`/`isfinite`, `log2`/`log10`,
//! `trunc`, `var`/`std`, the nan-reductions, `isclose`/`allclose`,
//! `nan_to_num`, `kron`, `tensordot`, `cross`, `select`), as JAX writes them, written
//! once over [`Lax`]: a jitted body traces them, an eager call runs them.

use jax_dtypes::{DType, Kind};

use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::jnp::{
    binary, broadcast_to, concatenate, convert, mean, promote, reduce, to_float, weak_literal,
    where_, Reduction, Res,
};
use crate::lax::Lax;
use crate::prims;

/// A Python int literal (weakly typed).
fn int<L: Lax>(l: &mut L, v: i128) -> L::V {
    weak_literal(l, Scalar::Int(v))
}

/// A scalar of `like`'s dtype, not weak (`np.array(v, dtype)`).
fn typed<L: Lax>(l: &mut L, like: &L::V, v: f64) -> L::V {
    let d = l.aval(like).dtype;
    l.literal(cast_scalar(Scalar::Float(v), d), Aval::scalar(d, false))
}

/// `promote_args_numeric`: one type, bool becoming the default int.
pub fn numeric_args<L: Lax>(l: &mut L, xs: Vec<L::V>) -> Res<L, Vec<L::V>> {
    let xs = promote(l, xs)?;
    let a = l.aval(&xs[0]);
    if a.dtype == DType::Bool {
        let d = jax_dtypes::default_dtype(Kind::Int, l.x64());
        return xs.into_iter().map(|x| convert(l, x, d, a.weak)).collect();
    }
    Ok(xs)
}

fn two<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, (L::V, L::V)> {
    let mut xy = numeric_args(l, vec![x, y])?;
    let y = xy.pop().expect("two");
    Ok((xy.pop().expect("two"), y))
}

/// `jnp.remainder(x, y)` (Python's `%`): the sign of the divisor; an
/// integer `x % 0` is 0, a float one NaN.
pub fn remainder<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    let (x, mut y) = two(l, x, y)?;
    let zero = int(l, 0);
    if l.aval(&y).dtype.is_integer() {
        let is0 = binary(l, &prims::EQ, y.clone(), zero.clone())?;
        let one = int(l, 1);
        y = where_(l, is0, one, y)?;
    }
    let m = binary(l, &prims::REM, x, y.clone())?;
    let nz = binary(l, &prims::NE, m.clone(), zero.clone())?;
    let mneg = binary(l, &prims::LT, m.clone(), zero.clone())?;
    let yneg = binary(l, &prims::LT, y.clone(), zero)?;
    let differ = binary(l, &prims::NE, mneg, yneg)?;
    let plus = binary(l, &prims::AND, differ, nz)?;
    let sum = binary(l, &prims::ADD, m.clone(), y)?;
    where_(l, plus, sum, m)
}

/// `jnp.floor_divide(x, y)` (Python's `//`): JAX's integer formula (so
/// `[1, -1, 0] // 0 = [-2, -2, -1]`), or `_float_divmod`'s quotient.
pub fn floor_divide<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    let (x, y) = two(l, x, y)?;
    let d = l.aval(&x).dtype;
    let zero = int(l, 0);
    let one = int(l, 1);
    if d.kind() == Kind::UInt {
        return binary(l, &prims::DIV, x, y);
    }
    if d.is_integer() {
        let q = binary(l, &prims::DIV, x.clone(), y.clone())?;
        let sx = l.unary(&prims::SIGN, x.clone())?;
        let sy = l.unary(&prims::SIGN, y.clone())?;
        let differ = binary(l, &prims::NE, sx, sy)?;
        let r = binary(l, &prims::REM, x, y)?;
        let nz = binary(l, &prims::NE, r, zero)?;
        let sel = binary(l, &prims::AND, differ, nz)?;
        let q1 = binary(l, &prims::SUB, q.clone(), one)?;
        return where_(l, sel, q1, q);
    }
    let m = binary(l, &prims::REM, x.clone(), y.clone())?;
    let y0 = binary(l, &prims::EQ, y.clone(), zero.clone())?;
    let xm = binary(l, &prims::SUB, x.clone(), m.clone())?;
    let xc = where_(l, y0, x, xm)?;
    let div = binary(l, &prims::DIV, xc, y.clone())?;
    let mnz = binary(l, &prims::NE, m.clone(), zero)?;
    let sy = l.unary(&prims::SIGN, y)?;
    let sm = l.unary(&prims::SIGN, m)?;
    let differ = binary(l, &prims::NE, sy, sm)?;
    let ind = binary(l, &prims::AND, mnz, differ)?;
    let fone = weak_literal(l, Scalar::Float(1.0));
    let d1 = binary(l, &prims::SUB, div.clone(), fone)?;
    let div = where_(l, ind, d1, div)?;
    l.round(div, 0)
}

/// A bool array of `x`'s shape, all `v` (`lax.full_like(x, v, bool)`).
fn full_bool<L: Lax>(l: &mut L, x: &L::V, v: bool) -> Res<L, L::V> {
    let a = l.aval(x);
    let c = l.literal(Scalar::Bool(v), Aval::scalar(DType::Bool, false));
    if a.rank() == 0 {
        return Ok(c);
    }
    l.broadcast_in_dim(c, a.shape, vec![])
}

/// `jnp.isinf(x)` (`|x| == inf`); false for integers.
pub fn isinf<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    if !l.aval(&x).dtype.is_float() {
        return full_bool(l, &x, false);
    }
    let a = l.unary(&prims::ABS, x.clone())?;
    let inf = typed(l, &x, f64::INFINITY);
    binary(l, &prims::EQ, a, inf)
}

/// `jnp.isfinite(x)` (`lax.is_finite`); true for integers.
pub fn isfinite<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    if !l.aval(&x).dtype.is_float() {
        return full_bool(l, &x, true);
    }
    l.unary(&prims::IS_FINITE, x)
}

/// `jnp.log2(x)` (`log(x) / log(2)`) or `jnp.log10(x)`
/// (`log(x) * (1 / log(10))`), as JAX writes them.
pub fn log_base<L: Lax>(l: &mut L, x: L::V, base2: bool) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let lx = l.unary(&prims::LOG, x.clone())?;
    if base2 {
        let two = typed(l, &x, 2.0);
        let l2 = l.unary(&prims::LOG, two)?;
        binary(l, &prims::DIV, lx, l2)
    } else {
        let k = typed(l, &x, std::f64::consts::LOG10_E);
        binary(l, &prims::MUL, lx, k)
    }
}

/// `jnp.trunc(x)`: `where(x < 0, ceil(x), floor(x))`; integers unchanged.
pub fn trunc<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    if !l.aval(&x).dtype.is_float() {
        return Ok(x);
    }
    let zero = int(l, 0);
    let neg = binary(l, &prims::LT, x.clone(), zero)?;
    let c = l.unary(&prims::CEIL, x.clone())?;
    let f = l.unary(&prims::FLOOR, x)?;
    where_(l, neg, c, f)
}

/// `jnp.var(x, axis, ddof, keepdims)` (or `jnp.std` with `sqrt`):
/// `sum(square(x - mean(x))) / (n - ddof)` in the computation type (`f32`
/// for `f16` and `bf16`, as `_var_promote_types`).
pub fn var<L: Lax>(
    l: &mut L,
    x: L::V,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    ddof: usize,
    sqrt: bool,
) -> Res<L, L::V> {
    let a = l.aval(&x);
    let out = to_float(l, x)?;
    let oa = l.aval(&out);
    let comp = if matches!(oa.dtype, DType::F16 | DType::BF16) {
        DType::F32
    } else {
        oa.dtype
    };
    let x = convert(l, out, comp, oa.weak)?;
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let mut n = 1usize;
    for &k in &axes {
        match a.shape[k] {
            Dim::Lit(d) => n *= d,
            _ => {
                let name = if sqrt { "std" } else { "var" };
                return Err(l.error(format!("{name} over a symbolic dimension is not supported")));
            }
        }
    }
    let m = mean(l, x.clone(), Some(axes.clone()), true)?;
    let centered = binary(l, &prims::SUB, x, m)?;
    let sq = l.unary(&prims::SQUARE, centered)?;
    let sum = reduce(l, Reduction::Sum, sq, Some(axes), keepdims)?;
    // JAX divides by `n - ddof` as a number of the computation type (so a
    // `ddof` of `n` or more gives inf or NaN, as NumPy's warning case).
    let norm = l.literal(
        cast_scalar(Scalar::Float(n as f64 - ddof as f64), comp),
        Aval::scalar(comp, false),
    );
    let v = binary(l, &prims::DIV, sum, norm)?;
    let v = convert(l, v, oa.dtype, oa.weak)?;
    if sqrt {
        l.unary(&prims::SQRT, v)
    } else {
        Ok(v)
    }
}

/// `jnp.nansum`, `nanmax`, `nanmin` (`kind`) over `axes`: JAX's
/// `_nan_reduction`, NaNs replaced by the reduction's identity, NaN where
/// all were NaN (for `max` and `min`).
pub fn nan_reduce<L: Lax>(
    l: &mut L,
    kind: Reduction,
    x: L::V,
    axes: Option<Vec<usize>>,
    keepdims: bool,
) -> Res<L, L::V> {
    if !l.aval(&x).dtype.is_inexact() {
        return reduce(l, kind, x, axes, keepdims);
    }
    let nan = binary(l, &prims::NE, x.clone(), x.clone())?;
    let init = match kind {
        Reduction::Sum => 0.0,
        Reduction::Max => f64::NEG_INFINITY,
        _ => f64::INFINITY,
    };
    let init = typed(l, &x, init);
    let safe = where_(l, nan.clone(), init, x.clone())?;
    let out = reduce(l, kind, safe, axes.clone(), keepdims)?;
    if kind == Reduction::Sum {
        return Ok(out);
    }
    let all_nan = reduce(l, Reduction::All, nan, axes, keepdims)?;
    let nan_lit = typed(l, &x, f64::NAN);
    where_(l, all_nan, nan_lit, out)
}

/// `jnp.broadcast_arrays`: every operand broadcast to the shape of all
/// (NumPy's rules and message); an operand of that shape stays as it is.
pub fn broadcast_arrays<L: Lax>(l: &mut L, xs: Vec<L::V>) -> Res<L, Vec<L::V>> {
    let Some(first) = xs.first() else {
        return Ok(xs);
    };
    let mut full = l.aval(first);
    for x in &xs[1..] {
        let av = l.aval(x);
        let shape = crate::ir::shapes::broadcast(&full, &av, l.constraints())
            .map_err(|msg| l.expression_error(msg))?;
        full = Aval { shape, ..av };
    }
    xs.into_iter()
        .map(|x| broadcast_to(l, x, full.shape.clone()))
        .collect()
}

/// `jnp.select(condlist, choicelist, default)`: at each element, the
/// choice of the first true condition, else `default`; everything
/// broadcast together, the choices promoted with `default`. JAX's text: the
/// conditions stacked behind an all-false one, `argmax` along the stack (the
/// first true one, or 0, the default's place), and `select_n` of the default
/// and the choices by that index.
pub fn select<L: Lax>(
    l: &mut L,
    conds: Vec<L::V>,
    choices: Vec<L::V>,
    default: L::V,
) -> Res<L, L::V> {
    if conds.len() != choices.len() {
        return Err(l.expression_error(format!(
            "condlist must have length equal to choicelist ({} vs {})",
            conds.len(),
            choices.len()
        )));
    }
    if conds.is_empty() {
        return Err(l.expression_error("condlist must be non-empty".into()));
    }
    let choices = promote(l, std::iter::once(default).chain(choices).collect())?;
    let none = l.literal(Scalar::Bool(false), Aval::scalar(DType::Bool, false));
    let conds = broadcast_arrays(l, std::iter::once(none).chain(conds).collect())?;
    let stacked = concatenate(l, conds, 0, true)?;
    let stacked = convert(l, stacked, DType::Bool, false)?;
    let index = arg_reduce(l, stacked, Some(0), false, true, false)?;
    let mut all = broadcast_arrays(l, std::iter::once(index).chain(choices).collect())?;
    let index = all.remove(0);
    l.select_n(index, all)
}

/// `jnp.argmax`/`argmin` (`max` chooses) along `axis` (over the flattened
/// array when `None`), the index in JAX's default int, `keepdims` keeping
/// the reduced axes with size 1; with `nan`, `jnp.nanargmax`/`nanargmin`:
/// NaNs replaced by -inf (inf) first, and -1 where every element is NaN.
pub fn arg_reduce<L: Lax>(
    l: &mut L,
    x: L::V,
    axis: Option<usize>,
    keepdims: bool,
    max: bool,
    nan: bool,
) -> Res<L, L::V> {
    let name = if max { "argmax" } else { "argmin" };
    let a = l.aval(&x);
    let mut x = x;
    let mut all_nan = None;
    if nan && a.dtype.is_inexact() {
        let isnan = binary(l, &prims::NE, x.clone(), x.clone())?;
        let fill = typed(
            l,
            &x,
            if max {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
        );
        let safe = where_(l, isnan.clone(), fill, x)?;
        all_nan = Some(reduce(
            l,
            Reduction::All,
            isnan,
            axis.map(|k| vec![k]),
            false,
        )?);
        x = safe;
    }
    let (x, k) = match axis {
        Some(k) => (x, k),
        None if a.rank() > 1 => {
            let (size, symbols) = crate::ir::shapes::size_parts(&a.shape);
            if !symbols.is_empty() {
                return Err(l.expression_error(format!("{name} over all axes of an array with symbolic dimensions is not supported; give an axis")));
            }
            (crate::jnp::reshape(l, x, vec![Dim::Lit(size)])?, 0)
        }
        None => (x, 0),
    };
    if l.aval(&x).shape.get(k) == Some(&Dim::Lit(0)) {
        // JAX's ValueError: the shape is static, so it is found now.
        return Err(l.expression_error(format!("attempt to get {name} of an empty sequence")));
    }
    let prim: crate::ir::primitive::Prim = if max { &prims::ARGMAX } else { &prims::ARGMIN };
    let index = jax_dtypes::default_dtype(Kind::Int, l.x64());
    let mut r = l.arg_reduce(prim, x, k, index)?;
    if let Some(all) = all_nan {
        let m1 = int(l, -1);
        r = where_(l, all, m1, r)?;
    }
    if keepdims {
        let shape: Vec<Dim> = match axis {
            Some(k) => {
                let mut s = a.shape.clone();
                s[k] = Dim::Lit(1);
                s
            }
            None => vec![Dim::Lit(1); a.rank()],
        };
        r = crate::jnp::reshape(l, r, shape)?;
    }
    Ok(r)
}

/// `jnp.isclose(a, b, rtol, atol, equal_nan)` as JAX writes it: both
/// promoted to one inexact type, then `a == b`, or `b` finite and `|a - b|
/// <= atol + rtol * |b|` (the tolerances in the real type of the
/// operands, not weak); with `equal_nan`, two NaNs are close too.
pub fn isclose<L: Lax>(
    l: &mut L,
    a: L::V,
    b: L::V,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Res<L, L::V> {
    let ab = promote(l, vec![a, b])?;
    let mut ab = ab
        .into_iter()
        .map(|x| to_float(l, x))
        .collect::<Res<L, Vec<_>>>()?;
    let b = ab.pop().expect("two");
    let a = ab.pop().expect("two");
    let a_nan = binary(l, &prims::NE, a.clone(), a.clone())?;
    let b_nan = binary(l, &prims::NE, b.clone(), b.clone())?;
    let both_nan = binary(l, &prims::AND, a_nan, b_nan)?;
    let finite = isfinite(l, b.clone())?;
    let diff = binary(l, &prims::SUB, a.clone(), b.clone())?;
    let abs_diff = l.unary(&prims::ABS, diff)?;
    let abs_b = l.unary(&prims::ABS, b.clone())?;
    let rtol = typed(l, &abs_b, rtol);
    let atol = typed(l, &abs_b, atol);
    let scaled = binary(l, &prims::MUL, rtol, abs_b)?;
    let tolerance = binary(l, &prims::ADD, atol, scaled)?;
    let in_range = binary(l, &prims::LE, abs_diff, tolerance)?;
    let equal = binary(l, &prims::EQ, a, b)?;
    let near = binary(l, &prims::AND, finite, in_range)?;
    let out = binary(l, &prims::OR, equal, near)?;
    if equal_nan {
        binary(l, &prims::OR, out, both_nan)
    } else {
        Ok(out)
    }
}

/// `jnp.allclose(a, b, rtol, atol, equal_nan)`: [`isclose`] over all
/// elements (`jnp.all`), a bool scalar.
pub fn allclose<L: Lax>(
    l: &mut L,
    a: L::V,
    b: L::V,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Res<L, L::V> {
    let close = isclose(l, a, b, rtol, atol, equal_nan)?;
    reduce(l, Reduction::All, close, None, false)
}

/// The largest finite value of a float dtype (`jnp.finfo(dtype).max`).
fn finite_max(d: DType) -> f64 {
    match d {
        DType::F16 => 65504.0,
        DType::BF16 => 3.3895313892515355e38,
        DType::F32 => f64::from(f32::MAX),
        _ => f64::MAX,
    }
}

/// `jnp.nan_to_num(x)` with JAX's defaults: NaN becomes 0, `inf` the
/// largest finite value of the dtype, `-inf` the most negative; integers
/// and bool are returned as they are.
pub fn nan_to_num<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let d = l.aval(&x).dtype;
    if d.kind() == Kind::Complex {
        return Err(l.expression_error(
            "nan_to_num of a complex array is not available yet: apply it to `jnp::real(x)` and `jnp::imag(x)`".to_string(),
        ));
    }
    if !d.is_float() {
        return Ok(x);
    }
    let is_nan = binary(l, &prims::NE, x.clone(), x.clone())?;
    let zero = typed(l, &x, 0.0);
    let out = where_(l, is_nan, zero, x)?;
    let inf = typed(l, &out, f64::INFINITY);
    let is_posinf = binary(l, &prims::EQ, out.clone(), inf)?;
    let max = typed(l, &out, finite_max(d));
    let out = where_(l, is_posinf, max, out)?;
    let neg_inf = typed(l, &out, f64::NEG_INFINITY);
    let is_neginf = binary(l, &prims::EQ, out.clone(), neg_inf)?;
    let min = typed(l, &out, -finite_max(d));
    where_(l, is_neginf, min, out)
}

/// `jnp.kron(a, b)`: the Kronecker product, as JAX writes it: both
/// promoted and lifted to one rank, `a`'s axes interleaved with `b`'s
/// (`a[i, 1, j, 1] * b[1, k, 1, l]`), then reshaped to the products of
/// the sizes.
pub fn kron<L: Lax>(l: &mut L, a: L::V, b: L::V) -> Res<L, L::V> {
    let mut ab = promote(l, vec![a, b])?;
    let b = ab.pop().expect("two");
    let a = ab.pop().expect("two");
    let (ra, rb) = (l.aval(&a).rank(), l.aval(&b).rank());
    let rank = ra.max(rb);
    let lift = |l: &mut L, x: L::V, r: usize| -> Res<L, L::V> {
        if r == rank {
            return Ok(x);
        }
        let mut shape = vec![Dim::Lit(1); rank - r];
        shape.extend(l.aval(&x).shape);
        l.broadcast_in_dim(x, shape, (rank - r..rank).collect())
    };
    let a = lift(l, a, ra)?;
    let b = lift(l, b, rb)?;
    let (sa, sb) = (l.aval(&a).shape, l.aval(&b).shape);
    let mut out = Vec::with_capacity(rank);
    for (da, db) in sa.iter().zip(&sb) {
        match (da, db) {
            (Dim::Lit(m), Dim::Lit(n)) => out.push(Dim::Lit(m * n)),
            _ => {
                return Err(l.expression_error(
                    "kron needs static sizes: the result's sizes are the products of the operands'"
                        .to_string(),
                ))
            }
        }
    }
    // a: (i, 1, j, 1, ..), b: (1, k, 1, l, ..).
    let interleave = |l: &mut L, x: L::V, shape: &[Dim], first: bool| -> Res<L, L::V> {
        let mut s = Vec::with_capacity(2 * rank);
        for d in shape {
            if first {
                s.extend([d.clone(), Dim::Lit(1)]);
            } else {
                s.extend([Dim::Lit(1), d.clone()]);
            }
        }
        let dims = (0..rank).map(|k| 2 * k + usize::from(!first)).collect();
        l.broadcast_in_dim(x, s, dims)
    };
    let a = interleave(l, a, &sa, true)?;
    let b = interleave(l, b, &sb, false)?;
    let p = l.binary(&prims::MUL, a, b)?;
    crate::jnp::reshape(l, p, out)
}

/// `jnp.tensordot(a, b, axes)` for an integer `axes`: `a`'s last `axes`
/// axes contracted with `b`'s first `axes`, one `dot_general` in the
/// promoted dtype. JAX's error when `axes` exceeds a rank.
pub fn tensordot<L: Lax>(l: &mut L, a: L::V, b: L::V, axes: usize) -> Res<L, L::V> {
    let (ra, rb) = (l.aval(&a), l.aval(&b));
    if axes > ra.rank().min(rb.rank()) {
        // Python's tuple: `(3,)` for one axis.
        let shape = |a: &Aval| {
            let d: Vec<String> = a.shape.iter().map(|d| d.to_string()).collect();
            match d.as_slice() {
                [one] => format!("({one},)"),
                _ => format!("({})", d.join(", ")),
            }
        };
        return Err(l.expression_error(format!(
            "Number of tensordot axes (axes {axes}) exceeds input ranks ({} and {})",
            shape(&ra),
            shape(&rb)
        )));
    }
    let mut ab = promote(l, vec![a, b])?;
    let b = ab.pop().expect("two");
    let a = ab.pop().expect("two");
    let dtype = l.aval(&a).dtype;
    let contract = ((ra.rank() - axes..ra.rank()).collect(), (0..axes).collect());
    l.dot_general(a, b, contract, (vec![], vec![]), dtype)
}

/// `jnp.cross(a, b)` along the last axes (JAX's default `axis=-1`): vectors
/// of 2 or 3 elements, batch axes broadcast. Two 2-vectors give the scalar
/// `a0 b1 - a1 b0`; otherwise a missing third element is 0 and the three
/// components are stacked on a new last axis, as JAX writes it.
pub fn cross<L: Lax>(l: &mut L, a: L::V, b: L::V) -> Res<L, L::V> {
    let last = |l: &mut L, x: &L::V| -> Res<L, (Vec<usize>, usize)> {
        let shape = l.aval(x).shape;
        let sizes: Option<Vec<usize>> = shape
            .iter()
            .map(|d| match d {
                Dim::Lit(n) => Some(*n),
                Dim::Sym(_) => None,
            })
            .collect();
        match sizes {
            Some(s) if matches!(s.last(), Some(2 | 3)) => {
                let n = *s.last().expect("checked");
                Ok((s, n))
            }
            _ => Err(
                l.expression_error("Dimension must be either 2 or 3 for cross product".to_string())
            ),
        }
    };
    let (sa, na) = last(l, &a)?;
    let (sb, nb) = last(l, &b)?;
    // `x[..., k]`: a slice of the last axis, squeezed.
    let part = |l: &mut L, x: &L::V, s: &[usize], k: usize| -> Res<L, L::V> {
        let r = s.len();
        let mut start = vec![0; r];
        let mut limit = s.to_vec();
        start[r - 1] = k;
        limit[r - 1] = k + 1;
        let one = l.slice(x.clone(), start, limit, None)?;
        l.squeeze(one, vec![r - 1])
    };
    let (a0, a1) = (part(l, &a, &sa, 0)?, part(l, &a, &sa, 1)?);
    let (b0, b1) = (part(l, &b, &sb, 0)?, part(l, &b, &sb, 1)?);
    let mul = |l: &mut L, x: &L::V, y: &L::V| binary(l, &prims::MUL, x.clone(), y.clone());
    if na == 2 && nb == 2 {
        let p = mul(l, &a0, &b1)?;
        let q = mul(l, &a1, &b0)?;
        return binary(l, &prims::SUB, p, q);
    }
    let third = |l: &mut L, x: &L::V, s: &[usize], n: usize, first: &L::V| -> Res<L, L::V> {
        if n == 3 {
            part(l, x, s, 2)
        } else {
            let f = l.aval(first);
            let zero = l.literal(
                cast_scalar(Scalar::Int(0), f.dtype),
                Aval::scalar(f.dtype, false),
            );
            if f.rank() == 0 {
                Ok(zero)
            } else {
                l.broadcast_in_dim(zero, f.shape, vec![])
            }
        }
    };
    let a2 = third(l, &a, &sa, na, &a0)?;
    let b2 = third(l, &b, &sb, nb, &b0)?;
    let mut components = Vec::with_capacity(3);
    for (x, y, z, w) in [
        (&a1, &b2, &a2, &b1),
        (&a2, &b0, &a0, &b2),
        (&a0, &b1, &a1, &b0),
    ] {
        let p = mul(l, x, y)?;
        let q = mul(l, z, w)?;
        components.push(binary(l, &prims::SUB, p, q)?);
    }
    // `array([c0, c1, c2])`: each as `[1, ...]`, joined on axis 0, then
    // that axis moved last.
    let components = promote(l, components)?;
    let mut rows = Vec::with_capacity(3);
    for c in components {
        let s = l.aval(&c).shape;
        let mut to = vec![Dim::Lit(1)];
        to.extend(s.iter().cloned());
        let kept = (1..=s.len()).collect();
        rows.push(l.broadcast_in_dim(c, to, kept)?);
    }
    let stacked = l.concatenate(rows, 0)?;
    let r = l.aval(&stacked).rank();
    if r == 1 {
        return Ok(stacked);
    }
    let mut perm: Vec<usize> = (1..r).collect();
    perm.push(0);
    l.transpose(stacked, perm)
}
