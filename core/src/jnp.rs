//! JAX's NumPy layer over primitives, written once over [`Lax`]: implicit
//! promotion, rank broadcasting, and compositions (`mean`, `softmax`,
//! `logsumexp`, `matmul`, ...) as the primitives JAX itself emits, so
//! traced jaxprs match `jax.make_jaxpr`. As JAX's `jnp` is written over
//! `lax`, these functions bind primitives only through [`Lax`]'s typed
//! methods.

use jax_dtypes::{result_type_explicit, sum_dtype, to_inexact, DType, Kind};

use crate::ir::primitive::Prim;
use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::lax::Lax;
use crate::prims;

/// A result of a composite over `L`.
pub type Res<L, T> = Result<T, <L as Lax>::E>;

/// What a check rejected: the argument or option at fault and JAX's
/// message (with what to write instead).
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    pub what: Fault,
    pub msg: String,
}

/// Where a rejected call's fault lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The call as a whole (its arguments together).
    Call,
    /// The array argument at this position.
    Arg(usize),
    /// The option of this name (`ord`, `axis`).
    Option(&'static str),
}

pub fn rejected<T>(what: Fault, msg: String) -> Result<T, Rejected> {
    Err(Rejected { what, msg })
}

/// A rejection as the composite's error.
pub fn raise<L: Lax, T>(l: &L, r: Result<T, Rejected>) -> Res<L, T> {
    r.map_err(|r| l.expression_error(r.msg))
}

/// A Rust literal or static number: weakly typed, like a Python scalar.
pub fn weak_literal<L: Lax>(l: &mut L, v: Scalar) -> L::V {
    let (value, aval) = weak_scalar(v, l.x64());
    l.literal(value, aval)
}

/// [`weak_literal`]'s value and type.
pub fn weak_scalar(v: Scalar, x64: bool) -> (Scalar, Aval) {
    let (dtype, weak) = match v {
        Scalar::Bool(_) => (DType::Bool, false),
        Scalar::Int(_) => (jax_dtypes::default_dtype(Kind::Int, x64), true),
        Scalar::Float(_) => (jax_dtypes::default_dtype(Kind::Float, x64), true),
        Scalar::Complex(..) => (jax_dtypes::default_dtype(Kind::Complex, x64), true),
    };
    (cast_scalar(v, dtype), Aval::scalar(dtype, weak))
}

/// `x` as `dtype` (and weak flag): a literal is retyped, a variable converted.
pub fn convert<L: Lax>(l: &mut L, x: L::V, dtype: DType, weak: bool) -> Res<L, L::V> {
    let aval = l.aval(&x);
    if aval.dtype == dtype && aval.weak == weak {
        return Ok(x);
    }
    match l.as_literal(&x) {
        Some(lit) => Ok(l.literal(cast_scalar(lit.value, dtype), Aval::scalar(dtype, weak))),
        None => l.convert_element_type(x, dtype, weak),
    }
}

/// JAX's `promote_dtypes`: every operand converted to the result type.
pub fn promote<L: Lax>(l: &mut L, xs: Vec<L::V>) -> Res<L, Vec<L::V>> {
    let avals: Vec<(DType, bool)> = xs
        .iter()
        .map(|x| {
            let a = l.aval(x);
            (a.dtype, a.weak)
        })
        .collect();
    let (dtype, weak) = result_type_explicit(&avals, l.x64());
    xs.into_iter().map(|x| convert(l, x, dtype, weak)).collect()
}

/// Lifts lower-rank array operands to the highest rank with leading 1s, as
/// NumPy broadcasting does; scalars stay scalars.
pub fn broadcast_ranks<L: Lax>(l: &mut L, xs: Vec<L::V>) -> Res<L, Vec<L::V>> {
    let rank = xs.iter().map(|x| l.aval(x).rank()).max().unwrap_or(0);
    xs.into_iter()
        .map(|x| {
            let a = l.aval(&x);
            if a.rank() == 0 || a.rank() == rank {
                return Ok(x);
            }
            let pad = rank - a.rank();
            let mut shape = vec![Dim::Lit(1); pad];
            shape.extend(a.shape.iter().cloned());
            l.broadcast_in_dim(x, shape, (pad..rank).collect())
        })
        .collect()
}

