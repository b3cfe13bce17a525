//! `jax.nn`'s activations and `jax.scipy.special`'s elementwise functions,
//! written once over [`Lax`]: a jitted body traces them, an eager call runs
//! them (`runtime/eager/`), with the same equations and the same messages.
//!
//! JAX's `custom_jvp` functions (`relu`, `relu6`, `logaddexp`, `logit`,
//! `xlogy`, ...) are [`Lax::custom_jvp`] calls of their body and JAX's rule,
//! so derivatives at the special points are JAX's (`relu'(0) = 0`, finite
//! `logaddexp` gradients at infinities); [`by_name`] finds them by the name
//! their `custom_jvp_call` carries (an imported jaxpr names its rule but
//! cannot hold it).

use jax_dtypes::{DType, Kind};

use crate::ir::{cast_scalar, Aval, Dim, Scalar};
use crate::jnp::{self, binary, promote, to_float, weak_literal, where_, Res};
use crate::lax::Lax;
use crate::prims;

/// `jax.nn.selu`'s constants (Klambauer et al.).
const SELU_ALPHA: f64 = 1.673_263_242_354_377_2;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

/// A Python int literal (weakly typed).
fn int<L: Lax>(l: &mut L, v: i128) -> L::V {
    weak_literal(l, Scalar::Int(v))
}

/// A Python float literal (weakly typed).
fn float<L: Lax>(l: &mut L, v: f64) -> L::V {
    weak_literal(l, Scalar::Float(v))
}

/// A scalar of `like`'s dtype, not weak (`np.array(v, dtype)`).
fn typed<L: Lax>(l: &mut L, like: &L::V, v: f64) -> L::V {
    let d = l.aval(like).dtype;
    l.literal(cast_scalar(Scalar::Float(v), d), Aval::scalar(d, false))
}

/// Which of JAX's `custom_jvp` functions `name` is, on `args` (already of
/// their inexact type, as the public functions convert them): the
/// `custom_jvp_call` an imported jaxpr names.
pub fn by_name<L: Lax>(l: &mut L, name: &str, args: Vec<L::V>) -> Option<Res<L, L::V>> {
    let mut args = args.into_iter();
    let mut one = || args.next();
    Some(match name {
        "relu" => relu(l, one()?),
        "relu6" => relu6(l, one()?),
        "logaddexp" => custom_logaddexp(l, one()?, one()?, false),
        "logaddexp2" => custom_logaddexp(l, one()?, one()?, true),
        "logit" => custom_logit(l, one()?),
        "xlogy" => custom_xlogy(l, one()?, one()?, false),
        "xlog1py" => custom_xlogy(l, one()?, one()?, true),
        _ => return None,
    })
}

/// `relu(x) = max(x, 0)`, with JAX's rule: `relu'(0) = 0`.
pub fn relu<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    l.custom_jvp(
        "relu",
        vec![x],
        &|l, x| {
            let zero = int(l, 0);
            binary(l, &prims::MAX, x[0].clone(), zero)
        },
        &|l, x, g, _| {
            let zero = int(l, 0);
            let pos = binary(l, &prims::GT, x[0].clone(), zero.clone())?;
            where_(l, pos, g[0].clone(), zero)
        },
    )
}

/// `relu6(x) = min(max(x, 0), 6)`, with JAX's rule: derivative 0 at 0 and 6.
pub fn relu6<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    l.custom_jvp(
        "relu6",
        vec![x],
        &|l, x| {
            let zero = int(l, 0);
            let m = binary(l, &prims::MAX, x[0].clone(), zero)?;
            let six = float(l, 6.0);
            binary(l, &prims::MIN, m, six)
        },
        &|l, x, g, _| {
            let zero = int(l, 0);
            let six = int(l, 6);
            let pos = binary(l, &prims::GT, x[0].clone(), zero.clone())?;
            let below = binary(l, &prims::LT, x[0].clone(), six)?;
            let inside = binary(l, &prims::AND, pos, below)?;
            where_(l, inside, g[0].clone(), zero)
        },
    )
}

