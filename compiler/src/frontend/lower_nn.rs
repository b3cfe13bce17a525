//! `jax::nn::NAME(..)` (or `nn::NAME` after `use jax::nn;`),
//! `jax::scipy::special::NAME`, `jax::scipy::stats::norm::NAME`, and the
//! `jnp` math functions that are compositions (`logaddexp`, `var`, `std`,
//! `remainder`, `floor_divide`, `isinf`, ...), lowered to the primitives JAX
//! emits for them. JAX's `custom_jvp` functions (`relu`, `relu6`,
//! `logaddexp`, `xlogy`, `xlog1py`, `logit`) are `custom_jvp_call`s of their
//! body and JAX's rule, so derivatives at the special points are JAX's
//! (`relu'(0) = 0`, finite `logaddexp` gradients at infinities).

use jax_dtypes::{DType, Kind};
use proc_macro2::Span;

use crate::frontend::jnp::{self, Reduction};
use crate::frontend::lower_call::{call_err, Call, Module};
use crate::frontend::lower_math;
use crate::frontend::tracer::Tracer;
use crate::frontend::value::Value;
use crate::ir::builder::{literal, Builder, Result};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, Params, Prim};

pub(crate) type Handler = fn(&mut Tracer, Call) -> Result<Value>;
/// A `custom_jvp` rule: the output's tangent from the primals, their
/// tangents and the output.
type JvpRule = fn(&mut Builder, &[Atom], &[Atom], Atom, Span) -> Result<Atom>;

/// `jax.nn.selu`'s constants (Klambauer et al.), as f64 literals.
const SELU_ALPHA: f64 = 1.673_263_242_354_377_2;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

/// `jax::nn`'s functions.
static NN: &[(&str, Handler)] = &[
    ("relu", relu),
    ("relu6", relu6),
    ("sigmoid", unary_fn),
    ("log_sigmoid", unary_fn),
    ("softplus", unary_fn),
    ("silu", unary_fn),
    ("swish", unary_fn),
    ("selu", unary_fn),
    ("hard_tanh", unary_fn),
    ("gelu", gelu),
    ("elu", with_param),
    ("leaky_relu", with_param),
    ("celu", with_param),
    ("glu", glu),
    ("softmax", lower_math::softmax),
    ("log_softmax", lower_math::softmax),
    ("logsumexp", lower_math::logsumexp),
    ("one_hot", one_hot),
    ("standardize", standardize),
    ("max_pool", crate::frontend::lower_window::pool),
    ("avg_pool", crate::frontend::lower_window::pool),
];

/// `jax::scipy::special`'s functions.
static SPECIAL: &[(&str, Handler)] = &[
    ("logsumexp", lower_math::logsumexp),
    ("erf", unary_fn),
    ("erfc", unary_fn),
    ("erfinv", unary_fn),
    ("expit", unary_fn),
    ("logit", logit),
    ("xlogy", xlogy),
    ("xlog1py", xlogy),
    ("gammaln", unary_fn),
    ("digamma", unary_fn),
];

/// `jax::scipy::stats::norm`'s functions.
static NORM: &[(&str, Handler)] = &[
    ("pdf", norm),
    ("logpdf", norm),
    ("cdf", norm),
    ("logcdf", norm),
    ("ppf", norm),
    ("pdf_with", norm),
    ("logpdf_with", norm),
    ("cdf_with", norm),
    ("logcdf_with", norm),
    ("ppf_with", norm),
];

/// The table of `nn::`, `special::` or `norm::`, and the module's path.
pub(crate) fn table(module: Module) -> (&'static [(&'static str, Handler)], &'static str) {
    match module {
        Module::Nn => (NN, "jax::nn"),
        Module::Special => (SPECIAL, "jax::scipy::special"),
        _ => (NORM, "jax::scipy::stats::norm"),
    }
}

/// Lowers a call of `nn::`, `special::` or `norm::` by its table.
pub(crate) fn lower(t: &mut Tracer, c: Call) -> Result<Value> {
    let (table, module) = table(c.module);
    match table.iter().find(|(n, _)| *n == c.name) {
        Some((_, h)) => h(t, c),
        None => {
            let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            call_err(
                c.span,
                format!(
                    "`{}` is not a function of {module}; it has: {}",
                    c.name,
                    names.join(", ")
                ),
            )
        }
    }
}

// Builders of one step each, at the call's span.

fn lit(b: &Builder, v: f64) -> Atom {
    jnp::weak_literal(b, Scalar::Float(v))
}

fn int_lit(b: &Builder, v: i128) -> Atom {
    jnp::weak_literal(b, Scalar::Int(v))
}

fn bin(b: &mut Builder, p: Prim, x: Atom, y: Atom, s: Span) -> Result<Atom> {
    jnp::binary(b, p, x, y, s)
}

fn un(b: &mut Builder, p: Prim, x: Atom, s: Span) -> Result<Atom> {
    jnp::unary(b, p, x, s)
}

fn select(b: &mut Builder, c: Atom, x: Atom, y: Atom, s: Span) -> Result<Atom> {
    jnp::where_(b, c, x, y, s)
}

/// A scalar literal of `like`'s dtype, not weak (`np.array(v, dtype)`).
fn typed_lit(b: &Builder, like: &Atom, v: f64) -> Atom {
    let d = b.aval(like).dtype;
    literal(
        crate::ir::cast_scalar(Scalar::Float(v), d),
        Aval::scalar(d, false),
    )
}

/// A custom function's body: its output from its inputs.
type Body = fn(&mut Builder, &[Atom], Span) -> Result<Atom>;

/// JAX's `custom_jvp` functions, by the name their `custom_jvp_call`
/// carries: the body, and JAX's rule.
static CUSTOM_JVPS: &[(&str, Body, JvpRule)] = &[
    (
        "relu",
        |b, x, s| {
            let zero = int_lit(b, 0);
            bin(b, &prims::MAX, x[0].clone(), zero, s)
        },
        |b, x, g, _, s| {
            let zero = int_lit(b, 0);
            let pos = bin(b, &prims::GT, x[0].clone(), zero.clone(), s)?;
            select(b, pos, g[0].clone(), zero, s)
        },
    ),
    (
        "relu6",
        |b, x, s| {
            let zero = int_lit(b, 0);
            let m = bin(b, &prims::MAX, x[0].clone(), zero, s)?;
            let six = lit(b, 6.0);
            bin(b, &prims::MIN, m, six, s)
        },
        |b, x, g, _, s| {
            let zero = int_lit(b, 0);
            let six = int_lit(b, 6);
            let pos = bin(b, &prims::GT, x[0].clone(), zero.clone(), s)?;
            let below = bin(b, &prims::LT, x[0].clone(), six, s)?;
            let inside = bin(b, &prims::AND, pos, below, s)?;
            select(b, inside, g[0].clone(), zero, s)
        },
    ),
    (
        "logaddexp",
        |b, xy, s| logaddexp_body(b, xy, s, false),
        |b, x, t, out, s| logaddexp_rule(b, x, t, out, s, false),
    ),
    (
        "logaddexp2",
        |b, xy, s| logaddexp_body(b, xy, s, true),
        |b, x, t, out, s| logaddexp_rule(b, x, t, out, s, true),
    ),
    (
        "logit",
        |b, x, s| {
            let one = lit(b, 1.0);
            let d = bin(b, &prims::SUB, one, x[0].clone(), s)?;
            let q = bin(b, &prims::DIV, x[0].clone(), d, s)?;
            un(b, &prims::LOG, q, s)
        },
        |b, x, g, _, s| {
            let one = lit(b, 1.0);
            let d = bin(b, &prims::SUB, one, x[0].clone(), s)?;
            let m = bin(b, &prims::MUL, x[0].clone(), d, s)?;
            bin(b, &prims::DIV, g[0].clone(), m, s)
        },
    ),
    (
        "xlogy",
        |b, xy, s| xlogy_body(b, xy, s, &prims::LOG),
        |b, xy, tg, _, s| xlogy_rule(b, xy, tg, s, false),
    ),
    (
        "xlog1py",
        |b, xy, s| xlogy_body(b, xy, s, &prims::LOG1P),
        |b, xy, tg, _, s| xlogy_rule(b, xy, tg, s, true),
    ),
];