/// A binary `jnp` operation: promote, broadcast ranks, bind.
pub fn binary<L: Lax>(l: &mut L, prim: Prim, x: L::V, y: L::V) -> Res<L, L::V> {
    check_broadcast(l, &x, &y)?;
    let xs = promote(l, vec![x, y])?;
    let mut xs = broadcast_ranks(l, xs)?;
    let y = xs.pop().unwrap();
    let x = xs.pop().unwrap();
    l.binary(prim, x, y)
}

/// NumPy's broadcasting error, with both types, before anything is bound.
fn check_broadcast<L: Lax>(l: &mut L, x: &L::V, y: &L::V) -> Res<L, ()> {
    let (ax, ay) = (l.aval(x), l.aval(y));
    crate::ir::shapes::broadcast(&ax, &ay, l.constraints())
        .map(|_| ())
        .map_err(|msg| l.expression_error(msg))
}

/// A unary operation defined on floats: integers and bool convert first
/// (`jnp.sin(int32)` is `float32`).
pub fn unary_inexact<L: Lax>(l: &mut L, prim: Prim, x: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    l.unary(prim, x)
}

/// `x` converted to its inexact type (unchanged if already float).
pub fn to_float<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let a = l.aval(&x);
    let target = if a.weak && !a.dtype.is_inexact() {
        jax_dtypes::default_dtype(Kind::Float, l.x64())
    } else {
        to_inexact(a.dtype)
    };
    convert(l, x, target, a.weak)
}

/// Normalizes `axis` (negative counts from the end) or reports it.
pub fn axis<L: Lax>(l: &L, x: &L::V, axis: i128) -> Res<L, usize> {
    normalize_axis(axis, l.aval(x).rank()).map_err(|msg| l.error(msg))
}

/// `axis` of an array of `rank` axes, counted from the end when negative;
/// NumPy's message when it is out of bounds.
pub use jax_dtypes::checks::normalize_axis;

/// Re-inserts reduced axes as size 1 (`keepdims=True`).
fn keep_dims<L: Lax>(l: &mut L, r: L::V, in_shape: &[Dim], axes: &[usize]) -> Res<L, L::V> {
    let shape: Vec<Dim> = in_shape
        .iter()
        .enumerate()
        .map(|(i, d)| {
            if axes.contains(&i) {
                Dim::Lit(1)
            } else {
                d.clone()
            }
        })
        .collect();
    let dims = (0..in_shape.len()).filter(|i| !axes.contains(i)).collect();
    l.broadcast_in_dim(r, shape, dims)
}

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    Prod,
    Max,
    Min,
    Any,
    All,
}

/// `jnp.sum`/`prod`/`max`/`min`/`any`/`all` over `axes` (all when `None`).
pub fn reduce<L: Lax>(
    l: &mut L,
    kind: Reduction,
    x: L::V,
    axes: Option<Vec<usize>>,
    keepdims: bool,
) -> Res<L, L::V> {
    let a = l.aval(&x);
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let (prim, x) = match kind {
        Reduction::Sum | Reduction::Prod => {
            let d = sum_dtype(a.dtype, l.x64());
            let x = convert(l, x, d, a.weak)?;
            let p: Prim = if kind == Reduction::Sum {
                &prims::REDUCE_SUM
            } else {
                &prims::REDUCE_PROD
            };
            (p, x)
        }
        Reduction::Max | Reduction::Min
            if axes.iter().any(|&k| a.shape.get(k) == Some(&Dim::Lit(0))) =>
        {
            // JAX's ValueError: max and min have no identity, and the shape
            // is static, so the error is found when the function compiles.
            let op = if kind == Reduction::Max { "max" } else { "min" };
            return Err(l.error(jax_dtypes::checks::no_identity(op)));
        }
        Reduction::Max => (&prims::REDUCE_MAX as Prim, x),
        Reduction::Min => (&prims::REDUCE_MIN as Prim, x),
        Reduction::Any | Reduction::All => {
            let x = convert(l, x, DType::Bool, false)?;
            let p: Prim = if kind == Reduction::Any {
                &prims::REDUCE_OR
            } else {
                &prims::REDUCE_AND
            };
            (p, x)
        }
    };
    let r = l.reduce(prim, x, axes.clone())?;
    if keepdims {
        keep_dims(l, r, &a.shape, &axes)
    } else {
        Ok(r)
    }
}