/// `promote_args_inexact`: each operand to its inexact type, then one type.
pub fn inexact_args<L: Lax>(l: &mut L, xs: Vec<L::V>) -> Res<L, Vec<L::V>> {
    let xs = xs
        .into_iter()
        .map(|x| to_float(l, x))
        .collect::<Result<Vec<_>, _>>()?;
    promote(l, xs)
}

/// `jnp.logaddexp(x, y)` (`log(e^x + e^y)` without overflow), or
/// `logaddexp2` in base 2.
pub fn logaddexp<L: Lax>(l: &mut L, x: L::V, y: L::V, base2: bool) -> Res<L, L::V> {
    let xy = inexact_args(l, vec![x, y])?;
    let [x, y]: [L::V; 2] = xy.try_into().ok().expect("two operands");
    custom_logaddexp(l, x, y, base2)
}

/// `lax_other.logaddexp`'s `custom_jvp`: `max + log1p(exp(-|x - y|))`, or
/// `x + y` where the difference is NaN; JAX's `_logaddexp_jvp`.
fn custom_logaddexp<L: Lax>(l: &mut L, x: L::V, y: L::V, base2: bool) -> Res<L, L::V> {
    let name = if base2 { "logaddexp2" } else { "logaddexp" };
    let exp = if base2 { &prims::EXP2 } else { &prims::EXP };
    l.custom_jvp(
        name,
        vec![x, y],
        &|l, xy| {
            let (x, y) = (xy[0].clone(), xy[1].clone());
            let amax = binary(l, &prims::MAX, x.clone(), y.clone())?;
            let delta = binary(l, &prims::SUB, x.clone(), y.clone())?;
            let nan = binary(l, &prims::NE, delta.clone(), delta.clone())?;
            let sum = binary(l, &prims::ADD, x, y)?;
            let a = l.unary(&prims::ABS, delta)?;
            let n = l.unary(&prims::NEG, a)?;
            let e = l.unary(exp, n)?;
            let mut lg = l.unary(&prims::LOG1P, e)?;
            if base2 {
                let inv = typed(l, &amax, 1.0 / std::f64::consts::LN_2);
                lg = binary(l, &prims::MUL, inv, lg)?;
            }
            let r = binary(l, &prims::ADD, amax, lg)?;
            where_(l, nan, sum, r)
        },
        // `t1 exp(x1 - out) + t2 exp(x2 - out)`, with `+inf` replaced by 0
        // so the tangent stays finite at infinities.
        &|l, x, t, out| {
            let replace_inf = |l: &mut L, v: L::V| -> Res<L, L::V> {
                let inf = float(l, f64::INFINITY);
                let is_inf = binary(l, &prims::EQ, v.clone(), inf)?;
                let zero = float(l, 0.0);
                where_(l, is_inf, zero, v)
            };
            let ro = replace_inf(l, out)?;
            let mut terms = Vec::new();
            for (xi, ti) in x.iter().zip(t) {
                let rx = replace_inf(l, xi.clone())?;
                let d = binary(l, &prims::SUB, rx, ro.clone())?;
                let e = l.unary(exp, d)?;
                terms.push(binary(l, &prims::MUL, ti.clone(), e)?);
            }
            binary(l, &prims::ADD, terms[0].clone(), terms[1].clone())
        },
    )
}

/// `softplus(x) = logaddexp(x, 0)`.
pub fn softplus<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let zero = int(l, 0);
    logaddexp(l, x, zero, false)
}

/// `log_sigmoid(x) = -softplus(-x)`.
pub fn log_sigmoid<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let n = l.unary(&prims::NEG, x)?;
    let sp = softplus(l, n)?;
    l.unary(&prims::NEG, sp)
}

/// `sigmoid(x) = 1 / (1 + e^-x)` (`lax.logistic`); also `special.expit`.
pub fn sigmoid<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    jnp::unary_inexact(l, &prims::LOGISTIC, x)
}

/// `silu(x) = x * sigmoid(x)` (also `swish`).
pub fn silu<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let sg = l.unary(&prims::LOGISTIC, x.clone())?;
    binary(l, &prims::MUL, x, sg)
}