/// The `custom_jvp_call` of JAX's function `name` (of [`CUSTOM_JVPS`]).
fn known(t: &mut Tracer, name: &str, args: Vec<Atom>, span: Span) -> Result<Atom> {
    let (_, body, rule) = CUSTOM_JVPS
        .iter()
        .find(|(n, ..)| *n == name)
        .expect("a function of CUSTOM_JVPS");
    custom_jvp(t, name, args, *body, *rule, span)
}

/// The rule's program of JAX's `custom_jvp` function `name`, when `fun` is
/// that function's body (an imported `custom_jvp_call`, whose text names
/// its rule but cannot hold it): `fun` printed, its calls inlined, as ours.
pub(crate) fn known_custom_jvp(name: &str, fun: &crate::ir::Jaxpr) -> Option<crate::ir::Jaxpr> {
    let (_, body, rule) = CUSTOM_JVPS.iter().find(|(n, ..)| *n == name)?;
    let avals: Vec<Aval> = fun.invars.iter().map(|v| fun.aval(*v).clone()).collect();
    let mut t = Tracer::new(crate::X64);
    let (ours, jvp) = custom_jvp_programs(&mut t, avals, *body, *rule, Span::call_site()).ok()?;
    let print = |j: &crate::ir::Jaxpr| crate::ir::print::print_jaxpr(&prims::inline_calls(j));
    (print(&ours) == print(fun)).then_some(jvp)
}

/// A `custom_jvp_call` named `name`: `fun` computes the output from the
/// inputs; `rule` the output's tangent from the primals, their tangents
/// and the output (JAX's `defjvp`).
fn custom_jvp(
    t: &mut Tracer,
    name: &str,
    args: Vec<Atom>,
    fun: Body,
    rule: JvpRule,
    span: Span,
) -> Result<Atom> {
    let avals: Vec<Aval> = args.iter().map(|a| t.b.aval(a)).collect();
    let (fun_j, jvp_j) = custom_jvp_programs(t, avals, fun, rule, span)?;
    let params = Params::CustomJvp(prims::Shared(std::rc::Rc::new(prims::CustomJvp {
        name: name.to_string(),
        fun: fun_j,
        jvp: jvp_j,
    })));
    let outs = t.b.bind(&prims::CUSTOM_JVP_CALL, params, args, span)?;
    Ok(outs[0].clone())
}

/// The programs of a custom function on inputs of `avals`: its body, and
/// its jvp (primals then tangents in; the output then its tangent out).
fn custom_jvp_programs(
    t: &mut Tracer,
    avals: Vec<Aval>,
    fun: Body,
    rule: JvpRule,
    span: Span,
) -> Result<(crate::ir::Jaxpr, crate::ir::Jaxpr)> {
    let n = avals.len();
    let (fun_j, _) = t.trace_with(avals.clone(), |t, ins| Ok(vec![fun(&mut t.b, &ins, span)?]))?;
    let mut both = avals.clone();
    both.extend(avals.iter().map(crate::ir::rules::tangent_aval));
    let (jvp_j, _) = t.trace_with(both, |t, ins| {
        let out = fun(&mut t.b, &ins[..n], span)?;
        let tan = rule(&mut t.b, &ins[..n], &ins[n..], out.clone(), span)?;
        // The tangent has the output's type, as JAX's rule's `astype`.
        let oa = t.b.aval(&out);
        let tan = jnp::convert(&mut t.b, tan, oa.dtype, false, span)?;
        let tan = if t.b.aval(&tan).shape != oa.shape {
            jnp::broadcast_to(&mut t.b, tan, oa.shape.clone(), span)?
        } else {
            tan
        };
        Ok(vec![out, tan])
    })?;
    Ok((fun_j, jvp_j))
}

fn traced(a: Atom) -> Result<Value> {
    Ok(Value::Traced(a))
}

// jax.nn

/// `relu(x)`: `max(x, 0)` with JAX's custom jvp (`relu'(0) = 0`); also
/// `jnp::relu`, `lax::relu` and `.relu()`.
pub(crate) fn relu(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    traced(known(t, "relu", vec![x], c.span)?)
}

fn relu6(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    traced(known(t, "relu6", vec![x], c.span)?)
}

/// `jnp.logaddexp(x, y)`'s body (`lax_other.logaddexp`), or base 2.
fn logaddexp_body(b: &mut Builder, xy: &[Atom], s: Span, base2: bool) -> Result<Atom> {
    let (x, y) = (xy[0].clone(), xy[1].clone());
    let amax = bin(b, &prims::MAX, x.clone(), y.clone(), s)?;
    let delta = bin(b, &prims::SUB, x.clone(), y.clone(), s)?;
    let nan = bin(b, &prims::NE, delta.clone(), delta.clone(), s)?;
    let sum = bin(b, &prims::ADD, x, y, s)?;
    let a = un(b, &prims::ABS, delta, s)?;
    let n = un(b, &prims::NEG, a, s)?;
    let e = un(b, if base2 { &prims::EXP2 } else { &prims::EXP }, n, s)?;
    let mut l = un(b, &prims::LOG1P, e, s)?;
    if base2 {
        let inv = typed_lit(b, &amax, 1.0 / std::f64::consts::LN_2);
        l = bin(b, &prims::MUL, inv, l, s)?;
    }
    let r = bin(b, &prims::ADD, amax, l, s)?;
    select(b, nan, sum, r, s)
}

/// JAX's `_logaddexp_jvp`: `t1 exp(x1 - out) + t2 exp(x2 - out)`, with
/// `+inf` replaced by 0 so the tangent stays finite at infinities.
fn logaddexp_rule(
    b: &mut Builder,
    x: &[Atom],
    t: &[Atom],
    out: Atom,
    s: Span,
    base2: bool,
) -> Result<Atom> {
    fn replace_inf(b: &mut Builder, v: Atom, s: Span) -> Result<Atom> {
        let inf = lit(b, f64::INFINITY);
        let is_inf = bin(b, &prims::EQ, v.clone(), inf, s)?;
        let zero = lit(b, 0.0);
        select(b, is_inf, zero, v, s)
    }
    let ro = replace_inf(b, out, s)?;
    let mut terms = Vec::new();
    for (xi, ti) in x.iter().zip(t) {
        let rx = replace_inf(b, xi.clone(), s)?;
        let d = bin(b, &prims::SUB, rx, ro.clone(), s)?;
        let e = un(b, if base2 { &prims::EXP2 } else { &prims::EXP }, d, s)?;
        terms.push(bin(b, &prims::MUL, ti.clone(), e, s)?);
    }
    bin(b, &prims::ADD, terms[0].clone(), terms[1].clone(), s)
}

