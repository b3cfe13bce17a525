//! `jax::nn::NAME(..)` (or `nn::NAME` after `use jax::nn;`),
//! `jax::scipy::special::NAME`, and `logaddexp`: each call's static
//! arguments read here, its body the one text of `jax_core::nn` (which an
//! eager call runs too). `jax::scipy::stats::norm::NAME`: `lib/stats.rs`;
//! the `jnp` numeric compositions, `var`, `remainder`, `isinf`, ...:
//! `lib/jnp/numeric.rs`. The builders of one step each below serve those.

use proc_macro2::Span;

use crate::frontend::lib::call::{call_err, Call, Module};
use crate::frontend::lib::jnp::math;
use crate::frontend::lib::stats::*;
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::Value;
use crate::ir::builder::{Builder, Result};
use crate::ir::{Atom, Aval, Scalar};
use crate::prims::{self, Params};
use jax_core::lax::Trace;
use jax_core::nn as core;

pub(crate) type Handler = fn(&mut Tracer, Call) -> Result<Value>;

/// `jax::nn`'s functions.
static NN: &[(&str, Handler)] = &[
    ("relu", relu),
    ("relu6", relu),
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
    ("logit", unary_fn),
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

/// The rule's program of JAX's `custom_jvp` function `name`, when `fun` is
/// that function's body (an imported `custom_jvp_call`, whose text names
/// its rule but cannot hold it): `fun` printed, its calls inlined, as ours.
pub(crate) fn known_custom_jvp(name: &str, fun: &crate::ir::Jaxpr) -> Option<crate::ir::Jaxpr> {
    let avals: Vec<Aval> = fun.invars.iter().map(|v| fun.aval(*v).clone()).collect();
    let mut b = Builder::new(crate::x64());
    let ins: Vec<Atom> = avals.into_iter().map(|a| b.input(a)).collect();
    jax_core::nn::by_name(&mut Trace::new(&mut b, Span::call_site()), name, ins)?.ok()?;
    let e = b.jaxpr.eqns.last()?;
    let Params::CustomJvp(c) = &e.params else {
        return None;
    };
    let print = |j: &crate::ir::Jaxpr| crate::ir::print::print_jaxpr(&prims::inline_all_calls(j));
    (print(&c.0.fun) == print(fun)).then(|| c.0.jvp.clone())
}

pub(super) fn traced(a: Atom) -> Result<Value> {
    Ok(Value::Traced(a))
}

// jax.nn

/// `relu(x)` (also `jnp::relu`, `lax::relu` and `.relu()`) and `relu6(x)`.
pub(crate) fn relu(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let l = &mut t.at(c.span);
    traced(match c.name {
        "relu6" => core::relu6(l, x)?,
        _ => core::relu(l, x)?,
    })
}

/// The functions of one array argument without their own handler.
fn unary_fn(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(1)?;
    let x = c.atom(t, 0)?;
    let l = &mut t.at(c.span);
    traced(match c.name {
        "sigmoid" => core::sigmoid(l, x)?,
        "softplus" => core::softplus(l, x)?,
        "log_sigmoid" => core::log_sigmoid(l, x)?,
        "silu" | "swish" => core::silu(l, x)?,
        "selu" => core::selu(l, x)?,
        "hard_tanh" => core::hard_tanh(l, x)?,
        "logit" => core::logit(l, x)?,
        other => match core::special(l, other, x) {
            Some(r) => r?,
            None => unreachable!("no lowering for {other}"),
        },
    })
}

/// `gelu(x, approximate)`: JAX's tanh form or the exact erfc form.
fn gelu(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let approximate = match &c.args[1].0 {
        Value::Static(Scalar::Bool(a)) => *a,
        _ => return call_err(c.args[1].1, "`approximate` must be `true` or `false`"),
    };
    let x = c.atom(t, 0)?;
    traced(core::gelu(&mut t.at(c.span), x, approximate)?)
}

/// `elu(x, alpha)`, `leaky_relu(x, negative_slope)`, `celu(x, alpha)`.
fn with_param(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let p = c.atom(t, 1)?;
    let l = &mut t.at(c.span);
    traced(match c.name {
        "elu" => core::elu(l, x, p)?,
        "leaky_relu" => core::leaky_relu(l, x, p)?,
        _ => core::celu(l, x, p)?,
    })
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
    let x = c.atom(t, 0)?;
    let ax = axis_arg(t, &c, 1, &x)?;
    traced(core::glu(&mut t.at(c.span), x, ax)?)
}

/// `one_hot(labels, num_classes)`, of the written type's dtype (else the
/// default float).
fn one_hot(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let x = c.atom(t, 0)?;
    let n = t.static_int(&c.args[1].0, c.args[1].1, "num_classes")?;
    if n < 0 {
        return call_err(c.args[1].1, "num_classes must be non-negative");
    }
    let l = &mut t.at(c.span);
    let dtype = c
        .hint
        .as_ref()
        .and_then(|h| h.aval())
        .map(|h| h.dtype)
        .unwrap_or_else(|| core::default_float(l));
    traced(core::one_hot(l, x, n as usize, dtype)?)
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
        vec![ax],
        eps,
    )?)
}

// jax.scipy.special

/// `xlogy(x, y) = x log(y)` and `xlog1py(x, y) = x log1p(y)`.
fn xlogy(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let log1p = c.name == "xlog1py";
    traced(core::xlogy(&mut t.at(c.span), x, y, log1p)?)
}

/// `jnp::logaddexp(x, y)` and `jnp::logaddexp2(x, y)`.
pub(crate) fn logaddexp(t: &mut Tracer, c: Call) -> Result<Value> {
    c.want(2)?;
    let (x, y) = (c.atom(t, 0)?, c.atom(t, 1)?);
    let base2 = c.name == "logaddexp2";
    traced(core::logaddexp(&mut t.at(c.span), x, y, base2)?)
}

// jax.scipy.stats.norm