/// `where(x > 0, x, alpha * expm1(where(x > 0, 0, x)))`, `x` inexact.
fn elu_of<L: Lax>(l: &mut L, x: L::V, alpha: L::V) -> Res<L, L::V> {
    let zero = int(l, 0);
    let pos = binary(l, &prims::GT, x.clone(), zero)?;
    let fzero = float(l, 0.0);
    let safe = where_(l, pos.clone(), fzero, x.clone())?;
    let e = l.unary(&prims::EXPM1, safe)?;
    let neg = binary(l, &prims::MUL, alpha, e)?;
    where_(l, pos, x, neg)
}

/// `elu(x, alpha)`: `x` above 0, `alpha (e^x - 1)` below.
pub fn elu<L: Lax>(l: &mut L, x: L::V, alpha: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    elu_of(l, x, alpha)
}

/// `selu(x) = scale * elu(x, alpha)` with the constants of Klambauer et al.
pub fn selu<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let alpha = float(l, SELU_ALPHA);
    let e = elu_of(l, x, alpha)?;
    let scale = float(l, SELU_SCALE);
    binary(l, &prims::MUL, scale, e)
}

/// `leaky_relu(x, negative_slope) = where(x >= 0, x, negative_slope * x)`.
pub fn leaky_relu<L: Lax>(l: &mut L, x: L::V, negative_slope: L::V) -> Res<L, L::V> {
    let zero = int(l, 0);
    let nonneg = binary(l, &prims::GE, x.clone(), zero)?;
    let scaled = binary(l, &prims::MUL, negative_slope, x.clone())?;
    where_(l, nonneg, x, scaled)
}

/// `celu(x, alpha) = max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.
pub fn celu<L: Lax>(l: &mut L, x: L::V, alpha: L::V) -> Res<L, L::V> {
    let zero = float(l, 0.0);
    let hi = binary(l, &prims::MAX, x.clone(), zero.clone())?;
    let lo = binary(l, &prims::MIN, x, zero)?;
    let q = binary(l, &prims::DIV, lo, alpha.clone())?;
    let e = l.unary(&prims::EXPM1, q)?;
    let r = binary(l, &prims::MUL, alpha, e)?;
    binary(l, &prims::ADD, hi, r)
}

/// `hard_tanh(x)`: `x` clipped to `[-1, 1]`.
pub fn hard_tanh<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    let (one, m_one) = (int(l, 1), int(l, -1));
    let below = binary(l, &prims::LT, x.clone(), m_one.clone())?;
    let inner = where_(l, below, m_one, x.clone())?;
    let above = binary(l, &prims::GT, x, one.clone())?;
    where_(l, above, one, inner)
}

/// The Gaussian error linear unit: with `approximate`, JAX's tanh form
/// `x/2 (1 + tanh(√(2/π) (x + 0.044715 x³)))`; otherwise `x/2 erfc(-x/√2)`.
pub fn gelu<L: Lax>(l: &mut L, x: L::V, approximate: bool) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    if approximate {
        let c0 = typed(l, &x, (2.0 / std::f64::consts::PI).sqrt());
        let cube = l.integer_pow(x.clone(), 3)?;
        let k = float(l, 0.044715);
        let kc = binary(l, &prims::MUL, k, cube)?;
        let inner = binary(l, &prims::ADD, x.clone(), kc)?;
        let arg = binary(l, &prims::MUL, c0, inner)?;
        let th = l.unary(&prims::TANH, arg)?;
        let one = float(l, 1.0);
        let sum = binary(l, &prims::ADD, one, th)?;
        let half = float(l, 0.5);
        let cdf = binary(l, &prims::MUL, half, sum)?;
        binary(l, &prims::MUL, x, cdf)
    } else {
        let sqrt_half = typed(l, &x, 0.5f64.sqrt());
        let half = float(l, 0.5);
        let hx = binary(l, &prims::MUL, half, x.clone())?;
        let nx = l.unary(&prims::NEG, x)?;
        let arg = binary(l, &prims::MUL, nx, sqrt_half)?;
        let e = l.unary(&prims::ERFC, arg)?;
        binary(l, &prims::MUL, hx, e)
    }
}