/// `promote_args_inexact`: each operand to its inexact type, then one type.
fn inexact_args(t: &mut Tracer, xs: Vec<Atom>, s: Span) -> Result<Vec<Atom>> {
    let xs = xs
        .into_iter()
        .map(|x| jnp::to_float(&mut t.b, x, s))
        .collect::<Result<Vec<_>>>()?;
    jnp::promote(&mut t.b, xs, s)
}

pub(crate) fn logaddexp_of(t: &mut Tracer, x: Atom, y: Atom, base2: bool, s: Span) -> Result<Atom> {
    let xy = inexact_args(t, vec![x, y], s)?;
    known(t, if base2 { "logaddexp2" } else { "logaddexp" }, xy, s)
}

/// `jnp::logaddexp(x, y)` and `jnp::logaddexp2(x, y)`.
pub(crate) fn logaddexp(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    traced(logaddexp_of(t, x, y, c.name == "logaddexp2", c.span)?)
}

fn softplus(t: &mut Tracer, x: Atom, s: Span) -> Result<Atom> {
    let zero = int_lit(&t.b, 0);
    logaddexp_of(t, x, zero, false, s)
}

/// `jnp.where(x > 0, x, alpha * expm1(where(x > 0, 0, x)))`.
fn elu_of(b: &mut Builder, x: Atom, alpha: Atom, s: Span) -> Result<Atom> {
    let zero = int_lit(b, 0);
    let pos = bin(b, &prims::GT, x.clone(), zero, s)?;
    let fzero = lit(b, 0.0);
    let safe = select(b, pos.clone(), fzero, x.clone(), s)?;
    let e = un(b, &prims::EXPM1, safe, s)?;
    let neg = bin(b, &prims::MUL, alpha, e, s)?;
    select(b, pos, x, neg, s)
}

/// The functions of one array argument without their own handler.
fn unary_fn(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, s)?;
    let b = &mut t.b;
    let v = match c.name {
        "sigmoid" | "expit" => un(b, &prims::LOGISTIC, x, s)?,
        "erf" => un(b, &prims::ERF, x, s)?,
        "erfc" => un(b, &prims::ERFC, x, s)?,
        "erfinv" => un(b, &prims::ERF_INV, x, s)?,
        "gammaln" => un(b, &prims::LGAMMA, x, s)?,
        "digamma" => un(b, &prims::DIGAMMA, x, s)?,
        "softplus" => softplus(t, x, s)?,
        "log_sigmoid" => {
            let n = un(&mut t.b, &prims::NEG, x, s)?;
            let sp = softplus(t, n, s)?;
            un(&mut t.b, &prims::NEG, sp, s)?
        }
        "silu" | "swish" => {
            let sg = un(b, &prims::LOGISTIC, x.clone(), s)?;
            bin(b, &prims::MUL, x, sg, s)?
        }
        "selu" => {
            let alpha = lit(b, SELU_ALPHA);
            let e = elu_of(b, x, alpha, s)?;
            let scale = lit(b, SELU_SCALE);
            bin(b, &prims::MUL, scale, e, s)?
        }
        "hard_tanh" => {
            let (one, m_one) = (int_lit(b, 1), int_lit(b, -1));
            let below = bin(b, &prims::LT, x.clone(), m_one.clone(), s)?;
            let inner = select(b, below, m_one, x.clone(), s)?;
            let above = bin(b, &prims::GT, x, one.clone(), s)?;
            select(b, above, one, inner, s)?
        }
        other => unreachable!("no lowering for {other}"),
    };
    traced(v)
}

/// `gelu(x, approximate)`: JAX's tanh form or the exact erfc form.
fn gelu(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let approximate = match &c.args[1].0 {
        Value::Static(Scalar::Bool(a)) => *a,
        _ => return call_err(c.args[1].1, "`approximate` must be `true` or `false`"),
    };
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, s)?;
    let b = &mut t.b;
    let v = if approximate {
        let c0 = typed_lit(b, &x, (2.0 / std::f64::consts::PI).sqrt());
        let cube = b.bind1(
            &prims::INTEGER_POW,
            Params::IntegerPow(3),
            vec![x.clone()],
            s,
        )?;
        let k = lit(b, 0.044715);
        let kc = bin(b, &prims::MUL, k, cube, s)?;
        let inner = bin(b, &prims::ADD, x.clone(), kc, s)?;
        let arg = bin(b, &prims::MUL, c0, inner, s)?;
        let th = un(b, &prims::TANH, arg, s)?;
        let one = lit(b, 1.0);
        let sum = bin(b, &prims::ADD, one, th, s)?;
        let half = lit(b, 0.5);
        let cdf = bin(b, &prims::MUL, half, sum, s)?;
        bin(b, &prims::MUL, x, cdf, s)?
    } else {
        let sqrt_half = typed_lit(b, &x, 0.5f64.sqrt());
        let half = lit(b, 0.5);
        let hx = bin(b, &prims::MUL, half, x.clone(), s)?;
        let nx = un(b, &prims::NEG, x, s)?;
        let arg = bin(b, &prims::MUL, nx, sqrt_half, s)?;
        let e = un(b, &prims::ERFC, arg, s)?;
        bin(b, &prims::MUL, hx, e, s)?
    };
    traced(v)
}

/// `elu(x, alpha)`, `leaky_relu(x, negative_slope)`, `celu(x, alpha)`.
fn with_param(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let p = c.atom(t, 1)?;
    let b = &mut t.b;
    let v = match c.name {
        "elu" => {
            let x = jnp::to_float(b, x, s)?;
            elu_of(b, x, p, s)?
        }
        "leaky_relu" => {
            let zero = int_lit(b, 0);
            let nonneg = bin(b, &prims::GE, x.clone(), zero, s)?;
            let scaled = bin(b, &prims::MUL, p, x.clone(), s)?;
            select(b, nonneg, x, scaled, s)?
        }
        _ => {
            let zero = lit(b, 0.0);
            let hi = bin(b, &prims::MAX, x.clone(), zero.clone(), s)?;
            let lo = bin(b, &prims::MIN, x, zero, s)?;
            let q = bin(b, &prims::DIV, lo, p.clone(), s)?;
            let e = un(b, &prims::EXPM1, q, s)?;
            let r = bin(b, &prims::MUL, p, e, s)?;
            bin(b, &prims::ADD, hi, r, s)?
        }
    };
    traced(v)
}

/// The static axis argument `i` (normalized against `x`).
fn axis_arg(t: &Tracer, c: &Call, i: usize, x: &Atom) -> Result<usize> {
    let (v, s) = &c.args[i];
    let ax = t.static_int(v, *s, "the axis")?;
    jnp::axis(&t.b, x, ax, *s)
}