/// `jnp.mean`: the sum divided by the element count, in the inexact type.
pub fn mean<L: Lax>(l: &mut L, x: L::V, axes: Option<Vec<usize>>, keepdims: bool) -> Res<L, L::V> {
    let a = l.aval(&x);
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let mut count = 1usize;
    // Sizes only rustc knows (`Array<f32, B, 4>`): the count is their
    // product, a `static_value` as `B as f32` is.
    let mut symbols = Vec::new();
    for &ax in &axes {
        match a.shape[ax] {
            Dim::Lit(n) => count *= n,
            Dim::Sym(ref s) => symbols.push(format!("({s})")),
        }
    }
    let x = to_float(l, x)?;
    let s = reduce(l, Reduction::Sum, x, Some(axes), keepdims)?;
    let dtype = l.aval(&s).dtype;
    let n = if symbols.is_empty() {
        l.literal(Scalar::Float(count as f64), Aval::scalar(dtype, true))
    } else {
        if !matches!(dtype, DType::F32 | DType::F64) {
            return Err(l.error(format!(
                "mean of {} over the symbolic size {} is not supported: convert to f32 first (`.astype::<f32>()`)",
                dtype.name(),
                symbols.join(" * ")
            )));
        }
        let expr = format!("(({count} * {}) as f64)", symbols.join(" * "));
        l.static_value(expr, dtype)?
    };
    l.binary(&prims::DIV, s, n)
}

/// `jnp.matmul`/`dot` for 1-D and 2-D operands (and batched 3-D matmul).
pub fn matmul<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    let mut xs = promote(l, vec![x, y])?;
    let y = xs.pop().unwrap();
    let x = xs.pop().unwrap();
    let (ax, ay) = (l.aval(&x), l.aval(&y));
    let preferred = ax.dtype;
    let (contract, batch) = match (ax.rank(), ay.rank()) {
        (1, 1) => ((vec![0], vec![0]), (vec![], vec![])),
        (2, 1) => ((vec![1], vec![0]), (vec![], vec![])),
        (1, 2) => ((vec![0], vec![0]), (vec![], vec![])),
        (2, 2) => ((vec![1], vec![0]), (vec![], vec![])),
        (3, 3) => ((vec![2], vec![1]), (vec![0], vec![0])),
        _ => {
            return Err(l.error(format!(
                "matmul of {ax} and {ay} is not supported: use 1-D, 2-D or batched 3-D operands"
            )))
        }
    };
    l.dot_general(x, y, contract, batch, preferred)
}

/// `jnp.where(c, x, y)`: `select_n(c, y, x)` after promotion and broadcasting.
pub fn where_<L: Lax>(l: &mut L, c: L::V, x: L::V, y: L::V) -> Res<L, L::V> {
    let c = convert(l, c, DType::Bool, false)?;
    let mut xy = promote(l, vec![x, y])?;
    let y = xy.pop().unwrap();
    let x = xy.pop().unwrap();
    // The three broadcast against each other (NumPy's rules, NumPy's
    // message), and every operand of another shape (a scalar included, as
    // jnp.where materializes it) broadcast to the result's.
    let mut full = l.aval(&c);
    for a in [&x, &y] {
        let av = l.aval(a);
        let shape = crate::ir::shapes::broadcast(&full, &av, l.constraints())
            .map_err(|msg| l.expression_error(msg))?;
        full = Aval { shape, ..av };
    }
    let all = broadcast_ranks(l, vec![c, y, x])?;
    let mut all = all
        .into_iter()
        .map(|a| {
            if l.aval(&a).shape == full.shape {
                Ok(a)
            } else {
                broadcast_to(l, a, full.shape.clone())
            }
        })
        .collect::<Res<L, Vec<_>>>()?;
    let pred = all.remove(0);
    l.select_n(pred, all)
}

/// `x ** y`: `integer_pow` for a static integer exponent, else `pow`.
pub fn power<L: Lax>(l: &mut L, x: L::V, y: L::V) -> Res<L, L::V> {
    if let Some(lit) = l.as_literal(&y) {
        if let Scalar::Int(n) = lit.value {
            return l.integer_pow(x, n as i64);
        }
    }
    binary(l, &prims::POW, x, y)
}