/// `glu(x, axis)`: the first half of `x` along `axis` times the sigmoid of
/// the second.
pub fn glu<L: Lax>(l: &mut L, x: L::V, axis: usize) -> Res<L, L::V> {
    let a = l.aval(&x);
    let mut sizes = Vec::with_capacity(a.rank());
    for d in &a.shape {
        match d {
            Dim::Lit(k) => sizes.push(*k),
            _ => return Err(l.error("glu needs static dimensions".into())),
        }
    }
    let n = sizes[axis];
    if n % 2 != 0 {
        return Err(l.error(format!("glu: axis size must be divisible by 2, got {n}")));
    }
    let mut halves = Vec::new();
    for h in 0..2 {
        let mut start = vec![0; sizes.len()];
        let mut limit = sizes.clone();
        start[axis] = h * n / 2;
        limit[axis] = (h + 1) * n / 2;
        halves.push(l.slice(x.clone(), start, limit, None)?);
    }
    let g = jnp::unary_inexact(l, &prims::LOGISTIC, halves[1].clone())?;
    binary(l, &prims::MUL, halves[0].clone(), g)
}

/// `one_hot(labels, num_classes)` of `dtype`: `labels[.., None] == iota`
/// (compared in the labels' type), converted.
pub fn one_hot<L: Lax>(l: &mut L, x: L::V, num_classes: usize, dtype: DType) -> Res<L, L::V> {
    let a = l.aval(&x);
    let mut lhs_shape = a.shape.clone();
    lhs_shape.push(Dim::Lit(1));
    let lhs = l.broadcast_in_dim(x, lhs_shape, (0..a.rank()).collect())?;
    let mut rhs_shape = vec![Dim::Lit(1); a.rank()];
    rhs_shape.push(Dim::Lit(num_classes));
    let rhs = l.iota(a.dtype, rhs_shape, a.rank())?;
    let eq = binary(l, &prims::EQ, lhs, rhs)?;
    jnp::convert(l, eq, dtype, false)
}

/// The default float type of `one_hot` and of other functions whose result
/// type the caller may leave unnamed.
pub fn default_float<L: Lax>(l: &L) -> DType {
    jax_dtypes::default_dtype(Kind::Float, l.x64())
}

/// `logit(x) = log(x / (1 - x))`, with JAX's rule `g / (x (1 - x))`.
pub fn logit<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    let x = to_float(l, x)?;
    custom_logit(l, x)
}

fn custom_logit<L: Lax>(l: &mut L, x: L::V) -> Res<L, L::V> {
    l.custom_jvp(
        "logit",
        vec![x],
        &|l, x| {
            let one = float(l, 1.0);
            let d = binary(l, &prims::SUB, one, x[0].clone())?;
            let q = binary(l, &prims::DIV, x[0].clone(), d)?;
            l.unary(&prims::LOG, q)
        },
        &|l, x, g, _| {
            let one = float(l, 1.0);
            let d = binary(l, &prims::SUB, one, x[0].clone())?;
            let m = binary(l, &prims::MUL, x[0].clone(), d)?;
            binary(l, &prims::DIV, g[0].clone(), m)
        },
    )
}

/// `xlogy(x, y) = x log(y)` (or `xlog1py`, `x log1p(y)`), 0 where
/// `x == 0` unless `y` is NaN, with JAX's rules.
pub fn xlogy<L: Lax>(l: &mut L, x: L::V, y: L::V, log1p: bool) -> Res<L, L::V> {
    let xy = inexact_args(l, vec![x, y])?;
    let [x, y]: [L::V; 2] = xy.try_into().ok().expect("two operands");
    custom_xlogy(l, x, y, log1p)
}