/// `glu(x, axis)`: the first half along `axis` times the sigmoid of the second.
fn glu(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let ax = axis_arg(t, &c, 1, &x)?;
    let a = t.b.aval(&x);
    let Dim::Lit(n) = a.shape[ax] else {
        return call_err(s, "glu needs a static size along its axis");
    };
    if n % 2 != 0 {
        return call_err(s, format!("glu: axis size must be divisible by 2, got {n}"));
    }
    let lits: Vec<usize> = a
        .shape
        .iter()
        .map(|d| match d {
            Dim::Lit(k) => Ok(*k),
            _ => call_err(s, "glu needs static dimensions"),
        })
        .collect::<Result<_>>()?;
    let mut halves = Vec::new();
    for h in 0..2 {
        let mut start = vec![0; lits.len()];
        let mut limit = lits.clone();
        start[ax] = h * n / 2;
        limit[ax] = (h + 1) * n / 2;
        halves.push(t.b.bind1(
            &prims::SLICE,
            Params::Slice {
                start,
                limit,
                strides: None,
            },
            vec![x.clone()],
            s,
        )?);
    }
    let g = jnp::unary_inexact(&mut t.b, &prims::LOGISTIC, halves[1].clone(), s)?;
    traced(bin(&mut t.b, &prims::MUL, halves[0].clone(), g, s)?)
}

/// `one_hot(labels, num_classes)`: `labels[.., None] == iota`, converted to
/// the result's dtype (from the written type, else the default float).
fn one_hot(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let n = t.static_int(&c.args[1].0, c.args[1].1, "num_classes")?;
    if n < 0 {
        return call_err(c.args[1].1, "num_classes must be non-negative");
    }
    let n = n as usize;
    let a = t.b.aval(&x);
    let dtype = c
        .hint
        .as_ref()
        .and_then(|h| h.aval())
        .map(|h| h.dtype)
        .unwrap_or_else(|| jax_dtypes::default_dtype(Kind::Float, t.b.x64));
    let mut lhs_shape = a.shape.clone();
    lhs_shape.push(Dim::Lit(1));
    let lhs = t.b.bind1(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: lhs_shape,
            dims: (0..a.rank()).collect(),
            np_ints: 0,
        },
        vec![x],
        s,
    )?;
    let mut rhs_shape = vec![Dim::Lit(1); a.rank()];
    rhs_shape.push(Dim::Lit(n));
    let values = (0..n)
        .map(|k| crate::ir::cast_scalar(Scalar::Int(k as i128), a.dtype))
        .collect();
    let rhs = t.b.constant(
        Aval {
            dtype: a.dtype,
            shape: rhs_shape,
            weak: false,
        },
        values,
    );
    let eq = bin(&mut t.b, &prims::EQ, lhs, rhs, s)?;
    traced(jnp::convert(&mut t.b, eq, dtype, false, s)?)
}

/// `standardize(x, axis, epsilon)`: JAX's "fast" variance, clipped at 0.
fn standardize(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, s)?;
    let ax = axis_arg(t, &c, 1, &x)?;
    let eps = c.atom(t, 2)?;
    let b = &mut t.b;
    let mean = jnp::mean(b, x.clone(), Some(vec![ax]), true, s)?;
    let sq = un(b, &prims::SQUARE, x.clone(), s)?;
    let mean_sq = jnp::mean(b, sq, Some(vec![ax]), true, s)?;
    let m2 = un(b, &prims::SQUARE, mean.clone(), s)?;
    let var = bin(b, &prims::SUB, mean_sq, m2, s)?;
    let zero = int_lit(b, 0);
    let var = bin(b, &prims::MAX, zero, var, s)?;
    let centered = bin(b, &prims::SUB, x, mean, s)?;
    let ve = bin(b, &prims::ADD, var, eps, s)?;
    let r = un(b, &prims::RSQRT, ve, s)?;
    traced(bin(b, &prims::MUL, centered, r, s)?)
}

// jax.scipy.special

/// `logit(x) = log(x / (1 - x))`, with JAX's rule `g / (x (1 - x))`.
fn logit(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, c.span)?;
    traced(known(t, "logit", vec![x], c.span)?)
}

/// `xlogy(x, y) = x log(y)` and `xlog1py(x, y) = x log1p(y)`, 0 where
/// `x == 0` (unless `y` is NaN), with JAX's rules.
fn xlogy(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let xy = inexact_args(t, vec![x, y], c.span)?;
    let name = if c.name == "xlog1py" {
        "xlog1py"
    } else {
        "xlogy"
    };
    traced(known(t, name, xy, c.span)?)
}

fn xlogy_body(b: &mut Builder, xy: &[Atom], s: Span, log: Prim) -> Result<Atom> {
    let (x, y) = (xy[0].clone(), xy[1].clone());
    let zero = lit(b, 0.0);
    let x_ok = bin(b, &prims::NE, x.clone(), zero, s)?;
    let y_nan = bin(b, &prims::NE, y.clone(), y.clone(), s)?;
    let ok = bin(b, &prims::OR, x_ok, y_nan, s)?;
    let l = un(b, log, y, s)?;
    let v = bin(b, &prims::MUL, x.clone(), l, s)?;
    let zeros = jnp::convert(b, lit(b, 0.0), b.aval(&x).dtype, false, s)?;
    select(b, ok, v, zeros, s)
}

fn xlogy_rule(b: &mut Builder, xy: &[Atom], t: &[Atom], s: Span, log1p: bool) -> Result<Atom> {
    let (x, y) = (xy[0].clone(), xy[1].clone());
    let (l, d) = if log1p {
        let l = un(b, &prims::LOG1P, y.clone(), s)?;
        let one = lit(b, 1.0);
        (l, bin(b, &prims::ADD, one, y, s)?)
    } else {
        (un(b, &prims::LOG, y.clone(), s)?, y)
    };
    let a = bin(b, &prims::MUL, t[0].clone(), l, s)?;
    let m = bin(b, &prims::MUL, t[1].clone(), x, s)?;
    let q = bin(b, &prims::DIV, m, d, s)?;
    bin(b, &prims::ADD, a, q, s)
}

// jax.scipy.stats.norm

/// `norm::pdf(x)` .. `norm::ppf(q)`, and `*_with(x, loc, scale)`, as
/// `jax.scipy.stats.norm` computes them.
fn norm(t: &mut Tracer, c: Call) -> Result<Value> {
    let s = c.span;
    let name = c.name.trim_end_matches("_with");
    let with = name.len() != c.name.len();
    c.want(if with { 3 } else { 1 })?;
    let x = c.atom(t, 0)?;
    let (loc, scale) = if with {
        (c.atom(t, 1)?, c.atom(t, 2)?)
    } else {
        (int_lit(&t.b, 0), int_lit(&t.b, 1))
    };
    let xs = inexact_args(t, vec![x, loc, scale], s)?;
    let (x, loc, scale) = (xs[0].clone(), xs[1].clone(), xs[2].clone());
    let b = &mut t.b;
    let v = match name {
        "logpdf" | "pdf" => {
            let ss = un(b, &prims::SQUARE, scale, s)?;
            let two_pi = typed_lit(b, &x, 2.0 * std::f64::consts::PI);
            let m = bin(b, &prims::MUL, two_pi, ss.clone(), s)?;
            let log_norm = un(b, &prims::LOG, m, s)?;
            let d = bin(b, &prims::SUB, x.clone(), loc, s)?;
            let d2 = un(b, &prims::SQUARE, d, s)?;
            let quad = bin(b, &prims::DIV, d2, ss, s)?;
            let sum = bin(b, &prims::ADD, log_norm, quad, s)?;
            let m2 = typed_lit(b, &x, -2.0);
            let lp = bin(b, &prims::DIV, sum, m2, s)?;
            if name == "pdf" {
                un(b, &prims::EXP, lp, s)?
            } else {
                lp
            }
        }
        "cdf" => {
            // ndtr((x - loc) / scale)
            let d = bin(b, &prims::SUB, x, loc, s)?;
            let z = bin(b, &prims::DIV, d, scale, s)?;
            ndtr(b, z, s)?
        }
        "logcdf" => {
            let d = bin(b, &prims::SUB, x, loc, s)?;
            let z = bin(b, &prims::DIV, d, scale, s)?;
            return traced(custom_jvp(
                t,
                "log_ndtr",
                vec![z],
                |b, z, s| log_ndtr(b, z[0].clone(), s),
                log_ndtr_rule,
                s,
            )?);
        }
        _ => {
            // ndtri(q) * scale + loc
            let q = ndtri(b, x, s)?;
            let m = bin(b, &prims::MUL, q, scale, s)?;
            bin(b, &prims::ADD, m, loc, s)?
        }
    };
    traced(v)
}