/// `jnp.clip(x, lo, hi)`: `min(hi, max(lo, x))`, as JAX writes it.
pub fn clip<L: Lax>(l: &mut L, x: L::V, lo: L::V, hi: L::V) -> Res<L, L::V> {
    let m = binary(l, &prims::MAX, lo, x)?;
    binary(l, &prims::MIN, hi, m)
}

/// A new shape with the same elements in row-major order.
pub fn reshape<L: Lax>(l: &mut L, x: L::V, new_sizes: Vec<Dim>) -> Res<L, L::V> {
    if l.aval(&x).shape == new_sizes {
        return Ok(x);
    }
    l.reshape(x, new_sizes)
}

/// `jnp.broadcast_to`: NumPy broadcasting to `shape`.
pub fn broadcast_to<L: Lax>(l: &mut L, x: L::V, shape: Vec<Dim>) -> Res<L, L::V> {
    let a = l.aval(&x);
    if a.shape == shape {
        return Ok(x);
    }
    if a.rank() > shape.len() {
        return Err(l.error(format!(
            "cannot broadcast {a} to a shape of lower rank {}",
            crate::ir::shapes::fmt(&shape)
        )));
    }
    let dims = (shape.len() - a.rank()..shape.len()).collect();
    l.broadcast_in_dim(x, shape, dims)
}

/// `jnp.expand_dims(x, axis)`: a size-1 axis inserted at `axis`.
pub fn expand_dims<L: Lax>(l: &mut L, x: L::V, axis: i128) -> Res<L, L::V> {
    let a = l.aval(&x);
    let axis = normalize_axis(axis, a.rank() + 1).map_err(|msg| l.error(msg))?;
    let mut shape = a.shape.clone();
    shape.insert(axis, Dim::Lit(1));
    let dims = (0..shape.len()).filter(|&k| k != axis).collect();
    l.broadcast_in_dim(x, shape, dims)
}

/// `jnp.max(x, axis, keepdims=True, initial=-inf)` with its gradient stopped,
/// as `jax.nn.softmax` and `logsumexp` subtract it.
fn max_with_initial<L: Lax>(l: &mut L, x: L::V, axes: Vec<usize>, keepdims: bool) -> Res<L, L::V> {
    let a = l.aval(&x);
    let m = l.reduce(&prims::REDUCE_MAX, x, axes.clone())?;
    // `initial=-inf` in `x`'s dtype: an integer's lowest value.
    let lowest = match a.dtype.int_range() {
        Some((lo, _)) => Scalar::Int(lo),
        None => Scalar::Float(f64::NEG_INFINITY),
    };
    let neg_inf = l.literal(lowest, Aval::scalar(a.dtype, true));
    let m = l.binary(&prims::MAX, neg_inf, m)?;
    if keepdims {
        keep_dims(l, m, &a.shape, &axes)
    } else {
        Ok(m)
    }
}

/// `jax.nn.softmax(x, axis)` and `jax.nn.log_softmax(x, axis)`, with the
/// primitives JAX emits.
pub fn softmax<L: Lax>(l: &mut L, x: L::V, axis: usize, log: bool) -> Res<L, L::V> {
    // As JAX: the maximum is subtracted in `x`'s own dtype (integers wrap),
    // and only `exp` makes the values floats.
    let m = max_with_initial(l, x.clone(), vec![axis], true)?;
    let m = l.unary(&prims::STOP_GRADIENT, m)?;
    let shifted = binary(l, &prims::SUB, x, m)?;
    let e = unary_inexact(l, &prims::EXP, shifted.clone())?;
    let s = reduce(l, Reduction::Sum, e.clone(), Some(vec![axis]), true)?;
    if log {
        let lg = l.unary(&prims::LOG, s)?;
        binary(l, &prims::SUB, shifted, lg)
    } else {
        binary(l, &prims::DIV, e, s)
    }
}

