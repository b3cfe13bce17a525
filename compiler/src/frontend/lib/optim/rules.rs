//! The optimizers' formulas inside a jitted body: `init`, `update` and
//! `apply_updates`, optax's per-leaf formulas unrolled over the leaves.

use proc_macro2::Span;

use jax_dtypes::DType;

use crate::frontend::lib::optim::*;
use crate::frontend::trace::jnp;
use crate::frontend::trace::tracer::Tracer;
use crate::frontend::trace::value::{flatten, rebuild, Value};
use crate::ir::builder::{err, literal, Result};
use crate::ir::{Atom, Aval, Scalar};
use crate::prims::{self, Prim};
use jax_core::lax::Lax;

/// The float leaves of a params (or grads) tree.
fn float_leaves(t: &Tracer, tree: &Value, span: Span, what: &str) -> Result<Vec<Atom>> {
    let mut leaves = Vec::new();
    flatten(tree, &mut leaves);
    leaves
        .into_iter()
        .map(|l| match l {
            Value::Traced(a) if matches!(t.b.aval(&a).dtype, DType::F32 | DType::F64) => Ok(a),
            Value::Traced(a) => err(
                span,
                format!(
                    "optimizers update float32 and float64 leaves; a leaf of the {what} is {}",
                    t.b.aval(&a)
                ),
            ),
            _ => err(
                span,
                format!("the {what} must be arrays, or a struct or tuple of arrays"),
            ),
        })
        .collect()
}

/// A tree of `template`'s structure from its new leaves.
fn tree_of(template: &Value, leaves: Vec<Atom>) -> Value {
    rebuild(template, &mut leaves.into_iter().map(Value::Traced))
}

/// A non-weak scalar literal of dtype `d` (the value rounded to it, as a
/// Python float hyperparameter is).
pub(super) fn lit(v: f64, d: DType) -> Atom {
    let v = if d == DType::F32 { v as f32 as f64 } else { v };
    literal(Scalar::Float(v), Aval::scalar(d, false))
}

pub(super) fn int_lit(v: i64) -> Atom {
    literal(Scalar::Int(v as i128), Aval::scalar(DType::I32, false))
}

/// Binds NumPy-layer operations at one span.
struct Ops<'a> {
    t: &'a mut Tracer,
    span: Span,
}

