//! Compositions over `sort` and slices, written once over [`Lax`] as
//! `jax.numpy` writes them: `quantile` (with `median` and `percentile`),
//! `diff`, `searchsorted` and the cumulative reductions' dtype rule. A jitted body traces them; an eager call runs
//! the same text on the sort kernel jitted code calls.

use jax_dtypes::{DType, Kind};

use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::jnp::{self, Res};
use crate::lax::Lax;
use crate::prims;

/// `v` rounded to `dtype` (the arithmetic JAX does on scalars of the
/// array's type).
fn round_to(v: f64, dtype: DType) -> f64 {
    match cast_scalar(Scalar::Float(v), dtype) {
        Scalar::Float(f) => f,
        _ => v,
    }
}

/// A scalar of `dtype`, not weak.
fn typed<L: Lax>(l: &mut L, v: f64, dtype: DType) -> L::V {
    l.literal(
        cast_scalar(Scalar::Float(v), dtype),
        Aval::scalar(dtype, false),
    )
}

/// The sizes of `x`, each known when the function compiles.
fn sizes<L: Lax>(l: &L, x: &L::V, name: &str) -> Res<L, Vec<usize>> {
    l.aval(x)
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => Ok(*n),
            Dim::Sym(s) => Err(l.expression_error(format!(
                "`{name}` needs the sizes of its operand when the function compiles, not the symbolic {s}"
            ))),
        })
        .collect()
}

/// `x[start:limit]` along `axis` (`lax.slice`, no strides).
fn slice_axis<L: Lax>(
    l: &mut L,
    x: L::V,
    dims: &[usize],
    axis: usize,
    start: usize,
    limit: usize,
) -> Res<L, L::V> {
    let mut lo = vec![0; dims.len()];
    let mut hi = dims.to_vec();
    lo[axis] = start;
    hi[axis] = limit;
    l.slice(x, lo, hi, None)
}

/// Which quantile function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quantile {
    /// `jnp.quantile(x, q)`: linear interpolation.
    Quantile(f64),
    /// `jnp.percentile(x, p)`: `quantile` of `p / 100`.
    Percentile(f64),
    /// `jnp.median(x)`: the mean of the two middle ranks.
    Median,
}

/// `jnp.quantile`, `percentile` and `median` over `axis` (the flattened
/// array when `None`), `keepdims` keeping it with size 1. JAX sorts (every
/// lane with a NaN made all NaN first) and interpolates the two ranks
/// around `q * (n - 1)`; `q` is static here, so the two ranks are static
/// slices, and the weights are computed in the array's float type as JAX
/// computes them.
pub fn quantile<L: Lax>(
    l: &mut L,
    x: L::V,
    which: Quantile,
    axis: Option<usize>,
    keepdims: bool,
) -> Res<L, L::V> {
    let base = match which {
        Quantile::Quantile(_) => "quantile",
        Quantile::Percentile(_) => "percentile",
        Quantile::Median => "median",
    };
    let x = jnp::to_float(l, x)?;
    let dtype = l.aval(&x).dtype;
    let x = jnp::convert(l, x, dtype, false)?;
    let q = match which {
        Quantile::Quantile(q) => round_to(q, dtype),
        Quantile::Percentile(p) => round_to(round_to(p, dtype) / 100.0, dtype),
        Quantile::Median => 0.5,
    };
    if !(0.0..=1.0).contains(&q) {
        return Err(l.expression_error(format!(
            "{base}: q must be in [0, 1] (in [0, 100] for percentile), got {q}"
        )));
    }
    let (x, axis) = match axis {
        Some(k) => (x, k),
        None => {
            let n: usize = sizes(l, &x, base)?.iter().product();
            (jnp::reshape(l, x, vec![Dim::Lit(n)])?, 0)
        }
    };
    let dims = sizes(l, &x, base)?;
    let n = dims[axis];
    if n == 0 {
        return Err(l.expression_error(format!("{base} of an empty axis is not supported")));
    }
    // A lane with a NaN is all NaN (JAX's `where(any(isnan), nan, x)`).
    let nan_mask = l.binary(&prims::NE, x.clone(), x.clone())?;
    let any = l.reduce(&prims::REDUCE_OR, nan_mask, vec![axis])?;
    let kept: Vec<usize> = (0..dims.len()).filter(|&d| d != axis).collect();
    let shape: Vec<Dim> = dims.iter().map(|&d| Dim::Lit(d)).collect();
    let any = l.broadcast_in_dim(any, shape.clone(), kept)?;
    let nan = typed(l, f64::NAN, dtype);
    let nans = l.broadcast_in_dim(nan, shape.clone(), vec![])?;
    let x = l.select_n(any, vec![x, nans])?;
    let sorted = l.sort(vec![x], axis, true, 1)?.remove(0);
    // The ranks and weights, in the float type.
    let m = round_to(q * round_to((n - 1) as f64, dtype), dtype);
    let (lo, hi) = (m.floor(), m.ceil());
    let hi_w = round_to(m - lo, dtype);
    let lo_w = round_to(1.0 - hi_w, dtype);
    let clamp = |r: f64| r.clamp(0.0, (n - 1) as f64) as usize;
    let (lo, hi) = (clamp(lo), clamp(hi));
    let pick = |l: &mut L, r: usize| {
        let s = slice_axis(l, sorted.clone(), &dims, axis, r, r + 1)?;
        l.squeeze(s, vec![axis])
    };
    let (lo_v, hi_v) = (pick(l, lo)?, pick(l, hi)?);
    let out = if which == Quantile::Median {
        let s = l.binary(&prims::ADD, lo_v, hi_v)?;
        let half = typed(l, 0.5, dtype);
        l.binary(&prims::MUL, s, half)?
    } else {
        let lw = typed(l, lo_w, dtype);
        let a = l.binary(&prims::MUL, lo_v, lw)?;
        let hw = typed(l, hi_w, dtype);
        let b = l.binary(&prims::MUL, hi_v, hw)?;
        l.binary(&prims::ADD, a, b)?
    };
    if keepdims {
        let mut kshape = shape;
        kshape[axis] = Dim::Lit(1);
        return jnp::reshape(l, out, kshape);
    }
    Ok(out)
}