/// JAX's `_log_ndtr_jvp`: `t exp(norm_logpdf(x) - log_ndtr(x))`.
fn log_ndtr_rule(b: &mut Builder, x: &[Atom], t: &[Atom], out: Atom, s: Span) -> Result<Atom> {
    let x = x[0].clone();
    let neg_half = typed_lit(b, &x, -0.5);
    let sq = un(b, &prims::SQUARE, x.clone(), s)?;
    let m = bin(b, &prims::MUL, neg_half, sq, s)?;
    let k = typed_lit(b, &x, (2.0 * std::f64::consts::PI).sqrt().ln());
    let lp = bin(b, &prims::SUB, m, k, s)?;
    let d = bin(b, &prims::SUB, lp, out, s)?;
    let e = un(b, &prims::EXP, d, s)?;
    bin(b, &prims::MUL, t[0].clone(), e, s)
}

/// `jax.scipy.special.log_ndtr` (series order 3), as JAX composes it.
fn log_ndtr(b: &mut Builder, x: Atom, s: Span) -> Result<Atom> {
    let (lo, hi) = if b.aval(&x).dtype == DType::F64 {
        (-20.0, 8.0)
    } else {
        (-10.0, 5.0)
    };
    let (lower, upper) = (typed_lit(b, &x, lo), typed_lit(b, &x, hi));
    let above = bin(b, &prims::GT, x.clone(), upper, s)?;
    let nx = un(b, &prims::NEG, x.clone(), s)?;
    let xl = bin(b, &prims::MAX, x.clone(), lower.clone(), s)?;
    let arg = select(b, above.clone(), nx, xl, s)?;
    let r = ndtr(b, arg, s)?;
    let nr = un(b, &prims::NEG, r.clone(), s)?;
    let lr = un(b, &prims::LOG, r, s)?;
    // The asymptotic series below the lower segment.
    let xm = bin(b, &prims::MIN, x.clone(), lower.clone(), s)?;
    let x2 = un(b, &prims::SQUARE, xm.clone(), s)?;
    let neg_half = typed_lit(b, &x, -0.5);
    let a = bin(b, &prims::MUL, neg_half, x2.clone(), s)?;
    let nxm = un(b, &prims::NEG, xm.clone(), s)?;
    let lnx = un(b, &prims::LOG, nxm, s)?;
    let a = bin(b, &prims::SUB, a, lnx, s)?;
    let c = typed_lit(b, &x, 0.5 * (2.0 * std::f64::consts::PI).ln());
    let log_scale = bin(b, &prims::SUB, a, c, s)?;
    let x2s = un(b, &prims::SQUARE, xm, s)?;
    let zero = typed_lit(b, &x, 0.0);
    let (mut even, mut odd) = (zero.clone(), zero);
    let mut x2n = x2s.clone();
    for (n, df) in [1.0, 3.0, 15.0].into_iter().enumerate() {
        let dfl = typed_lit(b, &x, df);
        let y = bin(b, &prims::DIV, dfl, x2n.clone(), s)?;
        if n % 2 == 0 {
            odd = bin(b, &prims::ADD, odd, y, s)?;
        } else {
            even = bin(b, &prims::ADD, even, y, s)?;
        }
        x2n = bin(b, &prims::MUL, x2n, x2s.clone(), s)?;
    }
    let one = typed_lit(b, &x, 1.0);
    let series = bin(b, &prims::ADD, one, even, s)?;
    let series = bin(b, &prims::SUB, series, odd, s)?;
    let ls = un(b, &prims::LOG, series, s)?;
    let low = bin(b, &prims::ADD, log_scale, ls, s)?;
    let mid = bin(b, &prims::GT, x, lower, s)?;
    let inner = select(b, mid, lr, low, s)?;
    select(b, above, nr, inner, s)
}

/// Horner's rule from the highest coefficient, as `jnp.polyval`.
fn polyval(b: &mut Builder, p: &[f64], x: &Atom, s: Span) -> Result<Atom> {
    let mut y = typed_lit(b, x, 0.0);
    for &c in p {
        let m = bin(b, &prims::MUL, y, x.clone(), s)?;
        let cl = typed_lit(b, x, c);
        y = bin(b, &prims::ADD, m, cl, s)?;
    }
    Ok(y)
}

