//! `jax::nn::NAME(..)` (or `nn::NAME` after `use jax::nn;`),
//! `jax::scipy::special::NAME`, and `logaddexp`, lowered to the primitives
//! JAX emits for them (`jax::scipy::stats::norm::NAME`: `lib/stats.rs`;
//! the `jnp` numeric compositions, `var`, `remainder`, `isinf`, ...:
//! `lib/jnp/numeric.rs`). JAX's `custom_jvp` functions (`relu`, `relu6`,
//! `logaddexp`, `xlogy`, `xlog1py`, `logit`) are `custom_jvp_call`s of their
//! body and JAX's rule, so derivatives at the special points are JAX's
//! (`relu'(0) = 0`, finite `logaddexp` gradients at infinities).

use jax_dtypes::Kind;
use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call, Module};
use crate::frontend::lib::jnp::math;
use crate::frontend::lib::stats::*;
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{literal, Builder, Result};
use crate::ir::{Atom, Aval, Dim, Scalar};
use crate::prims::{self, Params, Prim};
use jax_core::lax::{Lax, Trace};

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
    ("softmax", math::softmax),
    ("log_softmax", math::softmax),
    ("logsumexp", math::logsumexp),
    ("one_hot", one_hot),
    ("standardize", standardize),
    ("max_pool", crate::frontend::lib::lax::window::pool),
    ("avg_pool", crate::frontend::lib::lax::window::pool),
];

/// `jax::scipy::special`'s functions.
static SPECIAL: &[(&str, Handler)] = &[
    ("logsumexp", math::logsumexp),
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

pub(super) fn lit(b: &Builder, v: f64) -> Atom {
    jnp::weak_literal(b, Scalar::Float(v))
}

pub(super) fn int_lit(b: &Builder, v: i128) -> Atom {
    jnp::weak_literal(b, Scalar::Int(v))
}

pub(super) fn bin(b: &mut Builder, p: Prim, x: Atom, y: Atom, s: Span) -> Result<Atom> {
    jnp::binary(b, p, x, y, s)
}

pub(super) fn un(b: &mut Builder, p: Prim, x: Atom, s: Span) -> Result<Atom> {
    jnp::unary(b, p, x, s)
}

pub(super) fn select(b: &mut Builder, c: Atom, x: Atom, y: Atom, s: Span) -> Result<Atom> {
    jnp::where_(b, c, x, y, s)
}

/// A scalar literal of `like`'s dtype, not weak (`np.array(v, dtype)`).
pub(super) fn typed_lit(b: &Builder, like: &Atom, v: f64) -> Atom {
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
pub(super) fn known(t: &mut Tracer, name: &str, args: Vec<Atom>, span: Span) -> Result<Atom> {
    let (_, body, rule) = CUSTOM_JVPS
        .iter()
        .find(|(n, ..)| *n == name)
        .expect("a function of CUSTOM_JVPS");
    custom_jvp(t, name, args, *body, *rule, span)
}

/// The rule's program of JAX's `custom_jvp` function `name`, when `fun` is
/// that function's body (an imported `custom_jvp_call`, whose text names
/// its rule but cannot hold it): `fun` printed, its calls inlined, as ours.
pub(crate) fn known_custom_jvp(
    name: &str,
    fun: &crate::ir::Jaxpr,
    above: &'static crate::frontend::trace::layers::Above,
) -> Option<crate::ir::Jaxpr> {
    let (_, body, rule) = CUSTOM_JVPS.iter().find(|(n, ..)| *n == name)?;
    let avals: Vec<Aval> = fun.invars.iter().map(|v| fun.aval(*v).clone()).collect();
    let mut t = Tracer::new(crate::X64, above);
    let (ours, jvp) = custom_jvp_programs(&mut t, avals, *body, *rule, Span::call_site()).ok()?;
    let print = |j: &crate::ir::Jaxpr| crate::ir::print::print_jaxpr(&prims::inline_all_calls(j));
    (print(&ours) == print(fun)).then_some(jvp)
}

/// A `custom_jvp_call` named `name`: `fun` computes the output from the
/// inputs; `rule` the output's tangent from the primals, their tangents
/// and the output (JAX's `defjvp`).
pub(super) fn custom_jvp(
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

pub(super) fn traced(a: Atom) -> Result<Value> {
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
pub(super) fn inexact_args(t: &mut Tracer, xs: Vec<Atom>, s: Span) -> Result<Vec<Atom>> {
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
        let cube = Trace::new(b, s).integer_pow(x.clone(), 3)?;
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
pub(super) fn axis_arg(t: &Tracer, c: &Call, i: usize, x: &Atom) -> Result<usize> {
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
        halves.push(t.at(s).slice(x.clone(), start, limit, None)?);
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
    let lhs = t
        .at(s)
        .broadcast_in_dim(x, lhs_shape, (0..a.rank()).collect())?;
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
    traced(jax_core::jnp::standardize(
        &mut Trace::new(&mut t.b, s),
        x,
        ax,
        eps,
    )?)
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