/// `jax.nn.standardize(x, axes, epsilon=eps)` with JAX's default ("fast")
/// variance, `mean(x²) - mean(x)²` clipped at 0: `(x - mean) * rsqrt(var +
/// eps)`, with the primitives JAX emits.
pub fn standardize<L: Lax>(l: &mut L, x: L::V, axes: Vec<usize>, eps: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let m = mean(l, x.clone(), Some(axes.clone()), true)?;
    let sq = l.unary(&prims::SQUARE, x.clone())?;
    let mean_sq = mean(l, sq, Some(axes), true)?;
    let m2 = l.unary(&prims::SQUARE, m.clone())?;
    let var = binary(l, &prims::SUB, mean_sq, m2)?;
    let zero = weak_literal(l, Scalar::Int(0));
    let var = binary(l, &prims::MAX, zero, var)?;
    let centered = binary(l, &prims::SUB, x, m)?;
    let ve = binary(l, &prims::ADD, var, eps)?;
    let r = l.unary(&prims::RSQRT, ve)?;
    binary(l, &prims::MUL, centered, r)
}

/// `jax.nn.logsumexp(x, axis, keepdims)`, with the primitives JAX emits.
pub fn logsumexp<L: Lax>(
    l: &mut L,
    x: L::V,
    axes: Option<Vec<usize>>,
    keepdims: bool,
) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let a = l.aval(&x);
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let m = max_with_initial(l, x.clone(), axes.clone(), keepdims)?;
    let ma = l.aval(&m);
    let finite = l.unary(&prims::IS_FINITE, m.clone())?;
    let zero = l.literal(Scalar::Float(0.0), Aval::scalar(a.dtype, true));
    let zero = if ma.rank() > 0 {
        l.broadcast_in_dim(zero, ma.shape.clone(), vec![])?
    } else {
        zero
    };
    let m = l.select_n(finite, vec![zero, m])?;
    let m = l.unary(&prims::STOP_GRADIENT, m)?;
    let m_dims = if keepdims {
        m.clone()
    } else {
        keep_dims(l, m.clone(), &a.shape, &axes)?
    };
    let shifted = binary(l, &prims::SUB, x, m_dims)?;
    let e = l.unary(&prims::EXP, shifted)?;
    let s = reduce(l, Reduction::Sum, e, Some(axes), keepdims)?;
    // JAX computes the sign too (for return_sign); it is dead here.
    l.unary(&prims::SIGN, s.clone())?;
    let s = l.unary(&prims::ABS, s)?;
    let lg = l.unary(&prims::LOG, s)?;
    l.binary(&prims::ADD, lg, m)
}

/// `jnp.polyval(p, x)`: the polynomial whose coefficients are `p`'s rows
/// (highest power first, along its first axis) at `x`, by Horner's rule as
/// JAX's `scan` runs it: `y = 0` of the broadcast shape, then
/// `y = y * x + p[i]` for each coefficient. The scan is unrolled (JAX
/// unrolls 16 steps at a time; the values are the same), so a traced
/// jaxpr has one multiply and one add per coefficient.
pub fn polyval<L: Lax>(l: &mut L, p: L::V, x: L::V) -> Res<L, L::V> {
    let (pa, xa) = (l.aval(&p), l.aval(&x));
    if pa.rank() == 0 {
        return Err(l.error(format!(
            "polyval: the coefficients must have an axis to run along, got {pa}"
        )));
    }
    let mut sizes = Vec::with_capacity(pa.rank());
    for d in &pa.shape {
        match d {
            Dim::Lit(n) => sizes.push(*n),
            Dim::Sym(s) => {
                return Err(l.error(format!(
                    "polyval: the coefficients' shape must be static, got the size `{s}`"
                )))
            }
        }
    }
    let rest = Aval {
        shape: pa.shape[1..].to_vec(),
        ..pa.clone()
    };
    let shape = crate::ir::shapes::broadcast(&rest, &xa, l.constraints())
        .map_err(|msg| l.expression_error(msg))?;
    let mut px = promote(l, vec![p, x])?;
    let x = px.pop().expect("two operands");
    let p = px.pop().expect("two operands");
    let dtype = l.aval(&x).dtype;
    // `lax.full_like(x, 0, shape=shape, dtype=x.dtype)`: strongly typed.
    let zero = l.literal(
        cast_scalar(Scalar::Int(0), dtype),
        Aval::scalar(dtype, false),
    );
    let mut y = if shape.is_empty() {
        zero
    } else {
        l.broadcast_in_dim(zero, shape, vec![])?
    };
    for i in 0..sizes[0] {
        let mut start = vec![0; sizes.len()];
        start[0] = i;
        let mut limit = sizes.clone();
        limit[0] = i + 1;
        let c = l.slice(p.clone(), start, limit, None)?;
        let c = l.squeeze(c, vec![0])?;
        let yx = binary(l, &prims::MUL, y, x.clone())?;
        y = binary(l, &prims::ADD, yx, c)?;
    }
    Ok(y)
}