/// `jax.scipy.special.ndtri`, as JAX's `_ndtri` composes it.
fn ndtri(b: &mut Builder, p: Atom, s: Span) -> Result<Atom> {
    use jax_norm_coefficients::*;
    let e2 = (-2.0f64).exp();
    let c = |b: &Builder, v: f64| typed_lit(b, &p, v);
    let hi = c(b, -(-2.0f64).exp_m1());
    let gt = bin(b, &prims::GT, p.clone(), hi, s)?;
    let one = c(b, 1.0);
    let comp = bin(b, &prims::SUB, one.clone(), p.clone(), s)?;
    let mc = select(b, gt, comp, p.clone(), s)?;
    let zero = c(b, 0.0);
    let is0 = bin(b, &prims::EQ, mc.clone(), zero.clone(), s)?;
    let half = c(b, 0.5);
    let sm = select(b, is0, half.clone(), mc, s)?;
    let w = bin(b, &prims::SUB, sm.clone(), half, s)?;
    let ww = un(b, &prims::SQUARE, w.clone(), s)?;
    let pn = polyval(b, &P0, &ww, s)?;
    let qn = polyval(b, &Q0, &ww, s)?;
    let ratio = bin(b, &prims::DIV, pn, qn, s)?;
    let wcube = bin(b, &prims::MUL, w.clone(), ww, s)?;
    let t = bin(b, &prims::MUL, wcube, ratio, s)?;
    let big = bin(b, &prims::ADD, w, t, s)?;
    let k = c(b, -(2.0 * std::f64::consts::PI).sqrt());
    let big = bin(b, &prims::MUL, big, k, s)?;
    let m2 = c(b, -2.0);
    let ls = un(b, &prims::LOG, sm.clone(), s)?;
    let z = bin(b, &prims::MUL, m2, ls, s)?;
    let z = un(b, &prims::SQRT, z, s)?;
    let lz = un(b, &prims::LOG, z.clone(), s)?;
    let q = bin(b, &prims::DIV, lz, z.clone(), s)?;
    let first = bin(b, &prims::SUB, z.clone(), q, s)?;
    let iz = bin(b, &prims::DIV, one.clone(), z.clone(), s)?;
    let mut tails = Vec::new();
    for (pc, qc) in [(&P2[..], &Q2[..]), (&P1[..], &Q1[..])] {
        let pn = polyval(b, pc, &iz, s)?;
        let qn = polyval(b, qc, &iz, s)?;
        let r = bin(b, &prims::DIV, pn, qn, s)?;
        let r = bin(b, &prims::DIV, r, z.clone(), s)?;
        tails.push(bin(b, &prims::SUB, first.clone(), r, s)?);
    }
    let eight = c(b, 8.0);
    let far = bin(b, &prims::GE, z, eight, s)?;
    let small = select(b, far, tails[0].clone(), tails[1].clone(), s)?;
    let e2l = c(b, e2);
    let is_big = bin(b, &prims::GT, sm, e2l, s)?;
    let x = select(b, is_big, big, small, s)?;
    let up = c(b, 1.0 - e2);
    let upper = bin(b, &prims::GT, p.clone(), up, s)?;
    let nx = un(b, &prims::NEG, x.clone(), s)?;
    let x = select(b, upper, x, nx, s)?;
    let inf = c(b, f64::INFINITY);
    let ninf = c(b, f64::NEG_INFINITY);
    let p1 = bin(b, &prims::EQ, p.clone(), one, s)?;
    let x = select(b, p1, inf, x, s)?;
    let p0 = bin(b, &prims::EQ, p, zero, s)?;
    select(b, p0, ninf, x, s)
}

/// Cephes' coefficients of `ndtri`, as JAX's `_ndtri` uses them.
mod jax_norm_coefficients {
    pub(super) const P0: [f64; 5] = [
        -5.996_335_010_141_079e1,
        9.800_107_541_859_997e1,
        -5.667_628_574_690_703e1,
        1.393_126_093_872_796_8e1,
        -1.239_165_838_673_812_6,
    ];
    pub(super) const Q0: [f64; 9] = [
        1.0,
        1.954_488_583_381_417_6,
        4.676_279_128_988_815,
        8.636_024_213_908_906e1,
        -2.254_626_878_541_193_7e2,
        2.002_602_123_800_606_6e2,
        -8.203_722_561_683_334e1,
        1.590_562_251_262_117e1,
        -1.183_316_211_213_3,
    ];
    pub(super) const P1: [f64; 9] = [
        4.055_448_923_059_624_5,
        3.152_510_945_998_938_6e1,
        5.716_281_922_464_213e1,
        4.408_050_738_932_008e1,
        1.468_495_619_288_580_2e1,
        2.186_633_068_507_902_7,
        -1.402_560_791_713_545e-1,
        -3.504_246_268_278_482e-2,
        -8.574_567_851_546_854e-4,
    ];
    pub(super) const Q1: [f64; 9] = [
        1.0,
        1.577_998_832_564_667_4e1,
        4.539_076_351_288_792e1,
        4.131_720_382_546_72e1,
        1.504_253_856_929_075e1,
        2.504_649_462_083_094,
        -1.421_829_228_547_877_9e-1,
        -3.808_064_076_915_783e-2,
        -9.332_594_808_954_574e-4,
    ];
    pub(super) const P2: [f64; 9] = [
        3.237_748_917_769_460_4,
        6.915_228_890_689_842,
        3.938_810_252_924_744_4,
        1.333_034_608_158_075_5,
        2.014_853_895_491_790_8e-1,
        1.237_166_348_178_200_2e-2,
        3.015_815_535_082_354e-4,
        2.658_069_746_867_375_6e-6,
        6.239_745_391_849_833e-9,
    ];
    pub(super) const Q2: [f64; 9] = [
        1.0,
        6.024_270_393_647_42,
        3.679_835_638_561_608_7,
        1.377_020_994_890_813_3,
        2.162_369_935_944_966_3e-1,
        1.342_040_060_885_431_9e-2,
        3.280_144_646_821_277_4e-4,
        2.892_478_647_453_806_8e-6,
        6.790_194_080_099_813e-9,
    ];
}

/// `jax.scipy.special.ndtr` (`lax.special.ndtr`): `0.5 (1 + erf(w))` near
/// 0, `0.5 erfc(|w|)` or `0.5 (2 - erfc(|w|))` in the tails, `w = x/√2`.
fn ndtr(b: &mut Builder, x: Atom, s: Span) -> Result<Atom> {
    let half_sqrt2 = typed_lit(b, &x, 0.5 * 2f64.sqrt());
    let w = bin(b, &prims::MUL, x, half_sqrt2.clone(), s)?;
    let z = un(b, &prims::ABS, w.clone(), s)?;
    let small = bin(b, &prims::LT, z.clone(), half_sqrt2, s)?;
    let one = typed_lit(b, &w, 1.0);
    let e = un(b, &prims::ERF, w.clone(), s)?;
    let mid = bin(b, &prims::ADD, one, e, s)?;
    let zero = typed_lit(b, &w, 0.0);
    let pos = bin(b, &prims::GT, w.clone(), zero, s)?;
    let two = typed_lit(b, &w, 2.0);
    let ec = un(b, &prims::ERFC, z, s)?;
    let upper = bin(b, &prims::SUB, two, ec.clone(), s)?;
    let tails = b.bind1(&prims::SELECT_N, Params::None, vec![pos, ec, upper], s)?;
    let y = b.bind1(&prims::SELECT_N, Params::None, vec![small, tails, mid], s)?;
    let half = typed_lit(b, &w, 0.5);
    bin(b, &prims::MUL, half, y, s)
}

// jnp math that is a composition.

/// `promote_args_numeric`: bool to the default int, then one type.
fn numeric_args(t: &mut Tracer, xs: Vec<Atom>, s: Span) -> Result<Vec<Atom>> {
    let xs = jnp::promote(&mut t.b, xs, s)?;
    let a = t.b.aval(&xs[0]);
    if a.dtype == DType::Bool {
        let d = jax_dtypes::default_dtype(Kind::Int, t.b.x64);
        return xs
            .into_iter()
            .map(|x| jnp::convert(&mut t.b, x, d, a.weak, s))
            .collect();
    }
    Ok(xs)
}

/// `jnp::remainder(x, y)`: the sign of the divisor, as JAX writes it.
pub(crate) fn remainder(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let args = vec![c.atom(t, 0)?, c.atom(t, 1)?];
    let xy = numeric_args(t, args, s)?;
    let (x, mut y) = (xy[0].clone(), xy[1].clone());
    let b = &mut t.b;
    let zero = int_lit(b, 0);
    if b.aval(&y).dtype.is_integer() {
        let is0 = bin(b, &prims::EQ, y.clone(), zero.clone(), s)?;
        let one = int_lit(b, 1);
        y = select(b, is0, one, y, s)?;
    }
    let m = bin(b, &prims::REM, x, y.clone(), s)?;
    let nz = bin(b, &prims::NE, m.clone(), zero.clone(), s)?;
    let mneg = bin(b, &prims::LT, m.clone(), zero.clone(), s)?;
    let yneg = bin(b, &prims::LT, y.clone(), zero, s)?;
    let differ = bin(b, &prims::NE, mneg, yneg, s)?;
    let plus = bin(b, &prims::AND, differ, nz, s)?;
    let sum = bin(b, &prims::ADD, m.clone(), y, s)?;
    traced(select(b, plus, sum, m, s)?)
}