impl Ops<'_> {
    fn bin(&mut self, p: Prim, x: Atom, y: Atom) -> Result<Atom> {
        jnp::binary(&mut self.t.b, p, x, y, self.span)
    }
    fn add(&mut self, x: Atom, y: Atom) -> Result<Atom> {
        self.bin(&prims::ADD, x, y)
    }
    fn sub(&mut self, x: Atom, y: Atom) -> Result<Atom> {
        self.bin(&prims::SUB, x, y)
    }
    fn mul(&mut self, x: Atom, y: Atom) -> Result<Atom> {
        self.bin(&prims::MUL, x, y)
    }
    fn div(&mut self, x: Atom, y: Atom) -> Result<Atom> {
        self.bin(&prims::DIV, x, y)
    }
    fn un(&mut self, p: Prim, x: Atom) -> Result<Atom> {
        jnp::unary(&mut self.t.b, p, x, self.span)
    }
    fn convert(&mut self, x: Atom, d: DType) -> Result<Atom> {
        jnp::convert(&mut self.t.b, x, d, false, self.span)
    }
    fn where_(&mut self, c: Atom, x: Atom, y: Atom) -> Result<Atom> {
        jnp::where_(&mut self.t.b, c, x, y, self.span)
    }
    /// A full array of `v` shaped like `like`.
    fn full_like(&mut self, like: &Atom, v: f64) -> Result<Atom> {
        let a = self.t.b.aval(like);
        let x = lit(v, a.dtype);
        if a.rank() == 0 {
            // A scalar leaf: an equation, so the state's leaf is a variable.
            return self.t.at(self.span).convert_element_type(x, a.dtype, false);
        }
        jnp::broadcast_to(&mut self.t.b, x, a.shape.clone(), self.span)
    }
    /// optax's `safe_increment`: `min(count, MAX - 1) + 1`, saturating at `i32::MAX`.
    fn increment(&mut self, count: Atom) -> Result<Atom> {
        let c = self.bin(&prims::MIN, count, int_lit(i32::MAX as i64 - 1))?;
        self.add(c, int_lit(1))
    }
    /// `1 - decay ** count` in dtype `d`.
    fn bias_correction(&mut self, decay: f64, count: &Atom, d: DType) -> Result<Atom> {
        let c = self.convert(count.clone(), d)?;
        let p = self.bin(&prims::POW, lit(decay, d), c)?;
        self.sub(lit(1.0, d), p)
    }
    /// The schedule's value at `count`, in dtype `d`.
    fn schedule(&mut self, s: &Sched, count: &Atom, d: DType) -> Result<Atom> {
        match *s {
            Sched::Constant(v) => Ok(lit(v, d)),
            Sched::Exponential {
                init,
                steps,
                rate,
                begin,
                staircase,
                end,
            } => {
                if steps <= 0 || rate == 0.0 {
                    return Ok(lit(init, d));
                }
                let dec = self.sub(count.clone(), int_lit(begin.max(0)))?;
                let decf = self.convert(dec.clone(), d)?;
                let mut p = self.div(decf, lit(steps as f64, d))?;
                if staircase {
                    p = self.un(&prims::FLOOR, p)?;
                }
                let pw = self.bin(&prims::POW, lit(rate, d), p)?;
                let decayed = self.mul(lit(init, d), pw)?;
                let before = self.bin(&prims::LE, dec, int_lit(0))?;
                let v = self.where_(before, lit(init, d), decayed)?;
                match end {
                    Some(e) if rate < 1.0 => self.bin(&prims::MAX, v, lit(e, d)),
                    Some(e) => self.bin(&prims::MIN, v, lit(e, d)),
                    None => Ok(v),
                }
            }
            Sched::Cosine {
                init,
                steps,
                alpha,
                exponent,
            } => self.cosine(init, steps, alpha, exponent, count.clone(), d),
            Sched::WarmupCosine {
                init,
                peak,
                warmup,
                steps,
                end,
                exponent,
            } => {
                let alpha = if peak == 0.0 { 0.0 } else { end / peak };
                let shifted = self.sub(count.clone(), int_lit(warmup))?;
                let cos = self.cosine(peak, steps - warmup, alpha, exponent, shifted, d)?;
                if warmup <= 0 {
                    return Ok(cos);
                }
                let lo = self.bin(&prims::MAX, int_lit(0), count.clone())?;
                let c = self.bin(&prims::MIN, int_lit(warmup), lo)?;
                let cf = self.convert(c, d)?;
                let q = self.div(cf, lit(warmup as f64, d))?;
                let frac = self.sub(lit(1.0, d), q)?;
                let m = self.mul(lit(init - peak, d), frac)?;
                let linear = self.add(m, lit(peak, d))?;
                let warming = self.bin(&prims::LT, count.clone(), int_lit(warmup))?;
                self.where_(warming, linear, cos)
            }
        }
    }
    fn cosine(
        &mut self,
        init: f64,
        steps: i64,
        alpha: f64,
        exponent: f64,
        count: Atom,
        d: DType,
    ) -> Result<Atom> {
        let cf = self.convert(count, d)?;
        let c = self.bin(&prims::MIN, cf, lit(steps as f64, d))?;
        let x = self.mul(lit(std::f64::consts::PI, d), c)?;
        let x = self.div(x, lit(steps as f64, d))?;
        let cos = self.un(&prims::COS, x)?;
        let s = self.add(lit(1.0, d), cos)?;
        let cosine = self.mul(lit(0.5, d), s)?;
        let pw = self.bin(&prims::POW, cosine, lit(exponent, d))?;
        let decayed = self.mul(lit(1.0 - alpha, d), pw)?;
        let decayed = self.add(decayed, lit(alpha, d))?;
        self.mul(lit(init, d), decayed)
    }
}

fn state_value(name: &str, count: Atom, trees: Vec<(&str, Value)>) -> Value {
    let mut fields = vec![("count".to_string(), Value::Traced(count))];
    fields.extend(trees.into_iter().map(|(f, v)| (f.to_string(), v)));
    Value::Struct(format!("{PREFIX}{name}"), fields)
}