/// `jnp.concatenate`, or `jnp.stack` of a list (`stack`): the parts
/// promoted to one dtype, then `lax.stack` (its one shape checked there).
pub fn concatenate<L: Lax>(l: &mut L, parts: Vec<L::V>, axis: i128, stack: bool) -> Res<L, L::V> {
    if parts.is_empty() && stack {
        return Err(l.error("Need at least one array to stack.".into()));
    }
    if parts.is_empty() {
        return Err(l.error(jax_dtypes::checks::NOTHING_TO_CONCATENATE.into()));
    }
    let parts = promote(l, parts)?;
    if stack {
        let rank = l.aval(&parts[0]).rank();
        let axis = normalize_axis(axis, rank + 1).map_err(|msg| l.error(msg))?;
        return l.stack(parts, axis);
    }
    let dim = self::axis(l, &parts[0], axis)?;
    l.concatenate(parts, dim)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::builder::Builder;
    use crate::ir::Atom;
    use crate::lax::Trace;
    use proc_macro2::Span;

    #[test]
    fn literals_wrap_like_jax() {
        assert_eq!(cast_scalar(Scalar::Int(256), DType::U8), Scalar::Int(0));
        assert_eq!(cast_scalar(Scalar::Int(128), DType::I8), Scalar::Int(-128));
        assert_eq!(cast_scalar(Scalar::Int(2), DType::F32), Scalar::Float(2.0));
        assert_eq!(cast_scalar(Scalar::Float(2.7), DType::I32), Scalar::Int(2));
    }

    /// As JAX: an integer softmax subtracts its maximum in the integer type
    /// (from `initial=-inf`, the type's lowest value) and only `exp` makes
    /// floats; `bool` has no subtraction, and JAX's TypeError says so.
    #[test]
    fn softmax_of_integers_subtracts_in_their_type() {
        let mut b = Builder::new(false);
        let x = b.input(Aval {
            dtype: DType::I8,
            shape: vec![Dim::Lit(4)],
            weak: false,
        });
        let mut t = Trace::new(&mut b, Span::call_site());
        let y = softmax(&mut t, x, 0, false).unwrap();
        assert_eq!(b.aval(&y).dtype, DType::F32);
        let eqns = &b.jaxpr.eqns;
        let sub = eqns.iter().find(|e| e.prim.name == "sub").unwrap();
        assert_eq!(b.jaxpr.aval(sub.outs[0]).dtype, DType::I8);
        let max = eqns.iter().find(|e| e.prim.name == "max").unwrap();
        assert!(
            matches!(&max.ins[0], Atom::Lit(l) if l.value == Scalar::Int(-128)),
            "{:?}",
            max.ins[0]
        );
        let mut b = Builder::new(false);
        let x = b.input(Aval {
            dtype: DType::Bool,
            shape: vec![Dim::Lit(4)],
            weak: false,
        });
        let err = softmax(&mut Trace::new(&mut b, Span::call_site()), x, 0, false).unwrap_err();
        assert!(
            err.to_string()
                .contains("sub does not accept dtype bool at position 0"),
            "{err}"
        );
    }

    #[test]
    fn softmax_binds_what_jax_emits() {
        let mut b = Builder::new(false);
        let x = b.input(Aval {
            dtype: DType::F32,
            shape: vec![Dim::Lit(2), Dim::Lit(3)],
            weak: false,
        });
        let mut t = Trace::new(&mut b, Span::call_site());
        let y = softmax(&mut t, x, 1, false).unwrap();
        b.jaxpr.outvars.push(y);
        let names: Vec<_> = b.jaxpr.eqns.iter().map(|e| e.prim.name).collect();
        assert_eq!(
            names,
            [
                "reduce_max",
                "max",
                "broadcast_in_dim",
                "stop_gradient",
                "sub",
                "exp",
                "reduce_sum",
                "broadcast_in_dim",
                "div"
            ]
        );
    }
}