/// `jnp::floor_divide(x, y)`: JAX's integer formula, or `_float_divmod`.
pub(crate) fn floor_divide(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let args = vec![c.atom(t, 0)?, c.atom(t, 1)?];
    let xy = numeric_args(t, args, s)?;
    let (x, y) = (xy[0].clone(), xy[1].clone());
    let b = &mut t.b;
    let d = b.aval(&x).dtype;
    let zero = int_lit(b, 0);
    let one = int_lit(b, 1);
    if d.kind() == Kind::UInt {
        return traced(bin(b, &prims::DIV, x, y, s)?);
    }
    if d.is_integer() {
        let q = bin(b, &prims::DIV, x.clone(), y.clone(), s)?;
        let sx = un(b, &prims::SIGN, x.clone(), s)?;
        let sy = un(b, &prims::SIGN, y.clone(), s)?;
        let differ = bin(b, &prims::NE, sx, sy, s)?;
        let r = bin(b, &prims::REM, x, y, s)?;
        let nz = bin(b, &prims::NE, r, zero, s)?;
        let sel = bin(b, &prims::AND, differ, nz, s)?;
        let q1 = bin(b, &prims::SUB, q.clone(), one, s)?;
        return traced(select(b, sel, q1, q, s)?);
    }
    let m = bin(b, &prims::REM, x.clone(), y.clone(), s)?;
    let y0 = bin(b, &prims::EQ, y.clone(), zero.clone(), s)?;
    let xm = bin(b, &prims::SUB, x.clone(), m.clone(), s)?;
    let xc = select(b, y0, x, xm, s)?;
    let div = bin(b, &prims::DIV, xc, y.clone(), s)?;
    let mnz = bin(b, &prims::NE, m.clone(), zero, s)?;
    let sy = un(b, &prims::SIGN, y, s)?;
    let sm = un(b, &prims::SIGN, m, s)?;
    let differ = bin(b, &prims::NE, sy, sm, s)?;
    let ind = bin(b, &prims::AND, mnz, differ, s)?;
    let fone = lit(b, 1.0);
    let d1 = bin(b, &prims::SUB, div.clone(), fone, s)?;
    let div = select(b, ind, d1, div, s)?;
    traced(b.bind1(&prims::ROUND, Params::Rounding(0), vec![div], s)?)
}

/// A bool array of `x`'s shape, all `v` (`lax.full_like(x, v, bool)`).
fn full_bool(b: &mut Builder, x: &Atom, v: bool, s: Span) -> Result<Atom> {
    let a = b.aval(x);
    let l = literal(Scalar::Bool(v), Aval::scalar(DType::Bool, false));
    if a.rank() == 0 {
        return Ok(l);
    }
    b.bind1(
        &prims::BROADCAST_IN_DIM,
        Params::BroadcastInDim {
            shape: a.shape,
            dims: vec![],
            np_ints: 0,
        },
        vec![l],
        s,
    )
}

/// `jnp::isinf(x)` and `jnp::isfinite(x)`: false and true for integers.
pub(crate) fn isinf_isfinite(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let b = &mut t.b;
    let float = b.aval(&x).dtype.is_float();
    let v = match (c.name, float) {
        ("isinf", true) => {
            let a = un(b, &prims::ABS, x.clone(), s)?;
            let inf = typed_lit(b, &x, f64::INFINITY);
            bin(b, &prims::EQ, a, inf, s)?
        }
        ("isfinite", true) => un(b, &prims::IS_FINITE, x, s)?,
        (name, _) => full_bool(b, &x, name == "isfinite", s)?,
    };
    traced(v)
}

/// `jnp::log2(x)` (`log(x) / log(2)`) and `jnp::log10(x)` (`log(x) * (1 / log(10))`).
pub(crate) fn log_base(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let x = jnp::to_float(&mut t.b, x, s)?;
    let b = &mut t.b;
    let l = un(b, &prims::LOG, x.clone(), s)?;
    let v = if c.name == "log2" {
        let two = typed_lit(b, &x, 2.0);
        let l2 = un(b, &prims::LOG, two, s)?;
        bin(b, &prims::DIV, l, l2, s)?
    } else {
        let k = typed_lit(b, &x, std::f64::consts::LOG10_E);
        bin(b, &prims::MUL, l, k, s)?
    };
    traced(v)
}

/// `jnp::trunc(x)`: `where(x < 0, ceil(x), floor(x))`; integers unchanged.
pub(crate) fn trunc(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let b = &mut t.b;
    if !b.aval(&x).dtype.is_float() {
        return traced(x);
    }
    let zero = int_lit(b, 0);
    let neg = bin(b, &prims::LT, x.clone(), zero, s)?;
    let c_ = un(b, &prims::CEIL, x.clone(), s)?;
    let f = un(b, &prims::FLOOR, x, s)?;
    traced(select(b, neg, c_, f, s)?)
}

/// `jnp::var(x[, axis, keepdims])`, `jnp::std`, and their `_axis` spellings
/// (ddof 0): `sum(square(x - mean(x))) / n` in the computation type.
pub(crate) fn var_std(t: &mut Tracer, c: Call) -> Result<Value> {
    let s = c.span;
    let name = c.name.trim_end_matches("_axis");
    if name.len() != c.name.len() {
        c.want(3)?;
    }
    let x = c.atom(t, 0)?;
    let (axes, keepdims) = t.axis_args(&x, &c.args[1..], c.name, s)?;
    let a = t.b.aval(&x);
    let b = &mut t.b;
    let out = jnp::to_float(b, x, s)?.clone();
    let out_dtype = b.aval(&out).dtype;
    // f16 and bf16 compute in f32, as `_var_promote_types`.
    let comp = if matches!(out_dtype, DType::F16 | DType::BF16) {
        DType::F32
    } else {
        out_dtype
    };
    let weak = b.aval(&out).weak;
    let x = jnp::convert(b, out, comp, weak, s)?;
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let mut n = 1usize;
    for &k in &axes {
        match a.shape[k] {
            Dim::Lit(d) => n *= d,
            _ => {
                return call_err(
                    s,
                    format!("{name} over a symbolic dimension is not supported"),
                )
            }
        }
    }
    let mean = jnp::mean(b, x.clone(), Some(axes.clone()), true, s)?;
    let centered = bin(b, &prims::SUB, x, mean, s)?;
    let sq = un(b, &prims::SQUARE, centered, s)?;
    let sum = jnp::reduce(b, Reduction::Sum, sq, Some(axes), keepdims, s)?;
    let norm = literal(
        crate::ir::cast_scalar(Scalar::Int(n as i128), comp),
        Aval::scalar(comp, false),
    );
    let var = bin(b, &prims::DIV, sum, norm, s)?;
    let var = jnp::convert(b, var, out_dtype, weak, s)?;
    traced(if name == "std" {
        un(b, &prims::SQRT, var, s)?
    } else {
        var
    })
}