fn custom_xlogy<L: Lax>(l: &mut L, x: L::V, y: L::V, log1p: bool) -> Res<L, L::V> {
    let name = if log1p { "xlog1py" } else { "xlogy" };
    let log = if log1p { &prims::LOG1P } else { &prims::LOG };
    l.custom_jvp(
        name,
        vec![x, y],
        &|l, xy| {
            let (x, y) = (xy[0].clone(), xy[1].clone());
            let zero = float(l, 0.0);
            let x_ok = binary(l, &prims::NE, x.clone(), zero)?;
            let y_nan = binary(l, &prims::NE, y.clone(), y.clone())?;
            let ok = binary(l, &prims::OR, x_ok, y_nan)?;
            let lg = l.unary(log, y)?;
            let v = binary(l, &prims::MUL, x.clone(), lg)?;
            let zero = float(l, 0.0);
            let dtype = l.aval(&x).dtype;
            let zeros = jnp::convert(l, zero, dtype, false)?;
            where_(l, ok, v, zeros)
        },
        &|l, xy, t, _| {
            let (x, y) = (xy[0].clone(), xy[1].clone());
            let (lg, d) = if log1p {
                let lg = l.unary(&prims::LOG1P, y.clone())?;
                let one = float(l, 1.0);
                (lg, binary(l, &prims::ADD, one, y)?)
            } else {
                (l.unary(&prims::LOG, y.clone())?, y)
            };
            let a = binary(l, &prims::MUL, t[0].clone(), lg)?;
            let m = binary(l, &prims::MUL, t[1].clone(), x)?;
            let q = binary(l, &prims::DIV, m, d)?;
            binary(l, &prims::ADD, a, q)
        },
    )
}

/// The elementwise `jax.scipy.special` functions that are one primitive
/// (`erf`, `gammaln`, ...), integers converted to floats first.
pub fn special<L: Lax>(l: &mut L, name: &str, x: L::V) -> Option<Res<L, L::V>> {
    let p: crate::ir::primitive::Prim = match name {
        "erf" => &prims::ERF,
        "erfc" => &prims::ERFC,
        "erfinv" => &prims::ERF_INV,
        "gammaln" => &prims::LGAMMA,
        "digamma" => &prims::DIGAMMA,
        "expit" => &prims::LOGISTIC,
        _ => return None,
    };
    Some(jnp::unary_inexact(l, p, x))
}

/// flax's `max_pool` (`max`) and `avg_pool` (`count_include_pad=True`): a
/// window of `window_shape` over the spatial axes of `(batch, spatial..,
/// features)` or `(spatial.., features)` inputs, moved by `strides` (1 when
/// `None`), padded as `padding` says; the average divides each window's sum
/// by the window's size, padding counted as zeros.
pub fn pool<L: Lax>(
    l: &mut L,
    x: L::V,
    window_shape: &[usize],
    strides: Option<&[usize]>,
    padding: jax_dtypes::conv::Padding,
    max: bool,
) -> Res<L, L::V> {
    // A const generic's size stands as 1: the primitive's own rule keeps it
    // where the window leaves its axis alone, and reports it elsewhere.
    let shape: Vec<usize> = l
        .aval(&x)
        .shape
        .iter()
        .map(|d| match d {
            crate::ir::Dim::Lit(n) => *n,
            crate::ir::Dim::Sym(_) => 1,
        })
        .collect();
    let (window, strides, pad) =
        jax_dtypes::conv::pool_window(&shape, window_shape, strides, padding)
            .map_err(|e| l.expression_error(e))?;
    let spec = jax_dtypes::conv::WindowSpec::new(&shape, &window, Some(&strides), &pad, None, None)
        .map_err(|e| l.expression_error(e))?;
    let w: crate::ir::primitive::WindowParams = spec.into();
    if max {
        return l.reduce_window(&prims::REDUCE_WINDOW_MAX, x, w);
    }
    let sums = l.reduce_window(&prims::REDUCE_WINDOW_SUM, x, w)?;
    let count: usize = window_shape.iter().product();
    let n = crate::jnp::weak_literal(l, Scalar::Float(count as f64));
    let sums = crate::jnp::to_float(l, sums)?;
    crate::jnp::binary(l, &prims::DIV, sums, n)
}