/// `jnp.diff(x, n, axis)`: `n` times `x[1:] - x[:-1]` along `axis` (`!=`
/// for bool).
pub fn diff<L: Lax>(l: &mut L, x: L::V, n: usize, axis: usize) -> Res<L, L::V> {
    let mut x = x;
    if l.aval(&x).rank() == 0 {
        return Err(l.expression_error(
            "`diff` needs an array of rank 1 or more, not a scalar".to_string(),
        ));
    }
    let op: crate::ir::primitive::Prim = if l.aval(&x).dtype == DType::Bool {
        &prims::NE
    } else {
        &prims::SUB
    };
    for _ in 0..n {
        let dims = sizes(l, &x, "diff")?;
        let len = dims[axis];
        if len == 0 {
            break;
        }
        let hi = slice_axis(l, x.clone(), &dims, axis, 1, len)?;
        let lo = slice_axis(l, x, &dims, axis, 0, len - 1)?;
        x = l.binary(op, hi, lo)?;
    }
    Ok(x)
}

/// `jnp.cumsum`, `cumprod`, `cummax`, `cummin` (`name`) along `axis`: bool
/// counts in the default int for the sum and the product (`jnp.cumsum`
/// converts it first), every other dtype is kept (`cumsum` of `i8` is
/// `i8`, unlike `sum`); an empty axis gives the (converted) input.
pub fn cumulative<L: Lax>(l: &mut L, name: &str, x: L::V, axis: usize) -> Res<L, L::V> {
    let aval = l.aval(&x);
    let x = if aval.dtype == DType::Bool && matches!(name, "cumsum" | "cumprod") {
        let int = jax_dtypes::default_dtype(Kind::Int, l.x64());
        jnp::convert(l, x, int, false)?
    } else {
        x
    };
    let prim = match name {
        "cumsum" => &prims::CUMSUM,
        "cumprod" => &prims::CUMPROD,
        "cummax" => &prims::CUMMAX,
        _ => &prims::CUMMIN,
    };
    if aval.shape.get(axis) == Some(&Dim::Lit(0)) {
        return Ok(x);
    }
    l.cumulative(prim, x, axis, false)
}

/// `jnp.searchsorted(a, v, side)` by JAX's `method='compare_all'`: for
/// each `v`, how many elements of `a` are before it (`right` false: `a <
/// v`; true: `a <= v`) in sort's total order (NaN last), summed as int32.
/// JAX's default method ('scan') is a binary search; both give the same
/// indices for a sorted `a`.
pub fn searchsorted<L: Lax>(l: &mut L, a: L::V, v: L::V, right: bool) -> Res<L, L::V> {
    let (aa, av) = (l.aval(&a), l.aval(&v));
    if aa.rank() != 1 {
        return Err(l.expression_error(format!(
            "a should be 1-dimensional, got an array of rank {}",
            aa.rank()
        )));
    }
    let mut av_ = jnp::promote(l, vec![a, v])?;
    let v = av_.pop().expect("two operands");
    let a = av_.pop().expect("two operands");
    let mut wide = vec![aa.shape[0].clone()];
    wide.extend(av.shape.iter().cloned());
    let a_wide = if l.aval(&a).shape == wide {
        a
    } else {
        l.broadcast_in_dim(a, wide.clone(), vec![0])?
    };
    let v_dims: Vec<usize> = (1..wide.len()).collect();
    let v_wide = if l.aval(&v).shape == wide && v_dims.iter().copied().eq(0..wide.len()) {
        v
    } else {
        l.broadcast_in_dim(v, wide.clone(), v_dims)?
    };
    // `x < y` in the total order: NaN is after every number.
    let before = |l: &mut L, x: &L::V, y: &L::V| -> Res<L, L::V> {
        let lt = l.binary(&prims::LT, x.clone(), y.clone())?;
        if !l.aval(x).dtype.is_float() {
            return Ok(lt);
        }
        let x_num = l.binary(&prims::EQ, x.clone(), x.clone())?;
        let y_nan = l.binary(&prims::NE, y.clone(), y.clone())?;
        let nan_after = l.binary(&prims::AND, x_num, y_nan)?;
        l.binary(&prims::OR, lt, nan_after)
    };
    let counted = if right {
        let after = before(l, &v_wide, &a_wide)?;
        l.unary(&prims::NOT, after)?
    } else {
        before(l, &a_wide, &v_wide)?
    };
    let ones = if l.aval(&counted).dtype == DType::I32 {
        counted
    } else {
        l.convert_element_type(counted, DType::I32, false)?
    };
    l.reduce(&prims::REDUCE_SUM, ones, vec![0])
}