/// `jnp::logsumexp_axis(x, axis, keepdims)`: `jnp::logsumexp` with its axis.
pub(crate) fn logsumexp_axis(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(3)?;
    lower_math::logsumexp(t, c)
}

/// `use nn as _;` for each of `nn`, `special`, `norm`, `stats`, `scipy` that
/// starts a path in the body: the body is traced, not compiled, so without
/// it rustc would call the user's `use jax::nn;` unused (and a missing one
/// is reported at the user's token, as it would be eagerly).
pub(crate) fn module_uses(block: &syn::Block) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    fn scan(ts: proc_macro2::TokenStream, found: &mut Vec<proc_macro2::Ident>) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        let colon =
            |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
        for (i, t) in toks.iter().enumerate() {
            match t {
                TokenTree::Group(g) => scan(g.stream(), found),
                TokenTree::Ident(id) => {
                    let name = id.to_string();
                    let ours =
                        matches!(name.as_str(), "nn" | "special" | "norm" | "stats" | "scipy");
                    let starts_path = colon(toks.get(i + 1)) && !(i > 0 && colon(toks.get(i - 1)));
                    if ours && starts_path && !found.iter().any(|f| *f == name) {
                        found.push(id.clone());
                    }
                }
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    scan(quote::quote!(#block), &mut found);
    quote::quote!(#(#[allow(unused_imports)] use #found as _;)*)
}

/// `jnp::nansum`, `nanmax`, `nanmin` (and `_axis`): JAX's `_nan_reduction`,
/// NaNs replaced by the reduction's identity, NaN where all were NaN.
pub(crate) fn nan_reduce(t: &mut Tracer, c: Call) -> Result<Value> {
    let s = c.span;
    let name = c.name.trim_end_matches("_axis");
    if name.len() != c.name.len() {
        c.want(3)?;
    }
    let x = c.atom(t, 0)?;
    let (axes, keepdims) = t.axis_args(&x, &c.args[1..], c.name, s)?;
    let kind = match name {
        "nansum" => Reduction::Sum,
        "nanmax" => Reduction::Max,
        _ => Reduction::Min,
    };
    let b = &mut t.b;
    if !b.aval(&x).dtype.is_inexact() {
        return traced(jnp::reduce(b, kind, x, axes, keepdims, s)?);
    }
    let nan = bin(b, &prims::NE, x.clone(), x.clone(), s)?;
    let init = match kind {
        Reduction::Sum => 0.0,
        Reduction::Max => f64::NEG_INFINITY,
        _ => f64::INFINITY,
    };
    let init = typed_lit(b, &x, init);
    let safe = select(b, nan.clone(), init, x.clone(), s)?;
    let out = jnp::reduce(b, kind, safe, axes.clone(), keepdims, s)?;
    if kind == Reduction::Sum {
        return traced(out);
    }
    let all_nan = jnp::reduce(b, Reduction::All, nan, axes, keepdims, s)?;
    let nan_lit = typed_lit(b, &x, f64::NAN);
    traced(select(b, all_nan, nan_lit, out, s)?)
}

/// `jnp::argmax_axis(x, axis, keepdims)`, `argmin_axis`, and `nanargmax`,
/// `nanargmin` (JAX's: NaNs replaced by -inf or inf, -1 where all are NaN).
pub(crate) fn arg_axis(t: &mut Tracer, mut c: Call) -> Result<Value> {
    let s = c.span;
    let base = c.name.trim_end_matches("_axis");
    let keepdims = if base.len() != c.name.len() {
        c.want(3)?;
        let (v, at) = c.args.pop().unwrap();
        match v {
            Value::Static(Scalar::Bool(k)) => k,
            _ => return call_err(at, "keepdims must be `true` or `false`"),
        }
    } else {
        false
    };
    let nan_variant = base.starts_with("nan");
    let x = c.atom(t, 0)?;
    let a = t.b.aval(&x);
    let mut all_nan = None;
    if nan_variant && a.dtype.is_inexact() {
        let b = &mut t.b;
        let nan = bin(b, &prims::NE, x.clone(), x.clone(), s)?;
        let fill = typed_lit(
            b,
            &x,
            if base == "nanargmax" {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
        );
        let safe = select(b, nan.clone(), fill, x.clone(), s)?;
        let axes = match c.args.get(1) {
            Some((v, at)) => {
                let ax = t.static_int(v, *at, "the axis")?;
                Some(vec![jnp::axis(&t.b, &x, ax, *at)?])
            }
            None => None,
        };
        all_nan = Some(jnp::reduce(&mut t.b, Reduction::All, nan, axes, false, s)?);
        c.args[0].0 = Value::Traced(safe);
    }
    let axis = match c.args.get(1) {
        Some((v, at)) => Some(jnp::axis(&t.b, &x, t.static_int(v, *at, "the axis")?, *at)?),
        None => None,
    };
    let call = Call {
        module: c.module,
        name: base.trim_start_matches("nan"),
        args: c.args,
        hint: None,
        span: s,
    };
    let Value::Traced(mut r) = lower_math::arg_reduce(t, call)? else {
        unreachable!("arg_reduce gives a traced value")
    };
    if let Some(all) = all_nan {
        let m1 = int_lit(&t.b, -1);
        r = select(&mut t.b, all, m1, r, s)?;
    }
    if keepdims {
        let shape: Vec<Dim> = match axis {
            Some(k) => {
                let mut sh = a.shape.clone();
                sh[k] = Dim::Lit(1);
                sh
            }
            None => vec![Dim::Lit(1); a.rank()],
        };
        r = jnp::reshape(&mut t.b, r, shape, s)?;
    }
    traced(r)
}

/// `lax::reduce_sum(x, &[axes])` and `reduce_prod`, `reduce_max`,
/// `reduce_min`: no promotion, as lax.
pub(crate) fn lax_reduce(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let s = c.span;
    let x = c.atom(t, 0)?;
    let (v, at) = &c.args[1];
    let items: Vec<Value> = match v {
        Value::List(items) | Value::Tuple(items) => items.clone(),
        other => vec![other.clone()],
    };
    let mut axes = Vec::new();
    for i in &items {
        let k = t.static_int(i, *at, "the axes")?;
        axes.push(jnp::axis(&t.b, &x, k, *at)?);
    }
    let prim: Prim = match c.name {
        "reduce_sum" => &prims::REDUCE_SUM,
        "reduce_prod" => &prims::REDUCE_PROD,
        "reduce_max" => &prims::REDUCE_MAX,
        _ => &prims::REDUCE_MIN,
    };
    traced(t.b.bind1(prim, Params::Axes(axes, 0), vec![x], s)?)
}

/// `lax::convert_element_type::<U>(x)` (or `::<U, _>` with the result type
/// written): the element type from the turbofish or the result's type.
pub(crate) fn lax_convert(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let Some(dtype) = c.hint.as_ref().and_then(|h| h.aval()).map(|a| a.dtype) else {
        return call_err(
            c.span,
            "write the target element type: `lax::convert_element_type::<f32>(x)`",
        );
    };
    traced(t.b.bind1(
        &prims::CONVERT_ELEMENT_TYPE,
        Params::Convert {
            new_dtype: dtype,
            weak: false,
        },
        vec![x],
        c.span,
    )?)
}