pub(super) fn init(t: &mut Tracer, o: &Opt, params: &Value, span: Span) -> Result<Value> {
    let leaves = float_leaves(t, params, span, "params")?;
    let mut ops = Ops { t, span };
    let zero = ops
        .t
        .at(span)
        .convert_element_type(int_lit(0), DType::I32, false)?;
    let full = |ops: &mut Ops, v: f64| -> Result<Value> {
        let l = leaves
            .iter()
            .map(|l| ops.full_like(l, v))
            .collect::<Result<Vec<_>>>()?;
        Ok(tree_of(params, l))
    };
    Ok(match o {
        Opt::Sgd(_) => state_value("CountState", zero, vec![]),
        Opt::Momentum { .. } => {
            state_value("TraceState", zero, vec![("trace", full(&mut ops, 0.0)?)])
        }
        Opt::Adam { .. } => {
            let (mu, nu) = (full(&mut ops, 0.0)?, full(&mut ops, 0.0)?);
            state_value("AdamState", zero, vec![("mu", mu), ("nu", nu)])
        }
        Opt::Rmsprop { initial_scale, .. } => state_value(
            "RmsState",
            zero,
            vec![("nu", full(&mut ops, *initial_scale)?)],
        ),
        Opt::Adagrad { initial, .. } => state_value(
            "AdagradState",
            zero,
            vec![("sum_of_squares", full(&mut ops, *initial)?)],
        ),
        Opt::Lion { .. } => state_value("LionState", zero, vec![("mu", full(&mut ops, 0.0)?)]),
        Opt::Clip(_) => Value::Tuple(vec![]),
        Opt::Chain(stages) => Value::Tuple(
            stages
                .iter()
                .map(|s| init(ops.t, s, params, span))
                .collect::<Result<_>>()?,
        ),
    })
}

/// The state's fields, checked to be the state this optimizer makes.
fn state_parts(state: &Value, want: &str, span: Span) -> Result<(Atom, Vec<Value>)> {
    let full = format!("{PREFIX}{want}");
    match state {
        Value::Struct(name, fields) if *name == full => {
            let Value::Traced(count) = &fields[0].1 else {
                return err(span, "the state's count must be an array");
            };
            Ok((
                count.clone(),
                fields[1..].iter().map(|(_, v)| v.clone()).collect(),
            ))
        }
        Value::Struct(name, _) => err(
            span,
            format!("this optimizer's state is a `{full}`, got a `{name}`"),
        ),
        _ => err(
            span,
            format!("this optimizer's state is a `{full}` (what its `.init(&params)` returns)"),
        ),
    }
}

/// The leaves of a state tree, as many as the gradients have.
fn tree_leaves(t: &Tracer, v: &Value, n: usize, span: Span) -> Result<Vec<Atom>> {
    let l = float_leaves(t, v, span, "state")?;
    if l.len() != n {
        return err(span, format!("the state has {} leaves per tree where the gradients have {n}: it was made for other params", l.len()));
    }
    Ok(l)
}

pub(super) fn update(
    t: &mut Tracer,
    o: &Opt,
    grads: &Value,
    state: &Value,
    params: &Value,
    span: Span,
) -> Result<(Value, Value)> {
    let g = float_leaves(t, grads, span, "gradients")?;
    let p = float_leaves(t, params, span, "params")?;
    if p.len() != g.len() {
        return err(span, format!("the gradients have {} leaves and the params {}: they must be trees of one structure", g.len(), p.len()));
    }
    let n = g.len();
    let dtypes: Vec<DType> = g.iter().map(|a| t.b.aval(a).dtype).collect();
    let mut ops = Ops { t, span };
    // -lr at this count, per leaf dtype.
    let neg_lr = |ops: &mut Ops, lr: &Sched, count: &Atom| -> Result<Vec<Atom>> {
        let mut by_dtype: Vec<(DType, Atom)> = Vec::new();
        dtypes
            .iter()
            .map(|&d| {
                if let Some((_, a)) = by_dtype.iter().find(|(e, _)| *e == d) {
                    return Ok(a.clone());
                }
                let v = ops.schedule(lr, count, d)?;
                let v = match v {
                    Atom::Lit(l) => match l.value {
                        Scalar::Float(f) => lit(-f, d),
                        _ => unreachable!("a float schedule"),
                    },
                    v => ops.un(&prims::NEG, v)?,
                };
                by_dtype.push((d, v.clone()));
                Ok(v)
            })
            .collect()
    };
    let out = match o {
        Opt::Sgd(lr) => {
            let (count, _) = state_parts(state, "CountState", span)?;
            let lr = neg_lr(&mut ops, lr, &count)?;
            let u = (0..n)
                .map(|k| ops.mul(lr[k].clone(), g[k].clone()))
                .collect::<Result<Vec<_>>>()?;
            let count = ops.increment(count)?;
            (tree_of(grads, u), state_value("CountState", count, vec![]))
        }
        Opt::Momentum {
            lr,
            momentum,
            nesterov,
        } => {
            let (count, trees) = state_parts(state, "TraceState", span)?;
            let tr = tree_leaves(ops.t, &trees[0], n, span)?;
            let lr = neg_lr(&mut ops, lr, &count)?;
            let (mut u, mut trace) = (Vec::new(), Vec::new());
            for k in 0..n {
                let m = lit(*momentum, dtypes[k]);
                let mt = ops.mul(m.clone(), tr[k].clone())?;
                let new = ops.add(g[k].clone(), mt)?;
                let step = if *nesterov {
                    let mt = ops.mul(m, new.clone())?;
                    ops.add(g[k].clone(), mt)?
                } else {
                    new.clone()
                };
                u.push(ops.mul(lr[k].clone(), step)?);
                trace.push(new);
            }
            let count = ops.increment(count)?;
            (
                tree_of(grads, u),
                state_value("TraceState", count, vec![("trace", tree_of(grads, trace))]),
            )
        }
        Opt::Adam {
            lr,
            b1,
            b2,
            eps,
            eps_root,
            weight_decay,
        } => {
            let (count, trees) = state_parts(state, "AdamState", span)?;
            let (mu0, nu0) = (
                tree_leaves(ops.t, &trees[0], n, span)?,
                tree_leaves(ops.t, &trees[1], n, span)?,
            );
            let lr = neg_lr(&mut ops, lr, &count)?;
            let count_inc = ops.increment(count)?;
            let (mut u, mut mus, mut nus) = (Vec::new(), Vec::new(), Vec::new());
            for k in 0..n {
                let d = dtypes[k];
                let a = ops.mul(lit(1.0 - b1, d), g[k].clone())?;
                let b = ops.mul(lit(*b1, d), mu0[k].clone())?;
                let mu = ops.add(a, b)?;
                let gg = ops.mul(g[k].clone(), g[k].clone())?;
                let a = ops.mul(lit(1.0 - b2, d), gg)?;
                let b = ops.mul(lit(*b2, d), nu0[k].clone())?;
                let nu = ops.add(a, b)?;
                let bc1 = ops.bias_correction(*b1, &count_inc, d)?;
                let bc2 = ops.bias_correction(*b2, &count_inc, d)?;
                let mu_hat = ops.div(mu.clone(), bc1)?;
                let nu_hat = ops.div(nu.clone(), bc2)?;
                let s = ops.add(nu_hat, lit(*eps_root, d))?;
                let s = ops.un(&prims::SQRT, s)?;
                let s = ops.add(s, lit(*eps, d))?;
                let mut step = ops.div(mu_hat, s)?;
                if *weight_decay != 0.0 {
                    let w = ops.mul(lit(*weight_decay, d), p[k].clone())?;
                    step = ops.add(step, w)?;
                }
                u.push(ops.mul(lr[k].clone(), step)?);
                mus.push(mu);
                nus.push(nu);
            }
            (
                tree_of(grads, u),
                state_value(
                    "AdamState",
                    count_inc,
                    vec![("mu", tree_of(grads, mus)), ("nu", tree_of(grads, nus))],
                ),
            )
        }
        Opt::Rmsprop { lr, decay, eps, .. } => {
            let (count, trees) = state_parts(state, "RmsState", span)?;
            let nu0 = tree_leaves(ops.t, &trees[0], n, span)?;
            let lr = neg_lr(&mut ops, lr, &count)?;
            let (mut u, mut nus) = (Vec::new(), Vec::new());
            for k in 0..n {
                let d = dtypes[k];
                let gg = ops.mul(g[k].clone(), g[k].clone())?;
                let a = ops.mul(lit(1.0 - decay, d), gg)?;
                let b = ops.mul(lit(*decay, d), nu0[k].clone())?;
                let nu = ops.add(a, b)?;
                let s = ops.add(nu.clone(), lit(*eps, d))?;
                let s = ops.un(&prims::RSQRT, s)?;
                let step = ops.mul(s, g[k].clone())?;
                u.push(ops.mul(lr[k].clone(), step)?);
                nus.push(nu);
            }
            let count = ops.increment(count)?;
            (
                tree_of(grads, u),
                state_value("RmsState", count, vec![("nu", tree_of(grads, nus))]),
            )
        }
        Opt::Adagrad { lr, eps, .. } => {
            let (count, trees) = state_parts(state, "AdagradState", span)?;
            let s0 = tree_leaves(ops.t, &trees[0], n, span)?;
            let lr = neg_lr(&mut ops, lr, &count)?;
            let (mut u, mut ss) = (Vec::new(), Vec::new());
            for k in 0..n {
                let d = dtypes[k];
                let gg = ops.mul(g[k].clone(), g[k].clone())?;
                let s = ops.add(gg, s0[k].clone())?;
                let pos = ops.bin(&prims::GT, s.clone(), lit(0.0, d))?;
                let r = ops.add(s.clone(), lit(*eps, d))?;
                let r = ops.un(&prims::RSQRT, r)?;
                let inv = ops.where_(pos, r, lit(0.0, d))?;
                let step = ops.mul(inv, g[k].clone())?;
                u.push(ops.mul(lr[k].clone(), step)?);
                ss.push(s);
            }
            let count = ops.increment(count)?;
            (
                tree_of(grads, u),
                state_value(
                    "AdagradState",
                    count,
                    vec![("sum_of_squares", tree_of(grads, ss))],
                ),
            )
        }
        Opt::Lion {
            lr,
            b1,
            b2,
            weight_decay,
        } => {
            let (count, trees) = state_parts(state, "LionState", span)?;
            let mu0 = tree_leaves(ops.t, &trees[0], n, span)?;
            let lr = neg_lr(&mut ops, lr, &count)?;
            let (mut u, mut mus) = (Vec::new(), Vec::new());
            for k in 0..n {
                let d = dtypes[k];
                let a = ops.mul(lit(1.0 - b1, d), g[k].clone())?;
                let b = ops.mul(lit(*b1, d), mu0[k].clone())?;
                let c = ops.add(a, b)?;
                let mut step = ops.un(&prims::SIGN, c)?;
                let a = ops.mul(lit(1.0 - b2, d), g[k].clone())?;
                let b = ops.mul(lit(*b2, d), mu0[k].clone())?;
                let mu = ops.add(a, b)?;
                if *weight_decay != 0.0 {
                    let w = ops.mul(lit(*weight_decay, d), p[k].clone())?;
                    step = ops.add(step, w)?;
                }
                u.push(ops.mul(lr[k].clone(), step)?);
                mus.push(mu);
            }
            let count = ops.increment(count)?;
            (
                tree_of(grads, u),
                state_value("LionState", count, vec![("mu", tree_of(grads, mus))]),
            )
        }
        Opt::Clip(max_norm) => {
            if !matches!(state, Value::Tuple(v) if v.is_empty()) {
                return err(span, "`optim::clip_by_global_norm`'s state is `()`");
            }
            // The global norm: leaf sums of squares added in order, in f32
            // when every leaf is f32.
            let nd = if dtypes.iter().all(|d| *d == DType::F32) {
                DType::F32
            } else {
                DType::F64
            };
            let mut total: Option<Atom> = None;
            for gk in &g {
                let gg = ops.mul(gk.clone(), gk.clone())?;
                let s = jnp::reduce(&mut ops.t.b, jnp::Reduction::Sum, gg, None, false, span)?;
                let s = ops.convert(s, nd)?;
                total = Some(match total {
                    None => s,
                    Some(t) => ops.add(t, s)?,
                });
            }
            let Some(total) = total else {
                return Ok((grads.clone(), state.clone()));
            };
            let norm = ops.un(&prims::SQRT, total)?;
            let mut u = Vec::new();
            for k in 0..n {
                let d = dtypes[k];
                let nk = ops.convert(norm.clone(), d)?;
                let keep = ops.bin(&prims::LT, nk.clone(), lit(*max_norm, d))?;
                let scaled = ops.div(g[k].clone(), nk)?;
                let scaled = ops.mul(scaled, lit(*max_norm, d))?;
                u.push(ops.where_(keep, g[k].clone(), scaled)?);
            }
            (tree_of(grads, u), Value::Tuple(vec![]))
        }
        Opt::Chain(stages) => {
            let Value::Tuple(states) = state else {
                return err(span, "a chain's state is the tuple of its stages' states");
            };
            if states.len() != stages.len() {
                return err(
                    span,
                    format!(
                        "a chain of {} stages has a state of {} parts",
                        stages.len(),
                        states.len()
                    ),
                );
            }
            let mut u = grads.clone();
            let mut out = Vec::new();
            for (stage, s) in stages.iter().zip(states) {
                let (nu, ns) = update(ops.t, stage, &u, s, params, span)?;
                u = nu;
                out.push(ns);
            }
            (u, Value::Tuple(out))
        }
    };
    Ok(out)
}

/// optax's `apply_updates`: `params + updates`, in the params' dtypes.
pub(super) fn apply_updates(
    t: &mut Tracer,
    params: &Value,
    updates: &Value,
    span: Span,
) -> Result<Value> {
    let p = float_leaves(t, params, span, "params")?;
    let u = float_leaves(t, updates, span, "updates")?;
    if p.len() != u.len() {
        return err(
            span,
            format!(
                "the params have {} leaves and the updates {}: they must be trees of one structure",
                p.len(),
                u.len()
            ),
        );
    }
    let mut ops = Ops { t, span };
    let out = p
        .iter()
        .zip(u)
        .map(|(p, u)| {
            let d = ops.t.b.aval(p).dtype;
            let s = ops.add(p.clone(), u)?;
            ops.convert(s, d)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(tree_of(params, out))
}
